// SWINUP_FLAG_DEBUG_VIEW on the CPU backend (src/frame/debug_view.h, tests/support/debug_view_frames.h):
// each quadrant holds the view the header describes, computed from the inputs alone; the history
// and the recurrent state are those of a context without the flag (the view does not feed them);
// the CLI's --debug-view writes it. The Vulkan twin is tests/vulkan/test_vulkan_debug_view.cpp.
#include <gtest/gtest.h>

#include <string>

#include "cpu/cpu_backend.h"
#include "debug_view_frames.h"
#include "model/weights.h"

namespace swinup {
namespace {

using namespace test;

TEST(DebugView, EachQuadrantShowsItsInputAndTheHistoryIsTheNormalFrames) {
    std::string error;
    const auto weights = weights_load_embedded(Variant::lite, &error);
    ASSERT_TRUE(weights) << error;
    cpu::CpuBackend debug(debug_view_context_desc(true), weights);
    cpu::CpuBackend normal(debug_view_context_desc(false), weights);
    for (int f = 0; f < kDebugFrames; ++f) {
        const auto shown = debug_view_frame(debug, f);
        const auto upscaled = debug_view_frame(normal, f);
        expect_debug_views(shown, f);
        EXPECT_FALSE(shown == upscaled);
        for (int slot = 0; slot < 2; ++slot) {
            EXPECT_TRUE(debug.temporal_state().history[slot] == normal.temporal_state().history[slot])
                << "frame " << f << ": the debug view reached the history";
            EXPECT_TRUE(debug.temporal_state().recurrent[slot] == normal.temporal_state().recurrent[slot]);
        }
    }
}

TEST(DebugView, TheCApiTakesTheFlag) {
    swinup_context_desc d = debug_view_context_desc(true);
    d.backend = SWINUP_BACKEND_CPU;
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(&d, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    swinup_context_destroy(ctx);
}

}  // namespace
}  // namespace swinup
