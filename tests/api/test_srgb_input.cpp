// SWINUP_FLAG_SRGB_INPUT on the CPU backend: the decode itself (frame/pixel_ops.h srgb_to_linear)
// against the IEC 61966-2-1 formula in double (within 1e-6 relative: the exact-mode exp2 and log2
// are within a few ulps), and whole frames (tests/support/srgb_input_frames.h):
// sRGB-encoded colour with the flag gives the frames of its decode without it, with a fixed
// exposure and with auto exposure (and not those of the codes read as linear). The Vulkan twin is tests/vulkan/test_vulkan_srgb_input.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "frame/pixel_ops.h"
#include "srgb_input_frames.h"

namespace swinup {
namespace {

double reference(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }

TEST(SrgbInput, TheDecodeIsTheStandardCurve) {
    float previous = -1.0f;
    for (int code = 0; code <= 255; ++code) {  // every 8-bit code, as an UNORM8 render target holds them
        const float c = float(code) / 255.0f;
        const float got = px::srgb_to_linear(c);
        EXPECT_NEAR(got, reference(c), 1e-6 * reference(c) + 1e-12) << "code " << code;
        EXPECT_GT(got, previous) << "not increasing at code " << code;
        previous = got;
    }
    EXPECT_EQ(px::srgb_to_linear(0.0f), 0.0f);
    EXPECT_EQ(px::srgb_to_linear(0.04045f), 0.04045f / 12.92f);  // the linear segment, one division
    EXPECT_NEAR(px::srgb_to_linear(1.0f), 1.0f, 2e-7f);
    EXPECT_NEAR(px::srgb_to_linear(2.0f), reference(2.0), 1e-6 * reference(2.0));  // extended range
    EXPECT_EQ(px::srgb_to_linear(-0.5f), -px::srgb_to_linear(0.5f));                // mirrored
    EXPECT_TRUE(std::isnan(px::srgb_to_linear(std::numeric_limits<float>::quiet_NaN())));
    EXPECT_EQ(px::decode_colour(0.5f, false), 0.5f);
}

TEST(SrgbInput, EncodedColourWithTheFlagGivesTheFramesOfItsDecode) {
    test::expect_srgb_frames_equal_decoded(SWINUP_BACKEND_CPU, false);
}

TEST(SrgbInput, AutoExposureReadsTheDecodedColour) {
    test::expect_srgb_frames_equal_decoded(SWINUP_BACKEND_CPU, true);
}

}  // namespace
}  // namespace swinup
