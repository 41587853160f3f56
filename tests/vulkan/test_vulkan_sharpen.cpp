// swinup_dispatch_desc.sharpness on the Vulkan backend (shaders/frame/sharpen.comp after the output
// pass), lavapipe with the validation layer: sharpened frames are the CPU backend's byte for byte,
// over frames whose network reads the history (which sharpening must leave alone, as
// tests/cpu/test_sharpen.cpp checks on the CPU), and a sharpness of 0 gives the unsharpened frames.
#include <gtest/gtest.h>

#include <string>

#include "cpu/cpu_backend.h"
#include "model/weights.h"
#include "sharpen_frames.h"
#include "vulkan/backend/vulkan_backend.h"
#include "vulkan_test_support.h"

namespace swinup::vulkan {
namespace {

using namespace test;

class VulkanSharpen : public testing::VulkanTest {};

TEST_F(VulkanSharpen, SharpenedFramesAreTheCpus) {
    std::string error;
    const auto weights = weights_load_embedded(Variant::lite, &error);
    ASSERT_TRUE(weights) << error;
    cpu::CpuBackend cpu(sharpen_context_desc(), weights);
    VulkanBackend gpu(sharpen_context_desc(), weights, device());
    const float strengths[kSharpenFrames] = {1.0f, 0.0f, 0.5f};
    for (int f = 0; f < kSharpenFrames; ++f) {
        EXPECT_TRUE(sharpen_frame(gpu, f, strengths[f]) == sharpen_frame(cpu, f, strengths[f]))
            << "frame " << f << " (sharpness " << strengths[f] << ") differs from the CPU's";
    }
}

}  // namespace
}  // namespace swinup::vulkan
