// What the masks do in the output pass (src/frame/output_pixel.h, docs/masks.md), per display
// pixel against values computed here: the reactive mask r raises the current frame's share of the
// displayed colour to share + r (1 - share), so r = 1 displays the current frame's reconstruction
// wherever history exists, and lowers its share of the colour kept as history to share (1 - r), so
// r = 1 keeps the reprojected previous history;
// the transparency & composition mask t scales the still-pixel shift by (1 - t); masks of zero
// give the same bits as no masks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cpu/output_pass.h"
#include "frame/mask_pixel.h"
#include "frame/output_pixel.h"
#include "model/model_spec.h"
#include "numeric/exact_math.h"
#include "numeric/half.h"

namespace swinup::test {
namespace {

// A 4x4 render frame upscaled 1.5x, with history everywhere and a head whose history weight is 1
// (logit 40): without a mask the output is the history.
struct Scene {
    static constexpr int kW = 4, kH = 4, kDW = 6, kDH = 6;
    std::vector<float> tc = std::vector<float>(kW * kH * 3);
    std::vector<float> motion = std::vector<float>(kW * kH * 2, 0.0f);
    std::vector<float> head = std::vector<float>(kW * kH * kHeadOutputs, 0.0f);
    std::vector<uint16_t> history = std::vector<uint16_t>(kDW * kDH * 4, 0);
    std::vector<float> masks = std::vector<float>(kW * kH * kMasks, 0.0f);
    OutputCurrent cur;
    OutputPrevious prev;

    explicit Scene(float alpha_logit) {
        for (int i = 0; i < kW * kH; ++i) {
            for (int c = 0; c < 3; ++c) tc[i * 3 + c] = 0.1f * float(i % 5) + 0.3f * float(c) + 0.05f * float(i / 4);
            head[i * kHeadOutputs + kHeadAlpha] = alpha_logit;
        }
        for (int i = 0; i < kDW * kDH; ++i)
            for (int c = 0; c < 3; ++c) history[i * 4 + c] = f32_to_f16_bits(3.0f);  // t = 2
        cur = {frame_geometry(kW, kH, kDW, kDH, 0.2f, -0.1f), tc.data(), motion.data(), head.data(), kW, 0.0f};
        cur.masks = masks.data();
        prev = {true, history.data()};
    }
    void set_mask(int k, float value) {
        for (int i = 0; i < kW * kH; ++i) masks[i * kMasks + k] = value;
    }
    // The output of display pixel (ox, oy) with and without history.
    void pixel(int ox, int oy, float out[3], bool history_valid = true) {
        const OutputPrevious p{history_valid, history.data()};
        output_pixel(cur, p, ox, oy, out);
    }
    // The colour kept as history at (ox, oy).
    void kept(int ox, int oy, float kept[3], bool history_valid = true) {
        const OutputPrevious p{history_valid, history.data()};
        float out[3];
        output_pixel(cur, p, ox, oy, out, kept);
    }
};

// The history blend of a network that keeps none of it (logit -40, alpha 0: share = coverage): r =
// 1 displays this frame's reconstruction but keeps the reprojected history, exactly: th + 0 * d.
TEST(MaskOutputPass, ReactiveOneKeepsThePreviousHistory) {
    Scene s(-40.0f);
    s.set_mask(kReactiveMask, 1.0f);
    for (int oy = 0; oy < Scene::kDH; ++oy) {
        for (int ox = 0; ox < Scene::kDW; ++ox) {
            float out[3], kept[3], current[3];
            s.pixel(ox, oy, out);
            s.kept(ox, oy, kept);
            s.pixel(ox, oy, current, false);
            for (int c = 0; c < 3; ++c) {
                EXPECT_EQ(kept[c], px::t_inverse(px::t_of(3.0f))) << ox << "," << oy;  // the history
                EXPECT_NEAR(out[c], current[c], 4e-6f * (1.0f + current[c])) << ox << "," << oy;
            }
            // Without history both are the current frame's reconstruction.
            float kept_reset[3];
            s.kept(ox, oy, kept_reset, false);
            EXPECT_EQ(std::memcmp(kept_reset, current, sizeof current), 0);
        }
    }
}

TEST(MaskOutputPass, ReactiveLowersTheKeptShareToItsComplement) {
    EXPECT_EQ(reactive_history_share(0.3f, 0.0f), 0.3f);
    EXPECT_EQ(reactive_history_share(0.8f, 1.0f), 0.0f);
    EXPECT_EQ(reactive_history_share(0.5f, 0.5f), 0.25f);
    EXPECT_EQ(reactive_history_share(1.0f, 0.25f), 0.75f);
    // Through a pixel: alpha 0 (share = coverage) and r = 0.25 keep a share of 0.75 * coverage of
    // the current frame in t; the display takes coverage + 0.25 (1 - coverage).
    Scene s(-40.0f);
    float out0[3], out[3], kept[3], current[3];
    s.pixel(2, 3, out0);  // no mask: th + coverage (current - th)
    s.set_mask(kReactiveMask, 0.25f);
    s.pixel(2, 3, out);
    s.kept(2, 3, kept);
    s.pixel(2, 3, current, false);
    for (int c = 0; c < 3; ++c) {
        const double tc = std::log2(1.0 + double(current[c]));
        const double coverage = (std::log2(1.0 + double(out0[c])) - 2.0) / (tc - 2.0);
        ASSERT_GT(coverage, 0.01) << c;
        const double kept_t = 2.0 + 0.75 * coverage * (tc - 2.0);
        const double out_t = 2.0 + (coverage + 0.25 * (1.0 - coverage)) * (tc - 2.0);
        EXPECT_NEAR(kept[c], std::exp2(kept_t) - 1.0, 2e-5) << c;
        EXPECT_NEAR(out[c], std::exp2(out_t) - 1.0, 2e-5) << c;
    }
}

TEST(MaskOutputPass, ReactiveOneGivesTheCurrentFrameWhereHistoryExists) {
    Scene s(40.0f);  // sigmoid(40) == 1: the network keeps the history entirely
    for (int oy = 0; oy < Scene::kDH; ++oy) {
        for (int ox = 0; ox < Scene::kDW; ++ox) {
            float kept[3], reactive[3], current[3];
            s.set_mask(kReactiveMask, 0.0f);
            s.pixel(ox, oy, kept);
            s.set_mask(kReactiveMask, 1.0f);
            s.pixel(ox, oy, reactive);
            s.pixel(ox, oy, current, false);  // the current frame's reconstruction alone
            for (int c = 0; c < 3; ++c) {
                EXPECT_NEAR(kept[c], 3.0f, 1e-5f);  // the history's value
                // th + 1 * (current - th) in t-space: equal to the current value up to the
                // rounding of that difference and sum (a few f32 ulps of t = 2).
                EXPECT_NEAR(reactive[c], current[c], 4e-6f * (1.0f + current[c])) << ox << "," << oy;
                EXPECT_GT(std::fabs(reactive[c] - kept[c]), 0.5f);
            }
        }
    }
}

TEST(MaskOutputPass, ReactiveRaisesTheShareByItsFractionOfTheRest) {
    EXPECT_EQ(reactive_share(0.3f, 0.0f), 0.3f);
    EXPECT_EQ(reactive_share(0.0f, 0.25f), 0.25f);
    EXPECT_EQ(reactive_share(0.5f, 0.5f), 0.75f);
    EXPECT_EQ(reactive_share(0.2f, 1.0f), 1.0f);
    EXPECT_EQ(reactive_share(1.0f, 0.6f), 1.0f);
    // Through a pixel: alpha 1 (share 0) and r = 0.25 blend a quarter of the current frame in t.
    Scene s(40.0f);
    s.set_mask(kReactiveMask, 0.25f);
    float out[3], current[3];
    s.pixel(2, 3, out);
    s.pixel(2, 3, current, false);
    for (int c = 0; c < 3; ++c) {
        const double t = 0.75 * 2.0 + 0.25 * std::log2(1.0 + double(current[c]));
        EXPECT_NEAR(out[c], std::exp2(t) - 1.0, 2e-5) << c;
    }
}

TEST(MaskOutputPass, TransparencyScalesTheStillShiftAway) {
    const float raw = -0.3f, shift = 0.75f;
    EXPECT_EQ(history_weight(raw, 0.0f, 0.0f, shift, 0.0f), exact::sigmoid(raw + shift));
    EXPECT_EQ(history_weight(raw, 0.0f, 0.0f, shift, 1.0f), blend_alpha(raw));
    EXPECT_EQ(history_weight(raw, 0.0f, 0.0f, shift, 0.5f), exact::sigmoid(raw + 0.375f));
    EXPECT_EQ(history_weight(raw, 0.0f, 0.0f, shift, 0.25f), exact::sigmoid(raw + 0.5625f));
    // Moving pixels have no shift to scale.
    EXPECT_EQ(history_weight(raw, 0.5f, 0.0f, shift, 0.5f), blend_alpha(raw));

    // Through a still frame: t = 1 gives exactly the frame without the shift.
    Scene s(0.0f);
    s.cur.still_history_shift = shift;
    float shifted[3], transparent[3], plain[3];
    s.pixel(4, 1, shifted);
    s.set_mask(kTransparencyMask, 1.0f);
    s.pixel(4, 1, transparent);
    s.set_mask(kTransparencyMask, 0.0f);
    s.cur.still_history_shift = 0.0f;
    s.pixel(4, 1, plain);
    EXPECT_EQ(std::memcmp(transparent, plain, sizeof plain), 0);
    EXPECT_NE(shifted[0], plain[0]);  // the shift did act without the mask
}

// Random head outputs and motion (a third still), a still-pixel shift, history on and off: a
// mask plane of zeros gives the bits of no mask plane; random masks give the same bits through the
// CPU's kernel table as through the head.
TEST(MaskOutputPass, ZeroMasksKeepTheBitsAndTheKernelTableAgrees) {
    constexpr int w = 13, h = 7, stride = 16, dw = 23, dh = 12;
    std::mt19937 rng(5);
    auto uniform = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
    std::vector<float> tc(w * h * 3), motion(w * h * 2), head(stride * h * kHeadOutputs, 0.0f);
    std::vector<float> zeros(w * h * kMasks, 0.0f), random(w * h * kMasks);
    for (float& t : tc) t = uniform(0.0f, 3.0f);
    for (float& m : motion) m = uniform(-3.0f, 3.0f);
    for (int i = 0; i < w * h; i += 3) motion[i * 2] = motion[i * 2 + 1] = 0.0f;
    for (float& m : random) m = rng() % 3 == 0 ? 0.0f : uniform(0.0f, 1.0f);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            float* o = &head[(size_t(y) * stride + x) * kHeadOutputs];
            o[kHeadSigmaMajor] = uniform(-6.0f, 4.0f);
            o[kHeadSigmaMinor] = uniform(-6.0f, 4.0f);
            o[kHeadAngle] = uniform(-20.0f, 20.0f);
            o[kHeadAlpha] = uniform(-8.0f, 8.0f);
        }
    }
    std::vector<uint16_t> history(size_t(dw) * dh * 4);
    for (uint16_t& v : history) v = f32_to_f16_bits(uniform(0.0f, 4.0f));
    int changed = 0;
    for (bool valid : {false, true}) {
        OutputCurrent cur{frame_geometry(w, h, dw, dh, 0.21f, -0.37f), tc.data(), motion.data(), head.data(),
                          stride, 0.75f};
        const OutputPrevious prev{valid, history.data()};
        for (int oy = 0; oy < dh; ++oy) {
            for (int ox = 0; ox < dw; ++ox) {
                float none[3], zero[3], masked[3], table[3];
                float none_kept[3], zero_kept[3], masked_kept[3], table_kept[3];
                cur.masks = nullptr;
                output_pixel(cur, prev, ox, oy, none, none_kept);
                EXPECT_EQ(std::memcmp(none, none_kept, sizeof none), 0) << ox << "," << oy;
                cur.masks = zeros.data();
                output_pixel(cur, prev, ox, oy, zero, zero_kept);
                EXPECT_EQ(std::memcmp(none, zero, sizeof none), 0) << ox << "," << oy;
                EXPECT_EQ(std::memcmp(none_kept, zero_kept, sizeof none), 0) << ox << "," << oy;
                cur.masks = random.data();
                output_pixel(cur, prev, ox, oy, masked, masked_kept);
                std::vector<PixelKernel> kernels(w * h);
                cpu::pixel_kernels(cur, kernels.data());
                output_pixel_with(cur, prev, ox, oy, KernelFromTable{kernels.data(), w}, table, table_kept);
                EXPECT_EQ(std::memcmp(masked, table, sizeof masked), 0) << ox << "," << oy;
                EXPECT_EQ(std::memcmp(masked_kept, table_kept, sizeof masked), 0) << ox << "," << oy;
                changed += std::memcmp(masked, none, sizeof none) != 0;
            }
        }
    }
    EXPECT_GT(changed, dw * dh / 2);  // the random masks did act on the frame with history
}

TEST(MaskStaging, ValuesAreClampedAndNonFiniteReadsAsZero) {
    bool nonfinite, out_of_range;
    EXPECT_EQ(stage_mask(0.4f, &nonfinite, &out_of_range), 0.4f);
    EXPECT_FALSE(nonfinite || out_of_range);
    EXPECT_EQ(stage_mask(1.5f, &nonfinite, &out_of_range), 1.0f);
    EXPECT_TRUE(out_of_range && !nonfinite);
    EXPECT_EQ(stage_mask(-0.5f, &nonfinite, &out_of_range), 0.0f);
    EXPECT_TRUE(out_of_range);
    for (float bad : {std::nanf(""), INFINITY, -INFINITY}) {
        EXPECT_EQ(stage_mask(bad, &nonfinite, &out_of_range), 0.0f);
        EXPECT_TRUE(nonfinite && !out_of_range);
    }
    // The network's value: e4m3 of the staged value (0.3 -> 0.3125, 0.9 -> 0.875, exact at 1/2^k).
    EXPECT_EQ(mask_network_value(0.3f), 0.3125f);
    EXPECT_EQ(mask_network_value(0.9f), 0.875f);
    EXPECT_EQ(mask_network_value(0.5f), 0.5f);
    EXPECT_EQ(mask_network_value(1.0f), 1.0f);
    // R8_UNORM is code / 255.
    const uint8_t codes[3] = {0, 51, 255};
    InputImage im;
    im.data = codes;
    im.pitch = 3;
    im.channels = 1;
    im.unorm8 = 1;
    im.width = 3;
    im.height = 1;
    EXPECT_EQ(read_mask_input(im, 0, 0), 0.0f);
    EXPECT_EQ(read_mask_input(im, 1, 0), 0.2f);
    EXPECT_EQ(read_mask_input(im, 2, 0), 1.0f);
}

}  // namespace
}  // namespace swinup::test
