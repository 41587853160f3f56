// SWINUP_FLAG_DEBUG_VIEW's frame tests, shared by the CPU backend's (tests/cpu) and the Vulkan
// backend's (tests/vulkan): the sliding plane at 32x16 -> 64x32, whose quadrants are then exactly
// render-sized (display pixel (lx, ly) of a quadrant shows render pixel (lx, ly)), so each view's
// expected value follows from the inputs alone: the depth quadrant holds 1 - depth (reverse-Z),
// the motion quadrant 0.5 - 0.75 / 8 = 0.40625 (the plane slides by -0.75 render pixels a frame),
// 0.5, 0.5, the colour quadrant the colour within the t-space round trip and f16, the weight
// quadrant values in [0, 1].
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "api/backend.h"
#include "frame/output_encoding.h"
#include "numeric/half.h"
#include "sliding_plane_frames.h"
#include "swinup/swinup.h"

namespace swinup::test {

constexpr int kDebugRenderW = 32, kDebugRenderH = 16, kDebugDisplayW = 64, kDebugDisplayH = 32, kDebugFrames = 3;

inline swinup_context_desc debug_view_context_desc(bool debug_view) {
    swinup_context_desc d = sliding_plane_context_desc(kDebugRenderW, kDebugRenderH, kDebugDisplayW, kDebugDisplayH,
                                                       SWINUP_FORMAT_RGBA16F);
    d.num_threads = 2;
    if (debug_view) d.flags |= SWINUP_FLAG_DEBUG_VIEW;
    return d;
}

// Frame f through backend.dispatch; the RGBA16F output bytes.
inline std::vector<uint8_t> debug_view_frame(Backend& backend, int f) {
    const SlidingPlaneFrame frame(kDebugRenderW, kDebugRenderH, f);
    std::vector<uint8_t> out(size_t(kDebugDisplayW) * kDebugDisplayH * 8, 0xcd);
    swinup_dispatch_desc d = frame.dispatch_desc(out.data(), SWINUP_FORMAT_RGBA16F, kDebugDisplayW, kDebugDisplayH);
    swinup_get_jitter(uint32_t(f), swinup_get_jitter_phase_count(2.0f), &d.jitter_x, &d.jitter_y);
    std::string error;
    EXPECT_EQ(backend.dispatch(d, uint64_t(f), &error), SWINUP_STATUS_OK) << error;
    return out;
}

// Channel c of display pixel (x, y) of an RGBA16F frame.
inline float debug_view_texel(const std::vector<uint8_t>& out, int x, int y, int c) {
    uint16_t h;
    std::memcpy(&h, &out[(size_t(y) * kDebugDisplayW + x) * 8 + size_t(c) * 2], 2);
    return f16_bits_to_f32(h);
}

// The four views of frame f's debug output against what the inputs say they hold.
inline void expect_debug_views(const std::vector<uint8_t>& out, int f) {
    const SlidingPlaneFrame frame(kDebugRenderW, kDebugRenderH, f);
    const int qw = kDebugDisplayW / 2, qh = kDebugDisplayH / 2;
    int weights_below_one = 0;
    for (int y = 0; y < qh; ++y) {
        for (int x = 0; x < qw; ++x) {
            const size_t n = size_t(y) * kDebugRenderW + x;
            for (int c = 0; c < 3; ++c) {  // colour: t-space round trip, then f16
                const float want = frame.color[n * 4 + c];
                ASSERT_NEAR(debug_view_texel(out, x, y, c), want, 2e-3f * want + 1e-4f) << "colour at " << x << "," << y;
            }
            const float depth = px::half_range(1.0f - frame.depth[n]);
            ASSERT_EQ(debug_view_texel(out, qw + x, y, 0), f16_bits_to_f32(f32_to_f16_bits(depth))) << x << "," << y;
            ASSERT_EQ(debug_view_texel(out, x, qh + y, 0), 0.40625f) << "motion at " << x << "," << y;
            ASSERT_EQ(debug_view_texel(out, x, qh + y, 1), 0.5f);
            ASSERT_EQ(debug_view_texel(out, x, qh + y, 2), 0.5f);
            const float weight = debug_view_texel(out, qw + x, qh + y, 0);
            ASSERT_GE(weight, 0.0f);
            ASSERT_LE(weight, 1.0f);
            weights_below_one += weight < 1.0f;
        }
    }
    EXPECT_GT(weights_below_one, 0) << "frame " << f << ": the weight view is all 1";
}

}  // namespace swinup::test
