// The spatial baselines: kernel properties, constants and ramps reproduced, jitter honoured.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <tuple>

#include "eval/resample_kernels.h"
#include "eval/spatial_upscale.h"

using swinup::Image;
namespace ev = swinup::eval;
using ev::SpatialFilter;

TEST(EvalKernels, LanczosProperties) {
    EXPECT_FLOAT_EQ(ev::lanczos3_kernel(0.0f), 1.0f);
    for (int n = 1; n <= 4; ++n) {
        EXPECT_NEAR(ev::lanczos3_kernel(float(n)), 0.0f, 1e-6f) << n;
        EXPECT_NEAR(ev::lanczos3_kernel(-float(n)), 0.0f, 1e-6f) << n;
    }
    for (float x : {3.0f, 3.2f, 5.0f, -3.5f}) EXPECT_EQ(ev::lanczos3_kernel(x), 0.0f) << x;
    for (float x = 0.05f; x < 3.0f; x += 0.1f)
        EXPECT_FLOAT_EQ(ev::lanczos3_kernel(x), ev::lanczos3_kernel(-x));
    // sinc(1/2) sinc(1/6) = (2 / pi) * (3 / pi) = 6 / pi^2.
    EXPECT_NEAR(ev::lanczos3_kernel(0.5f), 6.0 / (std::numbers::pi * std::numbers::pi), 1e-6);
    // Negative lobe between 1 and 2, positive between 2 and 3.
    EXPECT_LT(ev::lanczos3_kernel(1.5f), 0.0f);
    EXPECT_GT(ev::lanczos3_kernel(2.5f), 0.0f);
    // Samples at integer spacing sum to (nearly) 1 at any phase: the partition of unity is what
    // lets it preserve flat areas; it is approximate for Lanczos, within 1 % here.
    for (float phase = 0.0f; phase < 1.0f; phase += 0.125f) {
        float sum = 0.0f;
        for (int k = -3; k <= 3; ++k) sum += ev::lanczos3_kernel(phase - float(k));
        EXPECT_NEAR(sum, 1.0f, 0.01f) << phase;
    }
}

TEST(EvalKernels, CatmullRomAndBilinearValues) {
    // Keys a = -0.5: k(1/2) = 1.5/8 - 2.5/4 + 1 = 0.5625; k(3/2) = -0.0625.
    EXPECT_FLOAT_EQ(ev::catmull_rom_kernel(0.0f), 1.0f);
    EXPECT_FLOAT_EQ(ev::catmull_rom_kernel(0.5f), 0.5625f);
    EXPECT_FLOAT_EQ(ev::catmull_rom_kernel(-1.5f), -0.0625f);
    EXPECT_FLOAT_EQ(ev::catmull_rom_kernel(1.0f), 0.0f);
    EXPECT_FLOAT_EQ(ev::catmull_rom_kernel(2.0f), 0.0f);
    EXPECT_FLOAT_EQ(ev::bilinear_kernel(0.25f), 0.75f);
    EXPECT_FLOAT_EQ(ev::bilinear_kernel(-1.0f), 0.0f);
}

class SpatialFilterTest : public ::testing::TestWithParam<SpatialFilter> {};

TEST_P(SpatialFilterTest, ReproducesAConstantImage) {
    const Image render(7, 5, 4, 0.375f);
    for (float j : {0.0f, 0.31f, -0.5f}) {
        for (auto [w, h] : {std::pair{14, 10}, std::pair{11, 8}, std::pair{21, 15}}) {
            const Image out = ev::spatial_upscale(render, w, h, j, -j, GetParam());
            ASSERT_EQ(out.width, w);
            ASSERT_EQ(out.channels, 4);
            for (float v : out.data) ASSERT_NEAR(v, 0.375f, 1e-6f);
        }
    }
}

TEST_P(SpatialFilterTest, IsTheIdentityAtScaleOneWithoutJitter) {
    // Interpolating kernels (k(0) = 1, k(n) = 0) and nearest return the samples themselves.
    Image render(9, 6, 3);
    for (size_t i = 0; i < render.data.size(); ++i) render.data[i] = float((i * 37) % 11) / 10.0f;
    const Image out = ev::spatial_upscale(render, 9, 6, 0.0f, 0.0f, GetParam());
    for (size_t i = 0; i < out.data.size(); ++i)
        ASSERT_NEAR(out.data[i], render.data[i], 1e-6f) << i;
}

INSTANTIATE_TEST_SUITE_P(AllFilters, SpatialFilterTest,
                         ::testing::Values(SpatialFilter::nearest, SpatialFilter::bilinear,
                                           SpatialFilter::catmull_rom, SpatialFilter::lanczos3),
                         [](const auto& param_info) {
                             return std::string(ev::spatial_filter_name(param_info.param));
                         });

namespace {

// Render samples of f(x, y) = a x + b y + c taken at the jittered sample positions; the error of
// the upscale against f at display pixel centres, over pixels at least `margin` display pixels
// from the border (clamp-to-edge bends the ramp there).
double ramp_error(SpatialFilter filter, float jx, float jy, int margin) {
    const int w = 16, h = 12, wd = 32, hd = 24;
    const double a = 0.03, b = -0.02, c = 0.5;
    Image render(w, h, 1);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            render.at(x, y, 0) = float(a * (x + 0.5 + jx) + b * (y + 0.5 + jy) + c);
    const Image out = ev::spatial_upscale(render, wd, hd, jx, jy, filter);
    double worst = 0.0;
    for (int y = margin; y < hd - margin; ++y) {
        for (int x = margin; x < wd - margin; ++x) {
            const double u = (x + 0.5) / 2.0, v = (y + 0.5) / 2.0;  // render-pixel coordinates
            worst = std::max(worst, std::abs(double(out.at(x, y, 0)) - (a * u + b * v + c)));
        }
    }
    return worst;
}

}  // namespace

TEST(EvalSpatialUpscale, BilinearAndBicubicReproduceLinearRampsInTheInterior) {
    for (float j : {0.0f, 0.25f, -0.4f}) {
        EXPECT_LT(ramp_error(SpatialFilter::bilinear, j, 0.5f * j, 3), 1e-5) << j;
        EXPECT_LT(ramp_error(SpatialFilter::catmull_rom, j, -j, 5), 1e-5) << j;
        // Lanczos is not exactly linear-preserving; with the weights normalised it stays within a
        // small fraction of one sample step (0.03 per render pixel here).
        EXPECT_LT(ramp_error(SpatialFilter::lanczos3, j, j, 7), 0.03 * 0.05) << j;
    }
    // Near the border clamp-to-edge makes the ramp flat: the error there is real, not zero.
    EXPECT_GT(ramp_error(SpatialFilter::bilinear, 0.0f, 0.0f, 0), 1e-3);
}

TEST(EvalSpatialUpscale, NearestPicksTheSampleClosestToEachPixel) {
    const int w = 6, h = 4, wd = 15, hd = 10;  // scale 2.5
    Image render(w, h, 1);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) render.at(x, y, 0) = float(y * w + x);
    const float jx = 0.3f, jy = -0.2f;
    const Image out = ev::spatial_upscale(render, wd, hd, jx, jy, SpatialFilter::nearest);
    for (int y = 0; y < hd; ++y) {
        for (int x = 0; x < wd; ++x) {
            const double u = (x + 0.5) / 2.5, v = (y + 0.5) / 2.5;
            int bx = 0, by = 0;
            for (int q = 1; q < w; ++q)
                if (std::abs(q + 0.5 + jx - u) < std::abs(bx + 0.5 + jx - u)) bx = q;
            for (int q = 1; q < h; ++q)
                if (std::abs(q + 0.5 + jy - v) < std::abs(by + 0.5 + jy - v)) by = q;
            EXPECT_EQ(out.at(x, y, 0), render.at(bx, by, 0)) << x << "," << y;
        }
    }
}

TEST(EvalSpatialUpscale, JitterShiftsTheResult) {
    // A sample taken at +0.5 jitter lies half a render pixel right: the upscale of the same values
    // must be the unjittered upscale moved right by one display pixel (scale 2), in the interior.
    Image render(12, 4, 1);
    for (int x = 0; x < 12; ++x)
        for (int y = 0; y < 4; ++y) render.at(x, y, 0) = float(x % 3) * 0.4f;
    const Image plain = ev::spatial_upscale(render, 24, 8, 0.0f, 0.0f, SpatialFilter::catmull_rom);
    const Image shifted =
        ev::spatial_upscale(render, 24, 8, 0.5f, 0.0f, SpatialFilter::catmull_rom);
    for (int x = 5; x < 19; ++x)
        EXPECT_NEAR(shifted.at(x + 1, 3, 0), plain.at(x, 3, 0), 1e-5f) << x;
}

TEST(EvalSpatialUpscale, RejectsBadInput) {
    EXPECT_THROW(ev::spatial_upscale(Image(), 4, 4, 0, 0, SpatialFilter::bilinear),
                 std::invalid_argument);
    EXPECT_THROW(ev::spatial_upscale(Image(2, 2, 3), 0, 4, 0, 0, SpatialFilter::bilinear),
                 std::invalid_argument);
    EXPECT_THROW(ev::spatial_upscale(Image(2, 2, 3), 4, 4, NAN, 0, SpatialFilter::bilinear),
                 std::invalid_argument);
}
