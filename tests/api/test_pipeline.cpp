// The pipeline around the network, against independent computations: staging slot values for a
// hand-built tiny frame, the output pass's Gaussian reconstruction with alpha 0, history blending
// (weighted by the samples' density), and a static jittered scene converging.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "numeric/e4m3.h"
#include "numeric/half.h"
#include "model/model_spec.h"
#include "frame/output_pixel.h"
#include "frame/pixel_ops.h"
#include "frame/stage_pixel.h"
#include "model/weights.h"
#include "cpu/cpu_backend.h"
#include "cpu/output_pass.h"
#include "cpu/staging.h"
#include "cpu_backend_fixture.h"
#include "pipeline_fixture.h"

namespace swinup::test {
namespace {

// e4m3 of a value computed in double (the slots' encoding, applied to the independent value).
float e4m3_of(double v) { return round_to_e4m3(static_cast<float>(v)); }

// ---- staging ---------------------------------------------------------------------------------

// A 4x4 render frame upscaled 1.5x to 6x6, with a hand-chosen previous state.
struct TinyFrame {
    static constexpr int kW = 4, kH = 4, kDW = 6, kDH = 6;
    std::vector<float> color = std::vector<float>(kW * kH * 3, 0.0f);
    std::vector<float> z = std::vector<float>(kW * kH, 0.5f);
    std::vector<float> motion = std::vector<float>(kW * kH * 2, 0.0f);
    std::vector<uint16_t> history = std::vector<uint16_t>(kDW * kDH * 4, 0);
    std::vector<float> prev_z = std::vector<float>(kW * kH, 0.5f);
    std::vector<uint16_t> recurrent = std::vector<uint16_t>(kW * kH * 4, 0);
    StageCurrent cur;
    StagePrevious prev;

    TinyFrame() {
        cur = {frame_geometry(kW, kH, kDW, kDH, 0.125f, -0.375f), color.data(), z.data(), motion.data()};
        prev.valid = true;
        prev.history = history.data();
        prev.z = prev_z.data();
        prev.recurrent = recurrent.data();
        prev.width = kW;
        prev.height = kH;
    }
    void set_history(float r, float g, float b) {
        for (int i = 0; i < kDW * kDH; ++i) {
            history[i * 4 + 0] = f32_to_f16_bits(r);
            history[i * 4 + 1] = f32_to_f16_bits(g);
            history[i * 4 + 2] = f32_to_f16_bits(b);
        }
    }
    void stage(int x, int y, float slots[16], float tc[3]) {
        float mv[2];
        stage_dilated_motion(cur, x, y, mv);
        stage_slots(cur, prev, x, y, mv, slots, tc);
    }
};

TEST(Staging, ColourSlotsAreTOfTheColour) {
    TinyFrame f;
    const float c[3] = {1.0f, 3.0f, 0.5f};  // t = 1, 2, log2(1.5) = 0.585 -> e4m3 0.5625
    std::memcpy(&f.color[(1 * 4 + 2) * 3], c, sizeof c);
    float slots[16], tc[3];
    f.stage(2, 1, slots, tc);
    for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(tc[k], std::log2(1.0 + c[k]), 1e-6) << k;
        EXPECT_EQ(slots[k], e4m3_of(std::log2(1.0 + c[k]))) << k;
    }
    EXPECT_EQ(slots[2], 0.5625f);
}

TEST(Staging, PositionSlotsAreTheSampleInsideItsDisplayPixel) {
    TinyFrame f;
    for (int y = 0; y < TinyFrame::kH; ++y) {
        for (int x = 0; x < TinyFrame::kW; ++x) {
            float slots[16], tc[3];
            f.stage(x, y, slots, tc);
            const double dx = (x + 0.5 + 0.125) * 1.5, dy = (y + 0.5 - 0.375) * 1.5;
            EXPECT_EQ(slots[8], e4m3_of(dx - std::floor(dx) - 0.5)) << x << "," << y;
            EXPECT_EQ(slots[9], e4m3_of(dy - std::floor(dy) - 0.5)) << x << "," << y;
        }
    }
    float slots[16], tc[3];
    f.stage(1, 0, slots, tc);  // (1.625 * 1.5 = 2.4375, 0.125 * 1.5 = 0.1875)
    EXPECT_EQ(slots[8], -0.0625f);
    EXPECT_EQ(slots[9], -0.3125f);
}

TEST(Staging, MotionSlotsAreDilatedScaledAndClamped) {
    TinyFrame f;
    // Pixel (1, 1) moves (8, -40); its neighbour (2, 2) is nearer (larger reverse-Z) and moves (4, 2).
    f.motion[(1 * 4 + 1) * 2 + 0] = 8.0f;
    f.motion[(1 * 4 + 1) * 2 + 1] = -40.0f;
    f.motion[(2 * 4 + 2) * 2 + 0] = 4.0f;
    f.motion[(2 * 4 + 2) * 2 + 1] = 2.0f;
    float slots[16], tc[3];
    f.stage(0, 0, slots, tc);  // (1, 1) is in its 3x3 and is the only different one
    EXPECT_EQ(slots[10], 0.0f);
    f.z[1 * 4 + 1] = 0.6f;
    f.stage(0, 0, slots, tc);  // now (1, 1) is the nearest of (0, 0)'s neighbourhood
    EXPECT_EQ(slots[10], 0.25f);
    EXPECT_EQ(slots[11], -1.0f);  // -40 / 32 clamped
    f.z[2 * 4 + 2] = 0.9f;
    f.stage(1, 1, slots, tc);  // (2, 2) is nearer than (1, 1) itself
    EXPECT_EQ(slots[10], 0.125f);
    EXPECT_EQ(slots[11], 0.0625f);
    // Ties keep the first pixel in row-major order: (0,0)..(2,2) all at 0.9 but (2, 2) later.
    f.z[0] = 0.9f;
    f.motion[0] = -16.0f;
    f.stage(1, 1, slots, tc);
    EXPECT_EQ(slots[10], -0.5f);
}

TEST(Staging, HistorySlotsAndOffScreenFlag) {
    TinyFrame f;
    f.set_history(1.0f, 3.0f, 0.0f);
    float slots[16], tc[3];
    f.stage(1, 1, slots, tc);
    EXPECT_EQ(slots[3], 1.0f);  // t(1) = 1: a constant history samples to itself
    EXPECT_EQ(slots[4], 2.0f);
    EXPECT_EQ(slots[5], 0.0f);
    EXPECT_EQ(slots[7], 0.0f);
    // Moving 4 render pixels right reprojects to (1.5+0.125+4)*1.5 > 6: off screen.
    f.motion[(1 * 4 + 1) * 2 + 0] = 4.0f;
    f.z[1 * 4 + 1] = 0.9f;  // so that dilation picks this pixel's own motion
    f.stage(1, 1, slots, tc);
    EXPECT_EQ(slots[7], 1.0f);
    EXPECT_EQ(slots[3], 0.0f);
    EXPECT_EQ(slots[4], 0.0f);
    // -1.6 render pixels left: (1.625 - 1.6) * 1.5 = 0.0375 >= 0: still on screen.
    f.motion[(1 * 4 + 1) * 2 + 0] = -1.6f;
    f.stage(1, 1, slots, tc);
    EXPECT_EQ(slots[7], 0.0f);
    f.motion[(1 * 4 + 1) * 2 + 0] = -1.7f;  // (1.625 - 1.7) * 1.5 < 0
    f.stage(1, 1, slots, tc);
    EXPECT_EQ(slots[7], 1.0f);
}

TEST(Staging, HistorySlotsHoldTheDifferenceToTheCurrentColour) {
    TinyFrame f;
    f.set_history(1.0f, 3.0f, 0.5f);  // t = 1, 2, log2(1.5)
    const int i = (1 * 4 + 1) * 3;
    f.color[i + 0] = 1.0f;  // agrees with the history
    f.color[i + 1] = 2.5f;  // t = log2(3.5) = 1.807..., 0.19 below the history
    f.color[i + 2] = 0.0f;
    float slots[16], tc[3];
    f.stage(1, 1, slots, tc);
    EXPECT_EQ(slots[3], 0.0f);
    // Rounded after the subtraction: the 0.19 survives with e4m3's relative precision, where the
    // two absolute values round to 2 and 1.75 (a difference of 0.25).
    EXPECT_EQ(slots[4], e4m3_of(2.0f - tc[1]));
    EXPECT_NEAR(slots[4], 2.0 - std::log2(3.5), 0.01);
    EXPECT_EQ(slots[1], 1.75f);
    EXPECT_EQ(slots[5], e4m3_of(std::log2(1.5f)));  // current colour 0: the history's own t
    EXPECT_EQ(slots[7], 0.0f);
    // Without history the slots are 0 whatever the colour (slot 7 says so).
    f.prev.valid = false;
    f.stage(1, 1, slots, tc);
    EXPECT_EQ(slots[3], 0.0f);
    EXPECT_EQ(slots[4], 0.0f);
    EXPECT_EQ(slots[5], 0.0f);
    EXPECT_EQ(slots[7], 1.0f);
}

TEST(Staging, HistoryIsCatmullRomClampedToTheCentralTaps) {
    TinyFrame f;
    f.set_history(0.0f, 0.0f, 0.0f);
    // A single bright display pixel at (2, 1): the sample of render pixel (1, 0) lands at
    // (2.4375, 0.1875); its central taps are display pixels 1..2 x 0..1 (position - 0.5 floored).
    const int bright = (1 * 6 + 2) * 4;
    f.history[bright] = f32_to_f16_bits(1.0f);
    float slots[16], tc[3];
    f.stage(1, 0, slots, tc);
    // Independent Catmull-Rom: fraction x = 1.9375 - 1 = 0.9375 -> weight of tap +1 (pixel 2);
    // y = -0.3125 -> floor -1, fraction 0.6875 -> weight of tap +2 (pixel 1), clamped rows.
    auto cr = [](double t, int k) {
        const double t2 = t * t, t3 = t2 * t;
        const double w[4] = {-0.5 * t + t2 - 0.5 * t3, 1 - 2.5 * t2 + 1.5 * t3, 0.5 * t + 2 * t2 - 1.5 * t3,
                             -0.5 * t2 + 0.5 * t3};
        return w[k];
    };
    const double wx = cr(0.9375, 2);
    // Rows -2, -1, 0, 1 clamp to 0, 0, 0, 1: row 1 is tap 3 only.
    const double wy = cr(0.6875, 3);
    double value = wx * wy;  // may be negative: then the clamp to the central taps' min (0) applies
    value = std::min(std::max(value, 0.0), 1.0);
    EXPECT_NEAR(f16_bits_to_f32(f.history[bright]), 1.0f, 0.0f);
    EXPECT_EQ(slots[3], e4m3_of(std::log2(1.0 + value)));
}

TEST(Staging, DisocclusionCueAndRecurrentFeatures) {
    TinyFrame f;
    f.z[1 * 4 + 1] = 0.4f;
    f.prev_z[1 * 4 + 1] = 0.8f;  // the surface moved away: (0.8 - 0.4) / 0.8
    f.z[2 * 4 + 2] = 0.6f;
    f.prev_z[2 * 4 + 2] = 0.2f;  // something nearer appeared: (0.2 - 0.6) / 0.6
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x)
            for (int k = 0; k < 4; ++k)
                f.recurrent[(y * 4 + x) * 4 + k] = f32_to_f16_bits(0.125f * float(x) - 0.25f * float(k) + 0.0625f * float(y));
    float slots[16], tc[3];
    f.stage(1, 1, slots, tc);
    EXPECT_EQ(slots[6], e4m3_of((0.8 - 0.4) / 0.8));
    for (int k = 0; k < 4; ++k) EXPECT_EQ(slots[12 + k], e4m3_of(0.125 * 1 - 0.25 * k + 0.0625 * 1)) << k;
    f.stage(2, 2, slots, tc);
    EXPECT_EQ(slots[6], e4m3_of(std::max((0.2 - 0.6) / 0.6, -1.0)));
    // Half a pixel of motion to the right: the features are the mean of x = 2 and x = 3.
    f.motion[(2 * 4 + 2) * 2 + 0] = 0.5f;
    f.stage(2, 2, slots, tc);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(slots[12 + k], e4m3_of(0.125 * 2.5 - 0.25 * k + 0.0625 * 2)) << k;
    // Off the previous grid: cue and features are 0.
    f.motion[(2 * 4 + 2) * 2 + 0] = 2.0f;  // 2.5 + 2 = 4.5 >= 4
    f.stage(2, 2, slots, tc);
    EXPECT_EQ(slots[6], 0.0f);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(slots[12 + k], 0.0f);
}

TEST(Staging, NoHistorySetsTheFlagAndZeroesTemporalSlots) {
    TinyFrame f;
    f.set_history(1.0f, 1.0f, 1.0f);
    f.prev_z.assign(f.prev_z.size(), 0.9f);
    f.recurrent.assign(f.recurrent.size(), f32_to_f16_bits(0.5f));
    f.prev.valid = false;
    for (int y = 0; y < 4; ++y) {
        for (int x = 0; x < 4; ++x) {
            float slots[16], tc[3];
            f.stage(x, y, slots, tc);
            EXPECT_EQ(slots[7], 1.0f);
            for (int k : {3, 4, 5, 6, 12, 13, 14, 15}) EXPECT_EQ(slots[k], 0.0f) << k;
        }
    }
}

TEST(Staging, PaddingRepeatsTheEdgePixels) {
    TinyFrame f;
    for (int i = 0; i < 16; ++i) {
        f.color[i * 3] = 0.0625f * float(i);
        f.motion[i * 2 + 1] = float(i) - 8.0f;
        f.z[i] = 0.01f * float(i);
    }
    std::vector<float> staged(32 * 32 * 16, -1.0f), tc(16 * 3), dilated(16 * 2);
    cpu::stage_frame(f.cur, f.prev, {dilated.data(), tc.data(), staged.data(), 32, 32});
    auto slots_at = [&](int x, int y) { return &staged[(size_t(y) * 32 + x) * 16]; };
    for (int y = 0; y < 32; ++y) {
        for (int x = 0; x < 32; ++x) {
            const float* expected = slots_at(std::min(x, 3), std::min(y, 3));
            ASSERT_EQ(std::memcmp(slots_at(x, y), expected, 16 * sizeof(float)), 0) << x << "," << y;
        }
    }
    float slots[16], t[3];
    f.stage(3, 2, slots, t);
    EXPECT_EQ(std::memcmp(slots_at(3, 2), slots, sizeof slots), 0);
}

// ---- output pass -----------------------------------------------------------------------------

struct TinyOutput {
    static constexpr int kW = 4, kH = 4, kDW = 6, kDH = 6, kStride = 32;
    std::vector<float> tc = std::vector<float>(kW * kH * 3);
    std::vector<float> motion = std::vector<float>(kW * kH * 2, 0.0f);
    std::vector<float> head = std::vector<float>(kStride * 32 * 16, 0.0f);
    std::vector<uint16_t> history = std::vector<uint16_t>(kDW * kDH * 4, 0);
    OutputCurrent cur;
    OutputPrevious prev;

    TinyOutput() {
        for (int i = 0; i < kW * kH; ++i)
            for (int c = 0; c < 3; ++c) tc[i * 3 + c] = 0.1f * float(i % 5) + 0.3f * float(c) + 0.05f * float(i / 4);
        cur = {frame_geometry(kW, kH, kDW, kDH, 0.2f, -0.1f), tc.data(), motion.data(), head.data(), kStride, 0.0f};
        prev.history = history.data();
    }
    void set_kernel(float log_major, float log_minor, float angle, float alpha_logit) {
        for (int i = 0; i < kStride * 32; ++i) {
            head[i * 16 + 4] = log_major;
            head[i * 16 + 5] = log_minor;
            head[i * 16 + 6] = angle;
            head[i * 16 + 7] = alpha_logit;
        }
    }
};

// The Gaussian reconstruction of model-spec.md computed in double with std:: functions; returns
// the sum of the kernel's weights (the blend's sample density).
double reference_current(const TinyOutput& o, int ox, int oy, double sigma_major, double sigma_minor,
                         double theta, double out[3]) {
    const double rx = (ox + 0.5) / 1.5 - 0.5, ry = (oy + 0.5) / 1.5 - 0.5;
    const int nx = std::clamp(int(std::floor(rx + 0.5)), 0, 3), ny = std::clamp(int(std::floor(ry + 0.5)), 0, 3);
    double sum[3] = {0, 0, 0}, wsum = 0;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const int qx = std::clamp(nx + dx, 0, 3), qy = std::clamp(ny + dy, 0, 3);
            const double ddx = qx + 0.5 + 0.2 - (rx + 0.5), ddy = qy + 0.5 - 0.1 - (ry + 0.5);
            const double u = std::cos(theta) * ddx + std::sin(theta) * ddy;
            const double v = -std::sin(theta) * ddx + std::cos(theta) * ddy;
            const double w = std::exp(-0.5 * ((u / sigma_major) * (u / sigma_major) + (v / sigma_minor) * (v / sigma_minor)));
            for (int c = 0; c < 3; ++c) sum[c] += w * o.tc[(qy * 4 + qx) * 3 + c];
            wsum += w;
        }
    }
    for (int c = 0; c < 3; ++c) out[c] = std::exp2(sum[c] / wsum) - 1.0;
    return wsum;
}

TEST(OutputPass, AlphaZeroIsTheGaussianWeightedCurrentFrame) {
    struct Kernel {
        float log_major, log_minor, angle;
    } kernels[] = {{0.0f, 0.0f, 0.0f}, {1.0f, -1.0f, 0.7f}, {-0.5f, 0.5f, -2.5f}, {5.0f, -9.0f, 10.0f}};
    for (const Kernel& k : kernels) {
        TinyOutput o;
        o.set_kernel(k.log_major, k.log_minor, k.angle, 3.0f);
        o.prev.valid = false;  // alpha is forced to 0 without history
        const double sigma_major = std::exp2(std::clamp(double(k.log_major), -4.0, 2.0));
        const double sigma_minor = std::exp2(std::clamp(double(k.log_minor), -4.0, 2.0));
        for (int oy = 0; oy < 6; ++oy) {
            for (int ox = 0; ox < 6; ++ox) {
                float out[3];
                output_pixel(o.cur, o.prev, ox, oy, out);
                double expected[3];
                reference_current(o, ox, oy, sigma_major, sigma_minor, k.angle, expected);
                for (int c = 0; c < 3; ++c)
                    EXPECT_NEAR(out[c], expected[c], 2e-6 * (1.0 + expected[c])) << ox << "," << oy << " c" << c;
            }
        }
    }
}

TEST(OutputPass, TinyKernelFallsBackToTheNearestSample) {
    TinyOutput o;
    // sigma 2^-4 and samples >= ~0.3 px away: every weight underflows to 0.
    o.cur.jitter_x = 0.5f;
    o.cur.jitter_y = 0.5f;
    o.set_kernel(-4.0f, -4.0f, 0.0f, 0.0f);
    float out[3];
    output_pixel(o.cur, o.prev, 2, 2, out);  // r = 2.5/1.5 - 0.5 = 1.1667 -> n = (1, 1)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(out[c], std::exp2(double(o.tc[(1 * 4 + 1) * 3 + c])) - 1.0, 1e-6);
}

TEST(OutputPass, AlphaOneKeepsTheHistoryAndOffScreenDropsIt) {
    TinyOutput o;
    o.set_kernel(0.0f, 0.0f, 0.0f, 40.0f);  // sigmoid(40) == 1.0f
    o.prev.valid = true;
    for (int i = 0; i < 36; ++i) {
        o.history[i * 4 + 0] = f32_to_f16_bits(0.75f);
        o.history[i * 4 + 1] = f32_to_f16_bits(2.0f);
        o.history[i * 4 + 2] = f32_to_f16_bits(0.0f);
    }
    float out[3];
    output_pixel(o.cur, o.prev, 3, 3, out);
    EXPECT_NEAR(out[0], 0.75f, 1e-6);
    EXPECT_NEAR(out[1], 2.0f, 2e-6);
    EXPECT_NEAR(out[2], 0.0f, 1e-6);
    // Motion taking o + mv * s off screen forces alpha to 0: the current frame alone.
    for (int i = 0; i < 16; ++i) o.motion[i * 2] = 10.0f;
    output_pixel(o.cur, o.prev, 3, 3, out);
    double expected[3];
    reference_current(o, 3, 3, 1.0, 1.0, 0.0, expected);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(out[c], expected[c], 2e-6 * (1.0 + expected[c]));
}

TEST(OutputPass, BlendIsInTSpace) {
    TinyOutput o;
    o.set_kernel(0.0f, 0.0f, 0.0f, 0.0f);  // alpha = sigmoid(0) = 0.5
    o.prev.valid = true;
    for (int i = 0; i < 36; ++i)
        for (int c = 0; c < 3; ++c) o.history[i * 4 + c] = f32_to_f16_bits(3.0f);  // t = 2
    float out[3];
    output_pixel(o.cur, o.prev, 1, 4, out);
    double current[3];
    const double density = reference_current(o, 1, 4, 1.0, 1.0, 0.0, current);
    ASSERT_GT(density, 1.0);  // sigma 1: the 9 samples' weights sum past 1, the full 1 - alpha
    for (int c = 0; c < 3; ++c) {
        const double t_blend = 0.5 * 2.0 + 0.5 * std::log2(1.0 + current[c]);
        EXPECT_NEAR(out[c], std::exp2(t_blend) - 1.0, 4e-6) << c;
    }
}

TEST(OutputPass, PixelsTheSamplesMissKeepTheirHistory) {
    TinyOutput o;
    o.prev.valid = true;
    for (int i = 0; i < 36; ++i)
        for (int c = 0; c < 3; ++c) o.history[i * 4 + c] = f32_to_f16_bits(3.0f);  // t = 2
    // alpha = sigmoid(-40) = 0: without the density the current frame would replace the history.
    // A narrow kernel (sigma 2^-2 render pixels): display pixel (2, 2) sits at render (1.667, 1.667)
    // and its nearest sample, render pixel (1, 1)'s, at (1.7, 1.4): 0.27 away, weight 0.56; the
    // other samples are 0.73 or more away (weights 0.013 and less): a density of about 0.58.
    o.set_kernel(-2.0f, -2.0f, 0.0f, -40.0f);
    float out[3];
    output_pixel(o.cur, o.prev, 2, 2, out);
    double current[3];
    const double density = reference_current(o, 2, 2, 0.25, 0.25, 0.0, current);
    ASSERT_GT(density, 0.5);
    ASSERT_LT(density, 0.65);
    for (int c = 0; c < 3; ++c) {
        const double t_blend = 2.0 + density * (std::log2(1.0 + current[c]) - 2.0);
        EXPECT_NEAR(out[c], std::exp2(t_blend) - 1.0, 1e-5) << c;
        EXPECT_GT(std::fabs(out[c] - current[c]), 0.1) << c;  // the history kept a real share
    }
    // The same kernel, history off: the current frame alone, whatever the density.
    o.prev.valid = false;
    output_pixel(o.cur, o.prev, 2, 2, out);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(out[c], current[c], 2e-6 * (1.0 + current[c])) << c;
}

// Lanczos-3 of the definition, in double: sinc(d) sinc(d / 3), normalised over the six taps.
void reference_lanczos3(double f, double w[6]) {
    auto sinc = [](double x) { return x == 0.0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x); };
    double sum = 0.0;
    for (int k = 0; k < 6; ++k) sum += w[k] = sinc(f - (k - 2)) * sinc((f - (k - 2)) / 3.0);
    for (int k = 0; k < 6; ++k) w[k] /= sum;
}

TEST(PixelOps, Lanczos3WeightsMatchTheDefinition) {
    float w[6];
    px::lanczos3_weights(0.0f, w);
    for (int k = 0; k < 6; ++k) EXPECT_EQ(w[k], k == 2 ? 1.0f : 0.0f) << k;
    for (double f : {1e-6, 1e-4, 0.013, 0.25, 0.5, 0.61, 0.75, 0.999, 0.99999994}) {
        px::lanczos3_weights(float(f), w);
        double expected[6];
        reference_lanczos3(double(float(f)), expected);
        for (int k = 0; k < 6; ++k) EXPECT_NEAR(w[k], expected[k], 2e-6) << f << " tap " << k;
    }
    // Mirror symmetry: the weights of f are those of 1 - f in reverse.
    float m[6];
    px::lanczos3_weights(0.3f, w);
    px::lanczos3_weights(0.7f, m);
    for (int k = 0; k < 6; ++k) EXPECT_NEAR(w[k], m[5 - k], 1e-6) << k;
}

TEST(OutputPass, HistoryIsLanczos3ClampedToTheCentralTaps) {
    TinyOutput o;
    o.set_kernel(0.0f, 0.0f, 0.0f, 40.0f);  // sigmoid(40) == 1.0f: the output is the history sample
    o.prev.valid = true;
    for (int i = 0; i < 36; ++i)
        for (int c = 0; c < 3; ++c) o.history[i * 4 + c] = f32_to_f16_bits(float((i * 7 + c * 3) % 11) / 8.0f);
    for (int i = 0; i < 16; ++i) {
        o.motion[i * 2 + 0] = 0.3f;  // display offset +0.45, -0.3: fractional in both axes
        o.motion[i * 2 + 1] = -0.2f;
    }
    int clamped = 0, inside = 0;
    for (int oy = 0; oy < 6; ++oy) {
        for (int ox = 0; ox < 6; ++ox) {
            const double hx = ox + 0.5 + 0.3f * 1.5f, hy = oy + 0.5 - 0.2f * 1.5f;
            if (hy < 0.0) continue;  // off screen: no history (another test)
            const int ix = int(std::floor(hx - 0.5)), iy = int(std::floor(hy - 0.5));
            double wx[6], wy[6];
            reference_lanczos3(hx - 0.5 - ix, wx);
            reference_lanczos3(hy - 0.5 - iy, wy);
            float out[3];
            output_pixel(o.cur, o.prev, ox, oy, out);
            for (int c = 0; c < 3; ++c) {
                double sum = 0.0, lo = 1e30, hi = -1e30;
                for (int j = 0; j < 6; ++j) {
                    for (int i = 0; i < 6; ++i) {
                        const int x = std::clamp(ix - 2 + i, 0, 5), y = std::clamp(iy - 2 + j, 0, 5);
                        const double tap = f16_bits_to_f32(o.history[(y * 6 + x) * 4 + c]);
                        sum += wx[i] * wy[j] * tap;
                        if ((i == 2 || i == 3) && (j == 2 || j == 3)) lo = std::min(lo, tap), hi = std::max(hi, tap);
                    }
                }
                const double expected = std::clamp(sum, lo, hi);
                (expected == sum ? inside : clamped) += 1;
                EXPECT_NEAR(out[c], expected, 4e-6 * (1.0 + expected)) << ox << "," << oy << " c" << c;
            }
        }
    }
    EXPECT_GT(inside, 20);  // both sides of the clamp were exercised
    EXPECT_GT(clamped, 5);
}

TEST(PixelOps, SinCosMatchTheLibm) {
    for (double theta = -30.0; theta <= 30.0; theta += 0.0137) {
        float s, c;
        px::kernel_sincos(float(theta), &s, &c);
        EXPECT_NEAR(s, std::sin(double(float(theta))), 3e-7) << theta;
        EXPECT_NEAR(c, std::cos(double(float(theta))), 3e-7) << theta;
    }
}

TEST(PixelOps, Encodings) {
    EXPECT_EQ(px::pack_rgba8(0.0f, 1.0f, 0.5f + 1.0f / 510.0f), 0xff000000u | (128u << 16) | (255u << 8));
    EXPECT_EQ(px::pack_rgba8(-1.0f, 2.0f, std::nanf("")), 0xff00ff00u);  // clamped, NaN -> 0
    EXPECT_EQ(px::pack_r10g10b10a2(1.0f, 0.0f, 0.25f), 1023u | (256u << 20) | (3u << 30));
    EXPECT_EQ(px::encode_half_colour(1e9f), 0x7bffu);  // 65504, never Inf
    EXPECT_EQ(px::encode_half_colour(-3.0f), 0u);
}

// ---- a static jittered scene through the whole CPU pipeline -----------------------------------

// A static scene sampled where each jittered sample really is: detail near the render Nyquist
// rate, so every jitter phase sees different values and a single frame flickers.
void render_static_scene(FrameData& f, float jx, float jy) {
    for (uint32_t y = 0; y < f.height; ++y) {
        for (uint32_t x = 0; x < f.width; ++x) {
            const double u = x + 0.5 + jx, v = y + 0.5 + jy;
            const double s = std::sin(2 * M_PI * u / 2.3) * std::cos(2 * M_PI * v / 2.9);
            float* p = f.rgba(x, y);
            p[0] = float(0.5 + 0.4 * s);
            p[1] = float(0.4 + 0.3 * s);
            p[2] = float(0.6 - 0.3 * s);
            p[3] = 1.0f;
        }
    }
    std::fill(f.motion.begin(), f.motion.end(), 0.0f);
}

// Mean absolute frame-to-frame change of the output over the last `window` of `frames` frames.
double steady_flicker(cpu::CpuBackend& backend, int frames, int window) {
    FrameData frame(32, 32, 64, 64);
    std::vector<uint8_t> previous;
    double change = 0.0;
    const uint32_t phases = swinup_get_jitter_phase_count(2.0f);
    for (int i = 0; i < frames; ++i) {
        swinup_dispatch_desc d = frame.dispatch();
        EXPECT_EQ(swinup_get_jitter(uint32_t(i), phases, &d.jitter_x, &d.jitter_y), SWINUP_STATUS_OK);
        render_static_scene(frame, d.jitter_x, d.jitter_y);
        d = frame.dispatch();
        EXPECT_EQ(swinup_get_jitter(uint32_t(i), phases, &d.jitter_x, &d.jitter_y), SWINUP_STATUS_OK);
        std::string message;
        EXPECT_EQ(backend.dispatch(d, uint64_t(i), &message), SWINUP_STATUS_OK) << message;
        for (uint32_t y = 0; y < 64; ++y) {
            for (uint32_t x = 0; x < 64; ++x) {
                for (int c = 0; c < 3; ++c) {
                    const float v = frame.output_half(x, y, c);
                    EXPECT_TRUE(std::isfinite(v));
                    // LDR input and convex weights: never outside the range of the inputs.
                    EXPECT_GE(v, 0.0f);
                    EXPECT_LE(v, 1.0f);
                    if (i >= frames - window) {
                        uint16_t h;
                        std::memcpy(&h, &previous[(size_t(y) * 64 + x) * 8 + size_t(c) * 2], 2);
                        change += std::fabs(double(v) - double(f16_bits_to_f32(h)));
                    }
                }
            }
        }
        previous = frame.output;
    }
    return change / (double(window) * 64 * 64 * 3);
}

TEST(PipelineCpu, StaticJitteredSceneSettles) {
    std::string error;
    auto weights = weights_load_embedded(Variant::lite, &error);
    ASSERT_TRUE(weights) << error;
    const swinup_context_desc cd = small_context_desc(32, 32, 64, 64);
    cpu::CpuBackend blending(cd, weights, fixed_head(2.0f));         // alpha = 0.88
    cpu::CpuBackend no_history(cd, weights, fixed_head(-100.0f));    // alpha ~ 0
    const double with_history = steady_flicker(blending, 24, 8);
    const double without_history = steady_flicker(no_history, 24, 8);
    EXPECT_GT(without_history, 0.01) << "the scene must flicker without history for the test to mean anything";
    // An exponential blend with weight 0.12 on the new frame leaves a fraction of the flicker.
    EXPECT_LT(with_history, 0.35 * without_history) << with_history << " vs " << without_history;
}

// The CPU's output pass reads each render pixel's kernel from a table (cpu::pixel_kernels) that
// the GPU's exact kernel evaluates from the head instead (output_pixel): every display pixel must
// be the same bits either way, on random head outputs over and beyond their clamp ranges, NaN
// included, with a padded head stride, at a non-integer scale, with and without history, with
// and without a still-pixel shift (a third of the pixels still).
TEST(OutputPass, KernelTableGivesTheSameBitsAsTheHead) {
    constexpr int w = 13, h = 7, stride = 16, dw = 23, dh = 12;
    std::mt19937 rng(11);
    auto uniform = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
    std::vector<float> tc(w * h * 3), motion(w * h * 2), head(stride * h * kHeadOutputs, 0.0f);
    for (float& t : tc) t = uniform(0.0f, 3.0f);
    for (float& m : motion) m = uniform(-3.0f, 3.0f);
    for (int i = 0; i < w * h; i += 3) motion[i * 2] = motion[i * 2 + 1] = 0.0f;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            float* o = &head[(size_t(y) * stride + x) * kHeadOutputs];
            o[kHeadSigmaMajor] = uniform(-6.0f, 4.0f);
            o[kHeadSigmaMinor] = uniform(-6.0f, 4.0f);
            o[kHeadAngle] = uniform(-2000.0f, 2000.0f);
            o[kHeadAlpha] = uniform(-8.0f, 8.0f);
            if (rng() % 8 == 0) o[kHeadSigmaMajor + rng() % 4] = std::nanf("");
        }
    }
    std::vector<uint16_t> history(size_t(dw) * dh * 4);
    for (uint16_t& v : history) v = f32_to_f16_bits(uniform(0.0f, 4.0f));
    for (float shift : {0.0f, 0.75f})
    for (bool valid : {false, true}) {
        const OutputCurrent cur{frame_geometry(w, h, dw, dh, 0.21f, -0.37f), tc.data(), motion.data(), head.data(),
                                stride, shift};
        std::vector<PixelKernel> kernels(w * h);
        cpu::pixel_kernels(cur, kernels.data());
        const OutputPrevious prev{valid, history.data()};
        for (int oy = 0; oy < dh; ++oy) {
            for (int ox = 0; ox < dw; ++ox) {
                float from_head[3], from_table[3], kept_head[3], kept_table[3];
                output_pixel(cur, prev, ox, oy, from_head, kept_head);
                output_pixel_with(cur, prev, ox, oy, KernelFromTable{kernels.data(), w}, from_table, kept_table);
                EXPECT_EQ(std::memcmp(from_head, from_table, sizeof from_head), 0)
                    << ox << "," << oy << (valid ? " with history" : "") << ", shift " << shift;
                EXPECT_EQ(std::memcmp(kept_head, kept_table, sizeof kept_head), 0) << ox << "," << oy;
            }
        }
    }
}

// The still-pixel shift (weights format 4) moves the history weight's logit only where the
// dilated motion is exactly zero, by exactly the network's shift (one f32 addition); without a
// shift, or where anything moves (-0.0 counts as still), the weight is blend_alpha's.
TEST(OutputPass, StillPixelsTakeTheShiftedHistoryWeight) {
    const float raw = -0.3f, shift = 0.75f;
    EXPECT_EQ(history_weight(raw, 0.0f, 0.0f, shift), exact::sigmoid(raw + shift));
    EXPECT_EQ(history_weight(raw, -0.0f, 0.0f, shift), exact::sigmoid(raw + shift));
    EXPECT_GT(history_weight(raw, 0.0f, 0.0f, shift), blend_alpha(raw));
    for (const auto& [mx, my] : {std::pair{1e-6f, 0.0f}, std::pair{0.0f, -0.5f}, std::pair{2.0f, 3.0f}}) {
        EXPECT_EQ(history_weight(raw, mx, my, shift), blend_alpha(raw)) << mx << "," << my;
    }
    EXPECT_EQ(history_weight(raw, 0.0f, 0.0f, 0.0f), blend_alpha(raw));
    EXPECT_EQ(history_weight(std::nanf(""), 0.0f, 0.0f, shift), blend_alpha(0.0f));  // NaN reads as 0

    // Through a frame: a still scene's output moves less towards a new frame with the shift.
    constexpr int w = 8, h = 6, dw = 16, dh = 12;
    std::vector<float> tc(w * h * 3, 1.0f), motion(w * h * 2, 0.0f), head(w * h * kHeadOutputs, 0.0f);
    std::vector<uint16_t> history(size_t(dw) * dh * 4, f32_to_f16_bits(0.25f));
    OutputCurrent cur{frame_geometry(w, h, dw, dh, 0.0f, 0.0f), tc.data(), motion.data(), head.data(), w, 0.0f};
    const OutputPrevious prev{true, history.data()};
    float plain[3], shifted[3];
    output_pixel(cur, prev, 7, 5, plain);
    cur.still_history_shift = shift;
    output_pixel(cur, prev, 7, 5, shifted);
    EXPECT_GT(plain[0], shifted[0]);    // the new frame's 1.0 pulls less ...
    EXPECT_GT(shifted[0], 0.25f);       // ... but still pulls
    motion[(2 * w + 3) * 2] = 0.5f;     // render pixel (3, 2), display pixel (7, 5)'s nearest, moves
    output_pixel(cur, prev, 7, 5, shifted);
    cur.still_history_shift = 0.0f;
    output_pixel(cur, prev, 7, 5, plain);
    EXPECT_EQ(shifted[0], plain[0]);
}

}  // namespace
}  // namespace swinup::test
