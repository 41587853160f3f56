// SWINUP_FLAG_SRGB_INPUT on the Vulkan backend (host pointers, lavapipe with the validation layer):
// the GLSL twin of the decode (shaders/common/pixel_ops.glsl px_srgb_to_linear, in input_planes.comp
// and exposure_rows.comp) gives the frames of the host-decoded colour without the flag, byte for
// byte, with a fixed exposure and with auto exposure, and those frames are the CPU backend's.
#include <gtest/gtest.h>

#include <string>

#include "srgb_input_frames.h"

namespace swinup {
namespace {

void expect_vulkan_srgb_frames(bool auto_exposure) {
    std::string skip;
    if (test::run_srgb_frames(SWINUP_BACKEND_VULKAN, test::SrgbCase::kDecodedWithoutFlag, false, &skip).empty()) {
        GTEST_SKIP() << skip;
    }
    const auto vulkan = test::expect_srgb_frames_equal_decoded(SWINUP_BACKEND_VULKAN, auto_exposure);
    const auto cpu = test::run_srgb_frames(SWINUP_BACKEND_CPU, test::SrgbCase::kCodesWithFlag, auto_exposure, &skip);
    ASSERT_EQ(vulkan.size(), cpu.size());
    for (size_t f = 0; f < cpu.size(); ++f) EXPECT_TRUE(vulkan[f] == cpu[f]) << "frame " << f << " differs from the CPU's";
}

TEST(VulkanSrgbInput, EncodedColourWithTheFlagGivesTheFramesOfItsDecode) { expect_vulkan_srgb_frames(false); }

TEST(VulkanSrgbInput, AutoExposureReadsTheDecodedColour) { expect_vulkan_srgb_frames(true); }

}  // namespace
}  // namespace swinup
