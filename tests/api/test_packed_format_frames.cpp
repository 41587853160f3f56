// The packed formats on the CPU backend, whole frames (tests/support/packed_format_frames.h):
// colour in B10G11R11F and R10G10B10A2, depth in D24_UNORM_S8 and D32F_S8 give the frames of
// the same values in RGBA16F / RGBA32F / R32F, byte for byte; a B10G11R11F output is the RGBA16F
// output within one code of its small floats. The Vulkan backend's twin is
// tests/vulkan/test_vulkan_packed_formats.cpp.
#include <gtest/gtest.h>

#include <string>

#include "packed_format_frames.h"

namespace swinup {
namespace {

using namespace test;

void expect_same_frames(swinup_format color, swinup_format depth) {
    std::string skip;
    const auto packed = run_packed_frames(SWINUP_BACKEND_CPU, color, depth, false, SWINUP_FORMAT_RGBA16F, &skip);
    const auto floats = run_packed_frames(SWINUP_BACKEND_CPU, color, depth, true, SWINUP_FORMAT_RGBA16F, &skip);
    ASSERT_TRUE(skip.empty()) << skip;
    ASSERT_EQ(packed.size(), size_t(kPackedFrames));
    for (int f = 0; f < kPackedFrames; ++f) EXPECT_TRUE(packed[f] == floats[f]) << "frame " << f;
}

TEST(PackedFormatFrames, B10G11R11FColourAndD24DepthGiveTheFramesOfTheirValues) {
    expect_same_frames(SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D24_UNORM_S8);
}

TEST(PackedFormatFrames, R10G10B10A2ColourAndD32FS8DepthGiveTheFramesOfTheirValues) {
    expect_same_frames(SWINUP_FORMAT_R10G10B10A2, SWINUP_FORMAT_D32F_S8);
}

TEST(PackedFormatFrames, B10G11R11FOutputIsTheRgba16fOutputWithinOneCode) {
    std::string skip;
    const auto packed = run_packed_frames(SWINUP_BACKEND_CPU, SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D32F_S8, true,
                                          SWINUP_FORMAT_B10G11R11F, &skip);
    const auto half = run_packed_frames(SWINUP_BACKEND_CPU, SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D32F_S8, true,
                                        SWINUP_FORMAT_RGBA16F, &skip);
    ASSERT_TRUE(skip.empty()) << skip;
    for (int f = 0; f < kPackedFrames; ++f) expect_b10g11r11f_near_rgba16f(packed[f], half[f]);
}

}  // namespace
}  // namespace swinup
