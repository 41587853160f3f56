// src/frame/packed_formats.h, the one definition of the packed formats every backend decodes and
// encodes: B10G11R11F's unsigned floats against f16 (they share its exponent), every code of them
// decoded and encoded back, rounding to nearest even at the midpoints, the clamps, and the UNORM
// decodes (R10G10B10A2, D24) as one IEEE division.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "frame/input_image.h"
#include "frame/output_encoding.h"
#include "frame/packed_formats.h"
#include "numeric/half.h"

namespace swinup {
namespace {

using px::f32_to_ufloat;
using px::ufloat_to_f32;

// An unsigned small float is f16 with the low mantissa bits dropped: its value is that f16's.
TEST(PackedFormats, EveryUfloatIsTheF16WithItsMantissaWidened) {
    for (int mantissa : {6, 5}) {
        const uint32_t codes = 1u << (5 + mantissa);
        for (uint32_t code = 0; code < codes; ++code) {
            const uint16_t f16 = static_cast<uint16_t>(code << (10 - mantissa));
            const float want = f16_bits_to_f32(f16);
            const float got = ufloat_to_f32(code, mantissa);
            if (std::isnan(want)) {
                EXPECT_TRUE(std::isnan(got)) << code;
            } else {
                EXPECT_EQ(got, want) << "mantissa " << mantissa << " code " << code;
            }
        }
    }
}

TEST(PackedFormats, EveryFiniteUfloatEncodesToItself) {
    for (int mantissa : {6, 5}) {
        for (uint32_t code = 0; code <= px::ufloat_max_finite(mantissa); ++code) {
            EXPECT_EQ(f32_to_ufloat(ufloat_to_f32(code, mantissa), mantissa), code) << mantissa << " " << code;
        }
    }
}

TEST(PackedFormats, UfloatRoundsToNearestEvenAndClamps) {
    // 1 + 1/128 lies half-way between 1 (mantissa 0, even) and 1 + 1/64 (mantissa 1): to 1.
    EXPECT_EQ(f32_to_ufloat(1.0f + 1.0f / 128.0f, 6), 15u << 6);
    // 1 + 3/128 lies half-way between mantissa 1 and 2: to 2 (even).
    EXPECT_EQ(f32_to_ufloat(1.0f + 3.0f / 128.0f, 6), (15u << 6) + 2u);
    // Just above a midpoint: up.
    EXPECT_EQ(f32_to_ufloat(std::nextafter(1.0f + 1.0f / 128.0f, 2.0f), 6), (15u << 6) + 1u);
    // A carry out of the mantissa moves into the exponent: 2 - 2^-8 rounds to 2.
    EXPECT_EQ(f32_to_ufloat(2.0f - 1.0f / 256.0f, 6), 16u << 6);
    // Subnormals: the smallest is 2^-20 (6 mantissa bits); half of it is a tie with 0 (even).
    EXPECT_EQ(f32_to_ufloat(std::ldexp(1.0f, -20), 6), 1u);
    EXPECT_EQ(f32_to_ufloat(std::ldexp(1.0f, -21), 6), 0u);
    EXPECT_EQ(f32_to_ufloat(std::ldexp(1.5f, -21), 6), 1u);
    EXPECT_EQ(f32_to_ufloat(std::ldexp(1.0f, -40), 6), 0u);
    // The largest subnormal rounds up into the smallest normal.
    EXPECT_EQ(f32_to_ufloat(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -22), 6), 1u << 6);
    // Clamps: negative, NaN -> 0; past the largest finite (and Inf) -> the largest finite.
    EXPECT_EQ(f32_to_ufloat(-1.0f, 6), 0u);
    EXPECT_EQ(f32_to_ufloat(-0.0f, 6), 0u);
    EXPECT_EQ(f32_to_ufloat(std::numeric_limits<float>::quiet_NaN(), 6), 0u);
    EXPECT_EQ(ufloat_to_f32(f32_to_ufloat(1e9f, 6), 6), 65024.0f);
    EXPECT_EQ(ufloat_to_f32(f32_to_ufloat(std::numeric_limits<float>::infinity(), 5), 5), 64512.0f);
    EXPECT_EQ(ufloat_to_f32(f32_to_ufloat(65535.0f, 6), 6), 65024.0f);  // would round to 65536: clamped
}

TEST(PackedFormats, B10G11R11FPacksRInTheLowBitsAndBInTheHigh) {
    const uint32_t w = px::pack_b10g11r11f(1.0f, 2.0f, 0.5f);
    EXPECT_EQ(w & 0x7ffu, 15u << 6);
    EXPECT_EQ((w >> 11) & 0x7ffu, 16u << 6);
    EXPECT_EQ(w >> 22, 14u << 5);
    EXPECT_EQ(px::b10g11r11f_channel(w, 0), 1.0f);
    EXPECT_EQ(px::b10g11r11f_channel(w, 1), 2.0f);
    EXPECT_EQ(px::b10g11r11f_channel(w, 2), 0.5f);
    EXPECT_EQ(px::b10g11r11f_channel(w, 3), 1.0f);
}

TEST(PackedFormats, UnormDecodesAreOneDivision) {
    for (uint32_t code : {0u, 1u, 341u, 512u, 1022u, 1023u}) {
        const uint32_t w = code | ((1023u - code) << 10) | ((code / 2) << 20) | (2u << 30);
        EXPECT_EQ(px::r10g10b10a2_channel(w, 0), float(code) / 1023.0f);
        EXPECT_EQ(px::r10g10b10a2_channel(w, 1), float(1023u - code) / 1023.0f);
        EXPECT_EQ(px::r10g10b10a2_channel(w, 2), float(code / 2) / 1023.0f);
        EXPECT_EQ(px::r10g10b10a2_channel(w, 3), 2.0f / 3.0f);
    }
    for (uint32_t code : {0u, 1u, 0x7fffffu, 0xabcdefu, 0xffffffu}) {
        EXPECT_EQ(px::d24_depth(code | 0x5a000000u), float(code) / 16777215.0f) << code;  // stencil not read
    }
}

// The readers every backend shares (input_image.h) go through these decodes.
TEST(PackedFormats, InputImageReadsThePackedFormats) {
    const uint32_t colour[2] = {px::pack_b10g11r11f(0.25f, 3.0f, 100.0f), 1023u | (512u << 10) | (0u << 20)};
    swinup_resource r{};
    r.data = colour;
    r.width = 2;
    r.height = 1;
    r.format = SWINUP_FORMAT_B10G11R11F;
    InputImage im = input_image(r);
    EXPECT_EQ(read_input(im, 0, 0, 0), 0.25f);
    EXPECT_EQ(read_input(im, 0, 0, 1), 3.0f);
    EXPECT_EQ(read_input(im, 0, 0, 2), 100.0f);
    r.format = SWINUP_FORMAT_R10G10B10A2;
    im = input_image(r);
    EXPECT_EQ(read_input(im, 1, 0, 0), 1.0f);
    EXPECT_EQ(read_input(im, 1, 0, 1), 512.0f / 1023.0f);
    EXPECT_EQ(read_input(im, 1, 0, 2), 0.0f);
    // D32F_S8: 8 bytes a pixel, the float first.
    struct {
        float depth;
        uint32_t stencil;
    } const d32s8[2] = {{0.125f, 0xffu}, {0.75f, 0x7fu}};
    r.data = d32s8;
    r.format = SWINUP_FORMAT_D32F_S8;
    im = input_image(r);
    EXPECT_EQ(read_input(im, 0, 0, 0), 0.125f);
    EXPECT_EQ(read_input(im, 1, 0, 0), 0.75f);
    const uint32_t d24[2] = {0xff000000u, 0x00ffffffu};
    r.data = d24;
    r.format = SWINUP_FORMAT_D24_UNORM_S8;
    im = input_image(r);
    EXPECT_EQ(read_input(im, 0, 0, 0), 0.0f);
    EXPECT_EQ(read_input(im, 1, 0, 0), 1.0f);
}

TEST(PackedFormats, TheOutputEncodingWritesB10G11R11F) {
    uint8_t row[8] = {};
    const float v[3] = {1.0f, std::numeric_limits<float>::quiet_NaN(), 1e6f};
    write_output_pixel(SWINUP_FORMAT_B10G11R11F, v, row, 1);
    uint32_t w;
    std::memcpy(&w, row + 4, 4);
    EXPECT_EQ(w, px::pack_b10g11r11f(1.0f, 0.0f, 64512.0f));
    EXPECT_EQ(px::b10g11r11f_channel(w, 2), 64512.0f);
}

}  // namespace
}  // namespace swinup
