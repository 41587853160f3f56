// SWINUP_FLAG_DEBUG_VIEW on the Vulkan backend (shaders/common/debug_view.glsl in output_pass.comp),
// lavapipe with the validation layer: the quadrants hold the views of tests/support/debug_view_frames.h
// and the frames are the CPU backend's byte for byte, over frames whose network reads the history
// and recurrent state (the weight view shows the network's output): a view that fed the history
// would part from the CPU's, whose history tests/cpu/test_debug_view.cpp checks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpu/cpu_backend.h"
#include "debug_view_frames.h"
#include "model/weights.h"
#include "vulkan/backend/vulkan_backend.h"
#include "vulkan_test_support.h"

namespace swinup::vulkan {
namespace {

using namespace test;

class VulkanDebugView : public testing::VulkanTest {};

TEST_F(VulkanDebugView, TheQuadrantsAreTheCpusAndTheHistoryIsTheNormalFrames) {
    std::string error;
    const auto weights = weights_load_embedded(Variant::lite, &error);
    ASSERT_TRUE(weights) << error;
    cpu::CpuBackend cpu(debug_view_context_desc(true), weights);
    VulkanBackend debug(debug_view_context_desc(true), weights, device());
    for (int f = 0; f < kDebugFrames; ++f) {
        const auto shown = debug_view_frame(debug, f);
        expect_debug_views(shown, f);
        EXPECT_TRUE(shown == debug_view_frame(cpu, f)) << "frame " << f << " differs from the CPU's";
    }
}

}  // namespace
}  // namespace swinup::vulkan
