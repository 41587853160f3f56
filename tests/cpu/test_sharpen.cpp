// swinup_dispatch_desc.sharpness on the CPU backend (src/frame/sharpen_pixel.h on the output): 0
// gives the frames of a descriptor without the field (SWINUP_DISPATCH_DESC_SIZE_V2) byte for byte;
// a non-zero strength changes the output but not the history or recurrent state (the next frames,
// unsharpened, equal those of a context that never sharpened); a strength outside [0, 1] is refused
// naming the field. The Vulkan twin is tests/vulkan/test_vulkan_sharpen.cpp.
#include <gtest/gtest.h>

#include <string>

#include "cpu/cpu_backend.h"
#include "model/weights.h"
#include "sharpen_frames.h"

namespace swinup {
namespace {

using namespace test;

TEST(Sharpen, TheOutputIsSharpenedAndTheHistoryIsNot) {
    std::string error;
    const auto weights = weights_load_embedded(Variant::lite, &error);
    ASSERT_TRUE(weights) << error;
    cpu::CpuBackend sharpened(sharpen_context_desc(), weights);
    cpu::CpuBackend plain(sharpen_context_desc(), weights);
    for (int f = 0; f < kSharpenFrames; ++f) {
        const auto a = sharpen_frame(sharpened, f, 1.0f);
        const auto b = sharpen_frame(plain, f, 0.0f);
        EXPECT_FALSE(a == b) << "frame " << f << ": sharpening changed nothing";
        for (int slot = 0; slot < 2; ++slot) {
            EXPECT_TRUE(sharpened.temporal_state().history[slot] == plain.temporal_state().history[slot])
                << "frame " << f << ": the sharpened output reached the history";
            EXPECT_TRUE(sharpened.temporal_state().recurrent[slot] == plain.temporal_state().recurrent[slot]);
        }
    }
    // The next frame unsharpened: the same as the context that never sharpened.
    EXPECT_TRUE(sharpen_frame(sharpened, kSharpenFrames, 0.0f) == sharpen_frame(plain, kSharpenFrames, 0.0f));
}

TEST(Sharpen, ZeroIsAnOlderDescriptorsFrameAndOutOfRangeIsRefused) {
    swinup_context_desc cd = sharpen_context_desc();
    cd.backend = SWINUP_BACKEND_CPU;
    swinup_context *a = nullptr, *b = nullptr;
    ASSERT_EQ(swinup_context_create(&cd, &a), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    ASSERT_EQ(swinup_context_create(&cd, &b), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    const SlidingPlaneFrame frame(kSharpenRenderW, kSharpenRenderH, 0);
    std::vector<uint8_t> out_a(size_t(kSharpenDisplayW) * kSharpenDisplayH * 8, 0xcd), out_b = out_a;
    swinup_dispatch_desc d = frame.dispatch_desc(out_a.data(), SWINUP_FORMAT_RGBA16F, kSharpenDisplayW, kSharpenDisplayH);
    EXPECT_EQ(d.struct_size, SWINUP_DISPATCH_DESC_SIZE_V4);
    EXPECT_EQ(d.sharpness, 0.0f);
    ASSERT_EQ(swinup_dispatch(a, &d), SWINUP_STATUS_OK) << swinup_last_error(a);
    swinup_dispatch_desc v2 = frame.dispatch_desc(out_b.data(), SWINUP_FORMAT_RGBA16F, kSharpenDisplayW, kSharpenDisplayH);
    v2.struct_size = SWINUP_DISPATCH_DESC_SIZE_V2;
    v2.sharpness = 0.9f;  // past a V2 caller's size: not read
    ASSERT_EQ(swinup_dispatch(b, &v2), SWINUP_STATUS_OK) << swinup_last_error(b);
    EXPECT_TRUE(out_a == out_b);
    // A V3 caller (jitter_convention, no sharpness) reads no sharpness either.
    swinup_context* c = nullptr;
    ASSERT_EQ(swinup_context_create(&cd, &c), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    std::vector<uint8_t> out_c(out_a.size(), 0xcd);
    swinup_dispatch_desc v3 = frame.dispatch_desc(out_c.data(), SWINUP_FORMAT_RGBA16F, kSharpenDisplayW, kSharpenDisplayH);
    v3.struct_size = SWINUP_DISPATCH_DESC_SIZE_V3;
    v3.sharpness = 0.9f;  // past a V3 caller's size: not read
    ASSERT_EQ(swinup_dispatch(c, &v3), SWINUP_STATUS_OK) << swinup_last_error(c);
    EXPECT_TRUE(out_a == out_c);
    swinup_context_destroy(c);
    d.sharpness = 1.5f;
    EXPECT_EQ(swinup_dispatch(a, &d), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(swinup_last_error(a)), "dispatch.sharpness: must be in [0, 1] (0: off), got 1.5");
    swinup_context_destroy(a);
    swinup_context_destroy(b);
}

}  // namespace
}  // namespace swinup
