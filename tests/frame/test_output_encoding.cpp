// The output's encoding both backends write (frame/output_encoding.h): the bytes of each format.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "frame/output_encoding.h"

namespace {

// The bytes write_output_pixel leaves for pixel 1 of a row of `format` (pixel 0 and 2 untouched).
std::vector<uint8_t> written(swinup_format format, const float v[3], size_t pixel_bytes) {
    std::vector<uint8_t> row(3 * 8, 0xee);  // three pixels of the widest format
    swinup::write_output_pixel(format, v, row.data(), 1);
    for (size_t i = 0; i < pixel_bytes; ++i) {
        EXPECT_EQ(row[i], 0xee);
        EXPECT_EQ(row[2 * pixel_bytes + i], 0xee);
    }
    return {row.begin() + static_cast<long>(pixel_bytes), row.begin() + static_cast<long>(2 * pixel_bytes)};
}

TEST(OutputEncoding, Rgba8IsRgbaBytesAlphaOpaque) {
    const float v[3] = {1.0f, 0.0f, 0.5f + 1.0f / 510.0f};
    EXPECT_EQ(written(SWINUP_FORMAT_RGBA8, v, 4), (std::vector<uint8_t>{255, 0, 128, 255}));
}

TEST(OutputEncoding, R10G10B10A2IsALittleEndianWord) {
    const float v[3] = {1.0f, 0.0f, 0.25f};
    const uint32_t word = 1023u | (256u << 20) | (3u << 30);
    EXPECT_EQ(written(SWINUP_FORMAT_R10G10B10A2, v, 4),
              (std::vector<uint8_t>{uint8_t(word), uint8_t(word >> 8), uint8_t(word >> 16), uint8_t(word >> 24)}));
}

TEST(OutputEncoding, Rgba16fIsFourLittleEndianHalvesAlphaOne) {
    const float v[3] = {1.0f, 1e9f, std::nanf("")};  // 1.0, clamped to 65504, NaN as 0
    EXPECT_EQ(written(SWINUP_FORMAT_RGBA16F, v, 8), (std::vector<uint8_t>{0x00, 0x3c, 0xff, 0x7b, 0, 0, 0x00, 0x3c}));
}

TEST(OutputEncoding, UnitsAreOutDividedByExposureTimesPreExposure) {
    EXPECT_EQ(swinup::output_units(3.0f, 2.0f, 4.0f), 6.0f);
    // Divided first, then multiplied: two roundings in that order.
    const volatile float quotient = 0.1f / 3.0f;
    EXPECT_EQ(swinup::output_units(0.1f, 3.0f, 7.0f), quotient * 7.0f);
}

}  // namespace
