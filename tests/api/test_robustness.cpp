// Bad data never reaches the network or the history: NaN/Inf pixels are replaced (and counted),
// outputs and history stay finite; a rejected or failed dispatch leaves the temporal state
// exactly as it was.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "numeric/half.h"
#include "model/weights.h"
#include "cpu/cpu_backend.h"
#include "cpu_backend_fixture.h"
#include "pipeline_fixture.h"

namespace swinup::test {
namespace {

constexpr uint32_t kW = 32, kH = 32, kDW = 64, kDH = 64;
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

void expect_finite_output(const FrameData& f) {
    for (uint32_t y = 0; y < kDH; ++y)
        for (uint32_t x = 0; x < kDW; ++x)
            for (int c = 0; c < 4; ++c) ASSERT_TRUE(std::isfinite(f.output_half(x, y, c))) << x << "," << y;
}

void expect_finite_history(const cpu::CpuBackend& backend) {
    const cpu::TemporalState& s = backend.temporal_state();
    for (uint16_t h : s.history[s.frames.current()]) ASSERT_TRUE(std::isfinite(f16_bits_to_f32(h)));
    for (uint16_t r : s.recurrent[s.frames.current()]) ASSERT_TRUE(std::isfinite(f16_bits_to_f32(r)));
}

// Poisons a frame: NaN, +Inf, -Inf and huge values in colour, depth and motion.
void poison(FrameData& f) {
    const float bad[4] = {kNaN, kInf, -kInf, 3e38f};
    for (uint32_t i = 0; i < 40; ++i) {
        const uint32_t p = (i * 37) % (kW * kH);
        f.color[p * 4 + i % 3] = bad[i % 4];
        f.depth[(p * 7) % (kW * kH)] = bad[(i + 1) % 4];
        f.motion[((p * 11) % (kW * kH)) * 2 + i % 2] = bad[(i + 2) % 4];
    }
}

TEST(Robustness, NanAndInfInputsGiveFiniteOutputAndHistory) {
    for (uint32_t flags : {0u, uint32_t(SWINUP_FLAG_HDR), uint32_t(SWINUP_FLAG_HDR | SWINUP_FLAG_AUTO_EXPOSURE)}) {
        swinup_context_desc cd = small_context_desc(kW, kH, kDW, kDH);
        cd.flags = flags;
        cpu::CpuBackend backend(cd, embedded_lite_weights());
        FrameData f(kW, kH, kDW, kDH);
        for (uint32_t frame = 0; frame < 3; ++frame) {
            fill_pattern(f, float(frame));
            if (frame == 1) poison(f);
            const swinup_dispatch_desc d = f.dispatch();
            std::string error;
            ASSERT_EQ(backend.dispatch(d, frame, &error), SWINUP_STATUS_OK) << error;
            expect_finite_output(f);
            expect_finite_history(backend);
            const cpu::FrameStats& stats = backend.last_frame_stats();
            if (frame == 1) {
                // 3e38 survives as a colour only when the exposure keeps it finite; NaN/Inf always count.
                EXPECT_GE(stats.color_replaced, 30u) << "flags " << flags;
                EXPECT_EQ(stats.depth_replaced, 30u) << "flags " << flags;   // 3 of every 4 are NaN/Inf
                EXPECT_EQ(stats.motion_replaced, 30u) << "flags " << flags;  // 3e38 * 1 is finite
            } else {
                EXPECT_EQ(stats.color_replaced + stats.depth_replaced + stats.motion_replaced, 0u);
            }
            EXPECT_TRUE(std::isfinite(stats.exposure));
            EXPECT_GT(stats.exposure, 0.0f);
        }
    }
}

TEST(Robustness, HugeMotionAndExposureStayFinite) {
    ContextHandle ctx(small_context_desc(kW, kH, kDW, kDH));
    FrameData f(kW, kH, kDW, kDH);
    for (uint32_t frame = 0; frame < 3; ++frame) {
        fill_pattern(f, 0.0f);
        std::fill(f.motion.begin(), f.motion.end(), frame == 1 ? 1e30f : -1e6f);
        swinup_dispatch_desc d = f.dispatch();
        d.mv_scale_x = 1e10f;  // 1e40: overflows to Inf, replaced by 0
        d.exposure_value = 3e38f;
        ASSERT_EQ(swinup_dispatch(ctx.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx.ctx);
        expect_finite_output(f);
    }
}

TEST(Robustness, BadExposureTextureValueIsReplaced) {
    ContextHandle ctx(small_context_desc(kW, kH, kDW, kDH));
    ContextHandle reference(small_context_desc(kW, kH, kDW, kDH));
    FrameData f(kW, kH, kDW, kDH), g(kW, kH, kDW, kDH);
    fill_pattern(f, 0.0f);
    fill_pattern(g, 0.0f);
    const float exposure = kNaN;
    swinup_dispatch_desc d = f.dispatch();
    d.exposure = input_resource(&exposure, SWINUP_FORMAT_R32F, 1, 1);
    ASSERT_EQ(swinup_dispatch(ctx.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx.ctx);
    const swinup_dispatch_desc e = g.dispatch();  // exposure 1
    ASSERT_EQ(swinup_dispatch(reference.ctx, &e), SWINUP_STATUS_OK);
    EXPECT_EQ(f.output, g.output);
}

TEST(Robustness, RejectedDispatchLeavesTheStateUnchanged) {
    // Context a sees frame 0, a NaN-jitter frame, a frame with a wrong output format, then frame 1;
    // context b sees frames 0 and 1 only. Frame 1 must be identical.
    ContextHandle a(small_context_desc(kW, kH, kDW, kDH));
    ContextHandle b(small_context_desc(kW, kH, kDW, kDH));
    FrameData fa(kW, kH, kDW, kDH), fb(kW, kH, kDW, kDH);
    swinup_dispatch_desc d = moving_frame(fa, 0);
    ASSERT_EQ(swinup_dispatch(a.ctx, &d), SWINUP_STATUS_OK);
    d = moving_frame(fb, 0);
    ASSERT_EQ(swinup_dispatch(b.ctx, &d), SWINUP_STATUS_OK);

    swinup_dispatch_desc bad = moving_frame(fa, 7);
    bad.jitter_x = kNaN;
    EXPECT_EQ(swinup_dispatch(a.ctx, &bad), SWINUP_STATUS_INVALID_ARGUMENT);
    bad = moving_frame(fa, 8);
    bad.output.format = SWINUP_FORMAT_RGBA8;
    EXPECT_EQ(swinup_dispatch(a.ctx, &bad), SWINUP_STATUS_INVALID_ARGUMENT);
    bad = moving_frame(fa, 9);
    bad.color.memory = SWINUP_MEMORY_CUDA;
    EXPECT_EQ(swinup_dispatch(a.ctx, &bad), SWINUP_STATUS_UNSUPPORTED);

    d = moving_frame(fa, 1);
    ASSERT_EQ(swinup_dispatch(a.ctx, &d), SWINUP_STATUS_OK);
    d = moving_frame(fb, 1);
    ASSERT_EQ(swinup_dispatch(b.ctx, &d), SWINUP_STATUS_OK);
    EXPECT_EQ(fa.output, fb.output);
}

TEST(Robustness, FailureInsideTheBackendLeavesTheStateUnchanged) {
    // A network that fails on demand: the failed frame changes no state, so the next frame equals
    // that of a backend that never saw it.
    bool fail = false;
    auto head = [&fail](const float*, int w, int h, uint64_t frame, float* out) {
        if (fail) throw std::runtime_error("injected failure");
        for (int i = 0; i < w * h; ++i)
            for (int k = 0; k < 16; ++k) out[size_t(i) * 16 + size_t(k)] = 0.1f * float(k % 5) - 0.2f + 0.01f * float(frame % 2);
    };
    const swinup_context_desc cd = small_context_desc(kW, kH, kDW, kDH);
    cpu::CpuBackend a(cd, embedded_lite_weights(), head), b(cd, embedded_lite_weights(), head);
    FrameData fa(kW, kH, kDW, kDH), fb(kW, kH, kDW, kDH);
    std::string error;
    swinup_dispatch_desc d = moving_frame(fa, 0);
    ASSERT_EQ(a.dispatch(d, 0, &error), SWINUP_STATUS_OK);
    d = moving_frame(fb, 0);
    ASSERT_EQ(b.dispatch(d, 0, &error), SWINUP_STATUS_OK);
    fail = true;
    d = moving_frame(fa, 5);
    EXPECT_EQ(a.dispatch(d, 1, &error), SWINUP_STATUS_INTERNAL);
    EXPECT_NE(error.find("injected failure"), std::string::npos);
    fail = false;
    d = moving_frame(fa, 1);
    ASSERT_EQ(a.dispatch(d, 1, &error), SWINUP_STATUS_OK);
    d = moving_frame(fb, 1);
    ASSERT_EQ(b.dispatch(d, 1, &error), SWINUP_STATUS_OK);
    EXPECT_EQ(fa.output, fb.output);
}

}  // namespace
}  // namespace swinup::test
