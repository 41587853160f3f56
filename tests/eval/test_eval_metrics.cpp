// PSNR, SSIM, display encoding and the temporal-stability error against values derived by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "eval/display_encode.h"
#include "eval/psnr.h"
#include "eval/ssim.h"
#include "eval/temporal_stability.h"
#include "sequence_fixture.h"

using swinup::Frame;
using swinup::Image;
using swinup::SequenceInfo;
namespace ev = swinup::eval;

namespace {

Image constant(int w, int h, float v) { return Image(w, h, 3, v); }

Image random_image(int w, int h, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    Image img(w, h, 3);
    for (float& v : img.data) v = u(rng);
    return img;
}

}  // namespace

TEST(EvalDisplayEncode, SrgbCurveAtKnownPoints) {
    EXPECT_FLOAT_EQ(ev::srgb_encode(0.0f), 0.0f);
    EXPECT_NEAR(ev::srgb_encode(1.0f), 1.0f, 1e-6f);
    // Linear segment: 12.92 x below 0.0031308.
    EXPECT_NEAR(ev::srgb_encode(0.002f), 0.02584f, 1e-6f);
    // 1.055 * 0.5^(1/2.4) - 0.055, evaluated by hand: 0.5^(1/2.4) = 0.749154.
    EXPECT_NEAR(ev::srgb_encode(0.5f), 1.055f * 0.749154f - 0.055f, 1e-5f);
}

TEST(EvalDisplayEncode, ReinhardForHdrClampForLdrAndNoNaN) {
    // HDR 1.0 -> 1 / (1 + 1) = 0.5 before sRGB; exposure 2 on 0.5 gives the same.
    EXPECT_NEAR(ev::display_encode_value(1.0f, 1.0f, true), ev::srgb_encode(0.5f), 1e-7f);
    EXPECT_NEAR(ev::display_encode_value(0.5f, 2.0f, true), ev::srgb_encode(0.5f), 1e-7f);
    // HDR 3.0 -> 0.75.
    EXPECT_NEAR(ev::display_encode_value(3.0f, 1.0f, true), ev::srgb_encode(0.75f), 1e-7f);
    // LDR clamps.
    EXPECT_FLOAT_EQ(ev::display_encode_value(1.7f, 1.0f, false), 1.0f);
    EXPECT_FLOAT_EQ(ev::display_encode_value(-0.3f, 1.0f, false), 0.0f);
    EXPECT_FLOAT_EQ(ev::display_encode_value(std::numeric_limits<float>::quiet_NaN(), 1.0f, true),
                    0.0f);
    EXPECT_FLOAT_EQ(ev::display_encode_value(std::numeric_limits<float>::infinity(), 1.0f, true),
                    0.0f);
    EXPECT_THROW(ev::display_encode(Image(4, 4, 2), 1.0f, false), std::invalid_argument);
}

TEST(EvalPsnr, ConstantOffsetGivesTwentyDecibels) {
    // Every value differs by 0.1: MSE = 0.01, PSNR = 10 log10(1 / 0.01) = 20 dB.
    const Image a = constant(8, 6, 0.5f), b = constant(8, 6, 0.6f);
    EXPECT_NEAR(ev::mean_squared_error(a, b), 0.01, 1e-8);
    EXPECT_NEAR(ev::psnr(a, b), 20.0, 1e-5);
}

TEST(EvalPsnr, PartialOffsetOnOneChannel) {
    // Half of the pixels differ by 0.1 in the green channel only: MSE = 0.01 * (1/2) * (1/3).
    Image a = constant(10, 4, 0.25f), b = a;
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 10; ++x) b.at(x, y, 1) += 0.1f;
    const double mse = 0.01 / 6.0;
    EXPECT_NEAR(ev::mean_squared_error(a, b), mse, 1e-8);
    EXPECT_NEAR(ev::psnr(a, b), 10.0 * std::log10(600.0), 1e-4);
}

TEST(EvalPsnr, IdenticalIsInfiniteAndIgnoresAlpha) {
    Image a(5, 5, 4, 0.3f), b(5, 5, 4, 0.3f);
    for (int i = 0; i < 25; ++i) b.data[size_t(i) * 4 + 3] = 0.9f;  // alpha differs
    EXPECT_TRUE(std::isinf(ev::psnr(a, b)));
    EXPECT_THROW(ev::psnr(constant(4, 4, 0), constant(4, 5, 0)), std::invalid_argument);
}

TEST(EvalSsim, IdenticalImagesScoreOne) {
    const Image a = random_image(24, 19, 7);
    EXPECT_NEAR(ev::ssim(a, a), 1.0, 1e-9);
}

TEST(EvalSsim, ConstantImagesScoreTheLuminanceTerm) {
    // No variance: SSIM = (2 a b + C1) / (a^2 + b^2 + C1) with C1 = 0.01^2.
    const double a = 0.5, b = 0.25, c1 = 1e-4;
    EXPECT_NEAR(ev::ssim(constant(16, 16, float(a)), constant(16, 16, float(b))),
                (2 * a * b + c1) / (a * a + b * b + c1), 1e-6);
}

TEST(EvalSsim, NegatedContrastMatchesHandDerivation) {
    // One 11x11 window. a = c + e f, b = c - e f with f = -1 left of the centre column, +1 right
    // of it, 0 on it. By symmetry of the window, both means are c (luminance term 1); the
    // variances are e^2 V and the covariance -e^2 V, where V = 1 - (weight of the centre column)
    // = 1 - g(0) / sum_k g(k), g(k) = exp(-k^2 / (2 * 1.5^2)), k = -5..5.
    const double c = 0.5, e = 0.2, c2 = 9e-4;
    Image a(11, 11, 3), b(11, 11, 3);
    for (int y = 0; y < 11; ++y) {
        for (int x = 0; x < 11; ++x) {
            const double f = x < 5 ? -1.0 : (x > 5 ? 1.0 : 0.0);
            for (int ch = 0; ch < 3; ++ch) {
                a.at(x, y, ch) = float(c + e * f);
                b.at(x, y, ch) = float(c - e * f);
            }
        }
    }
    double sum = 0.0;
    for (int k = -5; k <= 5; ++k) sum += std::exp(-k * k / 4.5);
    const double v = 1.0 - 1.0 / sum;
    const double expected = (-2.0 * e * e * v + c2) / (2.0 * e * e * v + c2);
    EXPECT_NEAR(ev::ssim(a, b), expected, 2e-5);
    EXPECT_LT(expected, -0.9);  // the derivation itself: nearly perfectly anti-correlated
}

TEST(EvalSsim, RejectsImagesSmallerThanTheWindow) {
    EXPECT_THROW(ev::ssim(constant(10, 20, 0), constant(10, 20, 0)), std::invalid_argument);
}

namespace {

// A still sequence: render 8x8, display 16x16, depth 0.5, zero motion.
SequenceInfo still_info(int frames) {
    SequenceInfo info = swinup::test::sequence_info(8, 8, 16, 16, frames);
    info.has_ground_truth = true;
    return info;
}

Frame still_frame(float depth) {
    Frame f;
    f.color = Image(8, 8, 4, 0.5f);
    f.depth = Image(8, 8, 1, depth);
    f.mv = Image(8, 8, 2, 0.0f);
    return f;
}

}  // namespace

TEST(EvalTemporalStability, ZeroWhenOutputIsTheTruth) {
    const SequenceInfo info = still_info(2);
    const Frame f0 = still_frame(0.5f), f1 = still_frame(0.5f);
    const Image motion(16, 16, 2, 0.0f);
    const auto stable = ev::stable_pixel_mask(info, f0, f1, 1, motion);
    // With zero motion every pixel reprojects onto itself inside the frame: all are stable.
    size_t count = 0;
    for (uint8_t v : stable) count += v;
    EXPECT_EQ(count, size_t(16 * 16));
    const Image gt0 = random_image(16, 16, 1), gt1 = random_image(16, 16, 2);
    const auto e = ev::temporal_change_error(gt0, gt1, gt0, gt1, motion, stable);
    EXPECT_EQ(e.count, size_t(16 * 16 * 3));
    EXPECT_DOUBLE_EQ(e.rms(), 0.0);
}

TEST(EvalTemporalStability, FlickerOnAStillImage) {
    // The truth is still; the output adds +0.1 then -0.1: every change differs by 0.2.
    const SequenceInfo info = still_info(2);
    const Image motion(16, 16, 2, 0.0f);
    const auto stable =
        ev::stable_pixel_mask(info, still_frame(0.5f), still_frame(0.5f), 1, motion);
    const Image gt = constant(16, 16, 0.5f);
    const auto e = ev::temporal_change_error(constant(16, 16, 0.6f), constant(16, 16, 0.4f), gt, gt,
                                             motion, stable);
    EXPECT_NEAR(e.rms(), 0.2, 1e-6);
}

TEST(EvalTemporalStability, FollowsTheMotionOfTheTruth) {
    // The truth moves right by 2 display pixels per frame (MV = -2: current -> previous). An output
    // that moves with it scores 0; one that stays still scores the truth's own change.
    const Image motion(16, 16, 2, 0.0f);
    Image moving = motion;
    for (int i = 0; i < 16 * 16; ++i) moving.data[size_t(i) * 2] = -2.0f;
    auto ramp = [](int shift) {
        Image img(16, 16, 3);
        for (int y = 0; y < 16; ++y)
            for (int x = 0; x < 16; ++x)
                for (int c = 0; c < 3; ++c) img.at(x, y, c) = float((x - shift) & 3) * 0.25f;
        return img;
    };
    const Image gt0 = ramp(0), gt1 = ramp(2);
    std::vector<uint8_t> stable(16 * 16, 0);
    for (int y = 0; y < 16; ++y)
        for (int x = 2; x < 16; ++x) stable[size_t(y) * 16 + x] = 1;
    EXPECT_DOUBLE_EQ(ev::temporal_change_error(gt0, gt1, gt0, gt1, moving, stable).rms(), 0.0);
    // Still output gt0, gt0: d_out = gt0(x) - gt0(x - 2), d_gt = 0 -> error = |gt0(x) - gt0(x-2)|,
    // which for the period-4 pattern (0, .25, .5, .75) is 0.5 everywhere.
    EXPECT_NEAR(ev::temporal_change_error(gt0, gt0, gt0, gt1, moving, stable).rms(), 0.5, 1e-6);
}

TEST(EvalTemporalStability, DisocclusionAndResetsAreExcluded) {
    SequenceInfo info = still_info(3);
    // Frame 0: a near object (reverse-Z large: device depth small) covers render pixels x < 4.
    // Frame 1: it is gone: those pixels show the far background and were hidden last frame.
    Frame f0 = still_frame(0.9f), f1 = still_frame(0.9f);
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 4; ++x) f0.depth.at(x, y, 0) = 0.1f;
    const Image motion(16, 16, 2, 0.0f);
    const auto stable = ev::stable_pixel_mask(info, f0, f1, 1, motion);
    // Display x < 8 sits on render x < 4 (disoccluded); display x 8..9 on render x 4, whose 3x3
    // neighbourhood touches render x 3: both excluded. From display x 10 on: stable.
    for (int x = 0; x < 16; ++x)
        EXPECT_EQ(stable[size_t(5) * 16 + x], x >= 10 ? 1 : 0) << "x " << x;
    // The reverse (background covered by an arriving object) is not a disocclusion.
    const auto covered = ev::stable_pixel_mask(info, f1, f0, 1, motion);
    for (int x = 0; x < 16; ++x) EXPECT_EQ(covered[size_t(5) * 16 + x], 1) << "x " << x;
    info.reset[2] = 1;
    for (uint8_t v : ev::stable_pixel_mask(info, f1, f1, 2, motion)) EXPECT_EQ(v, 0);
    for (uint8_t v : ev::stable_pixel_mask(info, f1, f1, 0, motion)) EXPECT_EQ(v, 0);
}
