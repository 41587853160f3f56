// The output's encoding (docs/model-spec.md, "Output pass"): a display pixel's linear colour, in
// the exposed units of staging, brought back to the input's units and written in the output
// resource's format. One definition for the CPU backend (cpu/output_pass.cpp) and the CUDA one
// (cuda/frame/post_network.cu).
#pragma once

#include <cstdint>

#include "frame/packed_formats.h"
#include "frame/pixel_ops.h"
#include "numeric/exact_math.h"
#include "numeric/half.h"
#include "numeric/host_device.h"
#include "swinup/swinup.h"

namespace swinup {

namespace px {

// Linear UNORM code of v in [0, 1] (clamped; NaN -> 0) with `max_code` = 2^bits - 1, to nearest.
SWINUP_HD uint32_t unorm_encode(float v, float max_code) {
    const float c = clampf(v == v ? v : 0.0f, 0.0f, 1.0f);
    return static_cast<uint32_t>(exact::rint(exact::mul(c, max_code)));
}

// R10G10B10A2: R in bits 0-9, G 10-19, B 20-29, alpha (always 1 = code 3) in 30-31.
SWINUP_HD uint32_t pack_r10g10b10a2(float r, float g, float b) {
    return unorm_encode(r, 1023.0f) | (unorm_encode(g, 1023.0f) << 10) |
           (unorm_encode(b, 1023.0f) << 20) | (3u << 30);
}

// RGBA8, R first in memory (a little-endian uint32 with R in the low byte), alpha 255.
SWINUP_HD uint32_t pack_rgba8(float r, float g, float b) {
    return unorm_encode(r, 255.0f) | (unorm_encode(g, 255.0f) << 8) |
           (unorm_encode(b, 255.0f) << 16) | (255u << 24);
}

// A value clamped to f16's finite range [0, 65504], NaN as 0: what the RGBA16F output and the
// history (output_pixel.h, history_value) round to f16, so that neither ever holds Inf or NaN.
SWINUP_HD float half_range(float v) { return clampf(v == v ? v : 0.0f, 0.0f, kHalfMax); }

// RGBA16F of a linear value: half_range() rounded to f16 (to nearest even).
SWINUP_HD uint16_t encode_half_colour(float v) { return f32_to_f16_bits(half_range(v)); }

}  // namespace px

// A display pixel's linear colour `out` in the input's units: out / exposure * pre_exposure, two
// roundings.
SWINUP_HD float output_units(float out, float exposure, float pre_exposure) {
    return exact::mul(exact::div(out, exposure), pre_exposure);
}

// px::encode_half_colour as a function object: write_output_pixel's RGBA16F conversion (exact
// mode; the GPU's fast mode passes the hardware converter, which gives the same bits).
struct EncodeHalfColour {
    SWINUP_HD uint16_t operator()(float v) const { return px::encode_half_colour(v); }
};

// Stores word i (4-byte units) of the output row `row` (4-byte aligned: validation checks the
// output's pointer and pitch against its element size), least significant byte first: the
// formats' words are little-endian (pack_rgba8's R is the first byte in memory, RGBA16F's R the
// first half).
SWINUP_HD void store_output_word(uint8_t* row, size_t i, uint32_t word) {
#if defined(__CUDA_ARCH__)
    reinterpret_cast<uint32_t*>(row)[i] = word;
#else
    uint8_t* p = row + i * 4;
    p[0] = static_cast<uint8_t>(word);
    p[1] = static_cast<uint8_t>(word >> 8);
    p[2] = static_cast<uint8_t>(word >> 16);
    p[3] = static_cast<uint8_t>(word >> 24);
#endif
}

// Writes pixel x of the output row `row` in `format` from v, the colour in the input's units
// (output_units): RGBA16F as f16 by `encode_half` (alpha 1.0), R10G10B10A2 and RGBA8 as linear
// UNORM (alpha 1), B10G11R11F as its unsigned floats (packed_formats.h: NaN and negative values 0,
// values past its largest finite one that one). The context admits no other output format.
template <class EncodeHalf = EncodeHalfColour>
SWINUP_HD void write_output_pixel(swinup_format format, const float v[3], uint8_t* row, int x,
                                  const EncodeHalf& encode_half = EncodeHalf{}) {
    if (format == SWINUP_FORMAT_RGBA16F) {
        uint16_t h[3];
        for (int c = 0; c < 3; ++c) h[c] = encode_half(v[c]);
        uint8_t* pixel = row + static_cast<size_t>(x) * 8;  // two words: only 4-byte aligned
        store_output_word(pixel, 0, static_cast<uint32_t>(h[0]) | (static_cast<uint32_t>(h[1]) << 16));
        store_output_word(pixel, 1, static_cast<uint32_t>(h[2]) | (0x3c00u /* 1.0 */ << 16));
    } else if (format == SWINUP_FORMAT_R10G10B10A2) {
        store_output_word(row, static_cast<size_t>(x), px::pack_r10g10b10a2(v[0], v[1], v[2]));
    } else if (format == SWINUP_FORMAT_B10G11R11F) {
        store_output_word(row, static_cast<size_t>(x), px::pack_b10g11r11f(v[0], v[1], v[2]));
    } else {
        store_output_word(row, static_cast<size_t>(x), px::pack_rgba8(v[0], v[1], v[2]));
    }
}

}  // namespace swinup
