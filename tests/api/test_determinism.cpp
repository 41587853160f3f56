// Same inputs, same bytes: two contexts agree over several frames; the input's format and row
// pitch do not change the result; each output format encodes a constant image as computed by
// hand; a reset makes the output that of a fresh context.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "numeric/half.h"
#include "pipeline_fixture.h"

namespace swinup::test {
namespace {

constexpr uint32_t kW = 32, kH = 32, kDW = 64, kDH = 64;

TEST(Determinism, TwoContextsGiveIdenticalBytes) {
    ContextHandle a(small_context_desc(kW, kH, kDW, kDH));
    swinup_context_desc single_thread = small_context_desc(kW, kH, kDW, kDH);
    single_thread.num_threads = 1;  // and the thread count does not matter
    ContextHandle b(single_thread);
    FrameData fa(kW, kH, kDW, kDH), fb(kW, kH, kDW, kDH);
    for (uint32_t i = 0; i < 4; ++i) {
        const swinup_dispatch_desc da = moving_frame(fa, i);
        const swinup_dispatch_desc db = moving_frame(fb, i);
        ASSERT_EQ(swinup_dispatch(a.ctx, &da), SWINUP_STATUS_OK) << swinup_last_error(a.ctx);
        ASSERT_EQ(swinup_dispatch(b.ctx, &db), SWINUP_STATUS_OK) << swinup_last_error(b.ctx);
        ASSERT_EQ(fa.output, fb.output) << "frame " << i;
    }
}

TEST(Determinism, ContextsAreIndependent) {
    // Frames sent to one context do not change what another computes.
    ContextHandle busy(small_context_desc(kW, kH, kDW, kDH));
    ContextHandle quiet(small_context_desc(kW, kH, kDW, kDH));
    ContextHandle reference(small_context_desc(kW, kH, kDW, kDH));
    FrameData f(kW, kH, kDW, kDH), g(kW, kH, kDW, kDH);
    for (uint32_t i = 0; i < 3; ++i) {
        const swinup_dispatch_desc d = moving_frame(f, i + 5);
        ASSERT_EQ(swinup_dispatch(busy.ctx, &d), SWINUP_STATUS_OK);
    }
    const swinup_dispatch_desc d1 = moving_frame(f, 0);
    ASSERT_EQ(swinup_dispatch(quiet.ctx, &d1), SWINUP_STATUS_OK);
    const swinup_dispatch_desc d2 = moving_frame(g, 0);
    ASSERT_EQ(swinup_dispatch(reference.ctx, &d2), SWINUP_STATUS_OK);
    EXPECT_EQ(f.output, g.output);
}

TEST(Determinism, ContextsOnTwoThreadsAtOnce) {
    // No hidden shared state: two contexts driven from two threads at the same time give what
    // one context gives alone.
    auto run = [](std::vector<std::vector<uint8_t>>* outputs) {
        ContextHandle ctx(small_context_desc(kW, kH, kDW, kDH));
        FrameData f(kW, kH, kDW, kDH);
        for (uint32_t i = 0; i < 3; ++i) {
            const swinup_dispatch_desc d = moving_frame(f, i);
            EXPECT_EQ(swinup_dispatch(ctx.ctx, &d), SWINUP_STATUS_OK);
            outputs->push_back(f.output);
        }
    };
    std::vector<std::vector<uint8_t>> alone, first, second;
    run(&alone);
    std::thread a(run, &first), b(run, &second);
    a.join();
    b.join();
    EXPECT_EQ(first, alone);
    EXPECT_EQ(second, alone);
}

TEST(Determinism, InputFormatsAndPitchesGiveTheSameResult) {
    // Values exactly representable in f16 read the same from half and float resources.
    FrameData base(kW, kH, kDW, kDH);
    fill_pattern(base, 0.0f);
    for (float& v : base.color) v = round_to_f16(v);
    for (size_t i = 0; i < base.motion.size(); ++i) base.motion[i] = (i % 2 == 0) ? -1.25f : 0.5f;
    ContextHandle a(small_context_desc(kW, kH, kDW, kDH));
    swinup_dispatch_desc da = base.dispatch();
    da.jitter_x = 0.25f;
    ASSERT_EQ(swinup_dispatch(a.ctx, &da), SWINUP_STATUS_OK) << swinup_last_error(a.ctx);

    // RGB16F colour, RG16F motion, and every resource with a padded row pitch.
    const size_t color_pitch = kW * 6 + 10, mv_pitch = kW * 4 + 12, depth_pitch = kW * 4 + 20, out_pitch = kDW * 8 + 16;
    std::vector<uint8_t> color(color_pitch * kH, 0xee), mv(mv_pitch * kH, 0xee), depth(depth_pitch * kH, 0xee);
    std::vector<uint8_t> output(out_pitch * kDH, 0xcd);
    for (uint32_t y = 0; y < kH; ++y) {
        for (uint32_t x = 0; x < kW; ++x) {
            for (int c = 0; c < 3; ++c) {
                const uint16_t h = f32_to_f16_bits(base.color[(y * kW + x) * 4 + c]);
                std::memcpy(&color[y * color_pitch + (x * 3 + c) * 2], &h, 2);
            }
            for (int c = 0; c < 2; ++c) {
                const uint16_t h = f32_to_f16_bits(base.motion[(y * kW + x) * 2 + c]);
                std::memcpy(&mv[y * mv_pitch + (x * 2 + c) * 2], &h, 2);
            }
            std::memcpy(&depth[y * depth_pitch + x * 4], &base.depth[y * kW + x], 4);
        }
    }
    ContextHandle b(small_context_desc(kW, kH, kDW, kDH));
    swinup_dispatch_desc db = da;
    db.color = input_resource(color.data(), SWINUP_FORMAT_RGB16F, kW, kH, SWINUP_MEMORY_HOST, color_pitch);
    db.motion_vectors = input_resource(mv.data(), SWINUP_FORMAT_RG16F, kW, kH, SWINUP_MEMORY_HOST, mv_pitch);
    db.depth = input_resource(depth.data(), SWINUP_FORMAT_R32F, kW, kH, SWINUP_MEMORY_HOST, depth_pitch);
    db.output = output_resource(output.data(), SWINUP_FORMAT_RGBA16F, kDW, kDH, SWINUP_MEMORY_HOST, out_pitch);
    ASSERT_EQ(swinup_dispatch(b.ctx, &db), SWINUP_STATUS_OK) << swinup_last_error(b.ctx);
    for (uint32_t y = 0; y < kDH; ++y) {
        ASSERT_EQ(std::memcmp(&output[y * out_pitch], &base.output[y * kDW * 8], kDW * 8), 0) << "row " << y;
        for (size_t p = kDW * 8; p < out_pitch; ++p) ASSERT_EQ(output[y * out_pitch + p], 0xcd) << "pitch padding written";
    }
}

// A constant image through the whole pipeline: whatever the network's kernel, the weighted mean
// of equal samples is that sample, so the output is the input colour in the output's encoding.
std::vector<uint8_t> constant_frame_output(swinup_format format, uint32_t flags, const float rgb[3],
                                           float exposure, float pre_exposure) {
    swinup_context_desc cd = small_context_desc(kW, kH, kDW, kDH);
    cd.output_format = format;
    cd.flags = flags;
    ContextHandle ctx(cd);
    FrameData f(kW, kH, kDW, kDH, format);
    for (uint32_t i = 0; i < kW * kH; ++i) std::memcpy(&f.color[i * 4], rgb, 3 * sizeof(float));
    swinup_dispatch_desc d = f.dispatch();
    d.jitter_x = -0.3f;
    d.jitter_y = 0.2f;
    d.exposure_value = exposure;
    d.pre_exposure = pre_exposure;
    EXPECT_EQ(swinup_dispatch(ctx.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx.ctx);
    return f.output;
}

// Colours chosen away from rounding midpoints of every encoding.
const float kConstant[3] = {0.25f, 0.625f, 0.875f};

TEST(OutputFormats, Rgba16fIsLinearHalf) {
    const std::vector<uint8_t> out = constant_frame_output(SWINUP_FORMAT_RGBA16F, 0, kConstant, 1.0f, 1.0f);
    const uint16_t expected[4] = {0x3400 /* 0.25 */, 0x3900 /* 0.625 */, 0x3b00 /* 0.875 */, 0x3c00 /* 1 */};
    for (uint32_t p = 0; p < kDW * kDH; ++p) ASSERT_EQ(std::memcmp(&out[p * 8], expected, 8), 0) << "pixel " << p;
}

TEST(OutputFormats, Rgba16fIsInTheInputsUnits) {
    // HDR colour 6 with exposure 0.5 and pre-exposure 2 stages as 1.5; the output divides by the
    // exposure and multiplies by the pre-exposure again: 6.
    const float hdr[3] = {6.0f, 0.5f, 40.0f};
    const std::vector<uint8_t> out = constant_frame_output(SWINUP_FORMAT_RGBA16F, SWINUP_FLAG_HDR, hdr, 0.5f, 2.0f);
    for (uint32_t p = 0; p < kDW * kDH; ++p) {
        for (int c = 0; c < 3; ++c) {
            uint16_t h;
            std::memcpy(&h, &out[p * 8 + size_t(c) * 2], 2);
            ASSERT_EQ(h, f32_to_f16_bits(hdr[c])) << "pixel " << p << " channel " << c;
        }
    }
}

TEST(OutputFormats, R10G10B10A2IsUnormWithRInTheLowBits) {
    const std::vector<uint8_t> out = constant_frame_output(SWINUP_FORMAT_R10G10B10A2, 0, kConstant, 1.0f, 1.0f);
    // 0.25 * 1023 = 255.75 -> 256, 0.625 * 1023 = 639.375 -> 639, 0.875 * 1023 = 895.125 -> 895.
    const uint32_t expected = 256u | (639u << 10) | (895u << 20) | (3u << 30);
    for (uint32_t p = 0; p < kDW * kDH; ++p) {
        uint32_t v;
        std::memcpy(&v, &out[p * 4], 4);
        ASSERT_EQ(v, expected) << "pixel " << p;
    }
}

TEST(OutputFormats, Rgba8IsUnormRFirst) {
    const std::vector<uint8_t> out = constant_frame_output(SWINUP_FORMAT_RGBA8, 0, kConstant, 1.0f, 1.0f);
    // 0.25 * 255 = 63.75 -> 64, 0.625 * 255 = 159.375 -> 159, 0.875 * 255 = 223.125 -> 223.
    const uint8_t expected[4] = {64, 159, 223, 255};
    for (uint32_t p = 0; p < kDW * kDH; ++p) ASSERT_EQ(std::memcmp(&out[p * 4], expected, 4), 0) << "pixel " << p;
}

TEST(OutputFormats, UnormClampsHdrValues) {
    const float hdr[3] = {3.0f, 0.0f, 1.5f};
    const std::vector<uint8_t> out = constant_frame_output(SWINUP_FORMAT_RGBA8, SWINUP_FLAG_HDR, hdr, 1.0f, 1.0f);
    const uint8_t expected[4] = {255, 0, 255, 255};
    for (uint32_t p = 0; p < kDW * kDH; ++p) ASSERT_EQ(std::memcmp(&out[p * 4], expected, 4), 0) << "pixel " << p;
}

TEST(Reset, DropsTheHistory) {
    // A context that saw two frames and then a reset produces what a fresh context produces for
    // the same frame.
    ContextHandle used(small_context_desc(kW, kH, kDW, kDH));
    ContextHandle fresh(small_context_desc(kW, kH, kDW, kDH));
    FrameData f(kW, kH, kDW, kDH), g(kW, kH, kDW, kDH);
    for (uint32_t i = 0; i < 2; ++i) {
        const swinup_dispatch_desc d = moving_frame(f, i);
        ASSERT_EQ(swinup_dispatch(used.ctx, &d), SWINUP_STATUS_OK);
    }
    swinup_dispatch_desc cut = moving_frame(f, 9);
    cut.reset = 1;
    ASSERT_EQ(swinup_dispatch(used.ctx, &cut), SWINUP_STATUS_OK);
    swinup_dispatch_desc first = moving_frame(g, 9);
    ASSERT_EQ(swinup_dispatch(fresh.ctx, &first), SWINUP_STATUS_OK);
    EXPECT_EQ(f.output, g.output);
    // Without the reset the history would have changed the output.
    ContextHandle kept(small_context_desc(kW, kH, kDW, kDH));
    FrameData h(kW, kH, kDW, kDH);
    for (uint32_t i : {0u, 1u, 9u}) {
        const swinup_dispatch_desc d = moving_frame(h, i);
        ASSERT_EQ(swinup_dispatch(kept.ctx, &d), SWINUP_STATUS_OK);
    }
    EXPECT_NE(h.output, g.output);
}

// swinup.h's reset contract: after any number of frames, odd or even, the frame with reset and the
// frames after it are byte for byte those of a fresh context given the same descriptors. (The
// window-shift parity used to follow the frames since creation, so after an odd number of frames
// the reset frame was evaluated with the other parity than a fresh context's first frame.)
TEST(Reset, GivesTheFramesOfAFreshContextAfterAnyNumberOfFrames) {
    constexpr uint32_t kCut = 9, kAfter = 3;
    for (uint32_t before = 1; before <= 4; ++before) {
        ContextHandle used(small_context_desc(kW, kH, kDW, kDH));
        ContextHandle fresh(small_context_desc(kW, kH, kDW, kDH));
        FrameData f(kW, kH, kDW, kDH), g(kW, kH, kDW, kDH);
        for (uint32_t i = 0; i < before; ++i) {
            const swinup_dispatch_desc d = moving_frame(f, i);
            ASSERT_EQ(swinup_dispatch(used.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(used.ctx);
        }
        for (uint32_t k = 0; k < kAfter; ++k) {
            swinup_dispatch_desc a = moving_frame(f, kCut + k);
            swinup_dispatch_desc b = moving_frame(g, kCut + k);
            a.reset = b.reset = k == 0 ? 1 : 0;
            ASSERT_EQ(swinup_dispatch(used.ctx, &a), SWINUP_STATUS_OK) << swinup_last_error(used.ctx);
            ASSERT_EQ(swinup_dispatch(fresh.ctx, &b), SWINUP_STATUS_OK) << swinup_last_error(fresh.ctx);
            EXPECT_TRUE(f.output == g.output) << before << " frames before the reset: frame " << k << " after it";
        }
    }
}

// A failed dispatch with reset resets nothing: the next frame still continues the history.
TEST(Reset, AFailedResetDispatchChangesNothing) {
    ContextHandle a(small_context_desc(kW, kH, kDW, kDH)), b(small_context_desc(kW, kH, kDW, kDH));
    FrameData f(kW, kH, kDW, kDH), g(kW, kH, kDW, kDH);
    for (uint32_t i = 0; i < 3; ++i) {
        const swinup_dispatch_desc da = moving_frame(f, i);
        const swinup_dispatch_desc db = moving_frame(g, i);
        ASSERT_EQ(swinup_dispatch(a.ctx, &da), SWINUP_STATUS_OK);
        ASSERT_EQ(swinup_dispatch(b.ctx, &db), SWINUP_STATUS_OK);
    }
    swinup_dispatch_desc bad = moving_frame(f, 3);
    bad.reset = 1;
    bad.jitter_x = 2.0f;  // out of range: rejected before anything runs
    ASSERT_EQ(swinup_dispatch(a.ctx, &bad), SWINUP_STATUS_INVALID_ARGUMENT);
    const swinup_dispatch_desc da = moving_frame(f, 3);
    const swinup_dispatch_desc db = moving_frame(g, 3);
    ASSERT_EQ(swinup_dispatch(a.ctx, &da), SWINUP_STATUS_OK);
    ASSERT_EQ(swinup_dispatch(b.ctx, &db), SWINUP_STATUS_OK);
    EXPECT_TRUE(f.output == g.output);
}

TEST(DynamicResolution, SmallerRenderSizesWork) {
    ContextHandle ctx(small_context_desc(kW, kH, kDW, kDH));
    const uint32_t sizes[][2] = {{32, 32}, {24, 28}, {22, 22}, {32, 32}};
    for (const auto& s : sizes) {
        FrameData f(s[0], s[1], kDW, kDH);
        fill_pattern(f, 0.0f);
        const swinup_dispatch_desc d = f.dispatch();
        ASSERT_EQ(swinup_dispatch(ctx.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx.ctx);
        for (uint32_t p = 0; p < kDW * kDH * 4; ++p) {
            uint16_t v;
            std::memcpy(&v, &f.output[p * 2], 2);
            ASSERT_TRUE(std::isfinite(f16_bits_to_f32(v)));
        }
    }
}

// ---- input conventions: equivalent descriptions of one frame give identical bytes ----------------

// Runs `frames` frames on a context with `flags`; `prepare(frame, i, desc)` fills the inputs.
template <class Prepare>
std::vector<std::vector<uint8_t>> run_frames(uint32_t flags, bool mv_display, int frames, Prepare prepare) {
    swinup_context_desc cd = small_context_desc(kW, kH, kDW, kDH);
    cd.flags = flags;
    ContextHandle ctx(cd);
    FrameData f(kW, kH, kDW, kDH, SWINUP_FORMAT_RGBA16F, mv_display);
    std::vector<std::vector<uint8_t>> outputs;
    for (int i = 0; i < frames; ++i) {
        fill_pattern(f, float(i));
        swinup_dispatch_desc d = f.dispatch(mv_display);
        d.jitter_x = (i % 2 == 0) ? 0.25f : -0.125f;  // exact binary fractions
        d.jitter_y = (i % 2 == 0) ? -0.375f : 0.0625f;
        prepare(f, i, d);
        EXPECT_EQ(swinup_dispatch(ctx.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx.ctx);
        outputs.push_back(f.output);
    }
    return outputs;
}

TEST(Conventions, DisplayResolutionMotionVectorsMatchRenderResolution) {
    // A uniform motion of (-1, 0.5) render pixels given at render resolution, and as (-2, 1)
    // display pixels at display resolution (s = 2): the same staged motion, the same frames.
    const auto render_res = run_frames(0, false, 3, [](FrameData& f, int, swinup_dispatch_desc&) {
        for (size_t i = 0; i < f.motion.size(); i += 2) { f.motion[i] = -1.0f; f.motion[i + 1] = 0.5f; }
    });
    const auto display_res = run_frames(SWINUP_FLAG_MV_DISPLAY_RES, true, 3, [](FrameData& f, int, swinup_dispatch_desc&) {
        for (size_t i = 0; i < f.motion.size(); i += 2) { f.motion[i] = -2.0f; f.motion[i + 1] = 1.0f; }
    });
    EXPECT_EQ(render_res, display_res);
}

TEST(Conventions, JitteredMotionVectorsAreCancelled) {
    // True motion (-1, 0) render pixels. Vectors measured between jittered images carry
    // jitter - jitter_prev in addition; the flag removes it again.
    const auto plain = run_frames(0, false, 3, [](FrameData& f, int, swinup_dispatch_desc&) {
        for (size_t i = 0; i < f.motion.size(); i += 2) { f.motion[i] = -1.0f; f.motion[i + 1] = 0.0f; }
    });
    float prev_x = 0.0f, prev_y = 0.0f;
    const auto jittered = run_frames(SWINUP_FLAG_MV_JITTERED, false, 3, [&](FrameData& f, int i, swinup_dispatch_desc& d) {
        const float extra_x = i == 0 ? 0.0f : d.jitter_x - prev_x, extra_y = i == 0 ? 0.0f : d.jitter_y - prev_y;
        for (size_t k = 0; k < f.motion.size(); k += 2) { f.motion[k] = -1.0f + extra_x; f.motion[k + 1] = extra_y; }
        prev_x = d.jitter_x;
        prev_y = d.jitter_y;
    });
    EXPECT_EQ(plain, jittered);
    // Without the flag those vectors would change the result.
    prev_x = prev_y = 0.0f;
    const auto uncancelled = run_frames(0, false, 3, [&](FrameData& f, int i, swinup_dispatch_desc& d) {
        const float extra_x = i == 0 ? 0.0f : d.jitter_x - prev_x, extra_y = i == 0 ? 0.0f : d.jitter_y - prev_y;
        for (size_t k = 0; k < f.motion.size(); k += 2) { f.motion[k] = -1.0f + extra_x; f.motion[k + 1] = extra_y; }
        prev_x = d.jitter_x;
        prev_y = d.jitter_y;
    });
    EXPECT_NE(plain, uncancelled);
}

TEST(Conventions, InvertedDepthMatchesNormalDepth) {
    const auto normal = run_frames(0, false, 2, [](FrameData& f, int, swinup_dispatch_desc&) {
        for (size_t i = 0; i < f.depth.size(); ++i) f.depth[i] = 0.125f * float(i % 7);
    });
    const auto inverted = run_frames(SWINUP_FLAG_DEPTH_INVERTED, false, 2, [](FrameData& f, int, swinup_dispatch_desc&) {
        for (size_t i = 0; i < f.depth.size(); ++i) f.depth[i] = 1.0f - 0.125f * float(i % 7);  // exact
    });
    EXPECT_EQ(normal, inverted);
}

TEST(Conventions, MotionVectorScale) {
    const auto pixels = run_frames(0, false, 2, [](FrameData& f, int, swinup_dispatch_desc&) {
        for (size_t i = 0; i < f.motion.size(); i += 2) { f.motion[i] = -1.5f; f.motion[i + 1] = 0.75f; }
    });
    // Vectors in UV units (fractions of the render size) with mv_scale = the render size.
    const auto uv = run_frames(0, false, 2, [](FrameData& f, int, swinup_dispatch_desc& d) {
        for (size_t i = 0; i < f.motion.size(); i += 2) { f.motion[i] = -1.5f / 32.0f; f.motion[i + 1] = 0.75f / 32.0f; }
        d.mv_scale_x = 32.0f;
        d.mv_scale_y = 32.0f;
    });
    EXPECT_EQ(pixels, uv);
}

}  // namespace
}  // namespace swinup::test
