// The output pass alone on the GPU, on random planes (every head output's range, NaN included, and
// the clamped image edges): exact mode equals the shared output_pixel() on the CPU bit for bit;
// fast mode (approximate tap weights, normalisation and colour compression) stays within its
// stated bound of exact mode, measured in t-space (docs/cuda-kernels.md, "Output pass").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "numeric/half.h"
#include "frame/output_pixel.h"
#include "gpu_test_support.h"

#ifdef SWINUP_HAVE_CUDA
#include "cuda/tools/cuda_tools.h"
#endif

namespace swinup {
namespace {

#ifdef SWINUP_HAVE_CUDA
// Random planes: t(colour) of colours in [0, 8] (some black), motion within +-3 render pixels,
// sigmas over the whole clamp range and beyond, angles within +-4 rad, alpha logits within +-6,
// a few NaN head outputs (read as 0), the history as f16 colours in [0, 8].
cuda_tools::OutputPassCase random_case(int w, int h, int dw, int dh, bool history, uint32_t seed) {
    std::mt19937 rng(seed);
    auto uniform = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
    cuda_tools::OutputPassCase c;
    c.width = w;
    c.height = h;
    c.display_width = dw;
    c.display_height = dh;
    c.jitter_x = 0.3125f;
    c.jitter_y = -0.1875f;
    const size_t render = size_t(w) * h;
    c.tc.resize(render * 3);
    for (float& t : c.tc) t = rng() % 16 == 0 ? 0.0f : px::t_of(uniform(0.0f, 8.0f));
    c.motion.resize(render * 2);
    for (float& m : c.motion) m = uniform(-3.0f, 3.0f);
    c.head.resize(render * kHeadOutputs);
    for (size_t i = 0; i < render; ++i) {
        float* o = &c.head[i * kHeadOutputs];
        for (int k = 0; k < kHeadOutputs; ++k) o[k] = uniform(-3.0f, 3.0f);
        o[kHeadSigmaMajor] = uniform(-5.0f, 3.0f);
        o[kHeadSigmaMinor] = uniform(-5.0f, 3.0f);
        o[kHeadAngle] = uniform(-4.0f, 4.0f);
        o[kHeadAlpha] = uniform(-6.0f, 6.0f);
        if (rng() % 64 == 0) o[kHeadSigmaMajor + rng() % 4] = std::numeric_limits<float>::quiet_NaN();
    }
    if (history) {
        c.history.resize(size_t(dw) * dh * 4);
        for (size_t i = 0; i < c.history.size(); ++i)
            c.history[i] = i % 4 == 3 ? uint16_t{0x3c00} : f32_to_f16_bits(uniform(0.0f, 8.0f));
    }
    return c;
}

// output_pixel() on the CPU over the same planes.
std::vector<float> cpu_output(const cuda_tools::OutputPassCase& c) {
    const FrameGeometry g =
        frame_geometry(c.width, c.height, c.display_width, c.display_height, c.jitter_x, c.jitter_y);
    const OutputCurrent cur{g, c.tc.data(), c.motion.data(), c.head.data(), c.width, c.still_history_shift};
    const OutputPrevious prev{!c.history.empty(), c.history.data()};
    std::vector<float> out(size_t(c.display_width) * c.display_height * 3);
    for (int y = 0; y < c.display_height; ++y)
        for (int x = 0; x < c.display_width; ++x)
            output_pixel(cur, prev, x, y, &out[(size_t(y) * c.display_width + x) * 3]);
    return out;
}

double t_space(float x) { return std::log2(1.0 + std::max(double(x), 0.0)); }

// Fast mode against exact, per output value in t-space (the space the pass blends in):
// |t(fast) - t(exact)| <= 2^-13, except in at most one pixel in 10^3 (a weight sum that one mode
// puts just under the 1e-20 fallback threshold and the other just over; expected far rarer).
constexpr double kFastOutputBoundT = 1.0 / 8192.0;
constexpr double kFastOutputPixelsBeyond = 1e-3;

// uniform_motion: every render pixel moves alike by less than a pixel, so every display pixel but
// a border of 2-4 pixels reads all its history taps inside the image (the fast pass's unclamped
// path) and the border reads clamped ones; random motion reads far apart and often off the image.
// still_shift: the network's still-pixel shift (weights format 4), with every third render pixel
// still (zero motion) so that both kinds of pixel are read.
void check(int w, int h, int dw, int dh, bool history, uint32_t seed, bool uniform_motion = false,
           float still_shift = 0.0f) {
    cuda_tools::OutputPassCase c = random_case(w, h, dw, dh, history, seed);
    if (uniform_motion)
        for (size_t i = 0; i < c.motion.size(); ++i) c.motion[i] = i % 2 == 0 ? 0.37f : -0.21f;
    c.still_history_shift = still_shift;
    if (still_shift != 0.0f)
        for (size_t i = 0; i < c.motion.size() / 2; i += 3) c.motion[i * 2] = c.motion[i * 2 + 1] = 0.0f;
    const std::vector<float> cpu = cpu_output(c);
    const std::vector<float> exact = cuda_tools::output_pass(c, SWINUP_PRECISION_EXACT);
    const std::vector<float> fast = cuda_tools::output_pass(c, SWINUP_PRECISION_FAST);
    ASSERT_EQ(exact.size(), cpu.size());
    ASSERT_EQ(fast.size(), cpu.size());
    size_t mismatches = 0, outliers = 0;
    double worst = 0, sum_sq = 0;
    for (size_t pixel = 0; pixel < cpu.size() / 3; ++pixel) {
        double pixel_worst = 0;
        for (size_t i = pixel * 3; i < pixel * 3 + 3; ++i) {
            if (std::memcmp(&exact[i], &cpu[i], sizeof(float)) != 0 && ++mismatches <= 5)
                ADD_FAILURE() << "exact value " << i << ": gpu " << exact[i] << " cpu " << cpu[i];
            const double d = std::fabs(t_space(fast[i]) - t_space(exact[i]));
            ASSERT_FALSE(std::isnan(d)) << "fast value " << i << " is NaN";
            sum_sq += d * d;
            pixel_worst = std::max(pixel_worst, d);
        }
        worst = std::max(worst, pixel_worst);
        if (pixel_worst > kFastOutputBoundT) ++outliers;
    }
    const size_t pixels = cpu.size() / 3;
    EXPECT_EQ(mismatches, 0u);
    EXPECT_LE(double(outliers), kFastOutputPixelsBeyond * double(pixels))
        << outliers << " of " << pixels << " pixels beyond the fast bound (worst " << worst << ")";
    std::printf("[ measured ] output pass %dx%d -> %dx%d%s%s%s: exact vs cpu %zu of %zu values differ; fast vs "
                "exact in t-space: max %.3e, rms %.3e, %zu of %zu pixels beyond 2^-13\n",
                w, h, dw, dh, history ? " with history" : "", uniform_motion ? ", uniform motion" : "",
                still_shift != 0.0f ? ", a third still, shifted" : "", mismatches, cpu.size(), worst,
                std::sqrt(sum_sq / double(cpu.size())), outliers, pixels);
}
#endif

TEST(CudaOutputPass, Scale3WithHistory) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    check(40, 24, 120, 72, true, 1);
#endif
}

TEST(CudaOutputPass, Scale1p5WithHistory) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    check(48, 30, 72, 45, true, 2);
#endif
}

TEST(CudaOutputPass, Scale2WithoutHistory) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    check(36, 20, 72, 40, false, 3);
#endif
}

// Small uniform motion: the fast pass's interior and border history reads in one frame, at an odd
// display width.
TEST(CudaOutputPass, UniformMotionInteriorAndBorderTaps) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    check(30, 20, 45, 30, true, 5, true);
    check(31, 20, 93, 60, true, 6, true);
#endif
}

// The still-pixel shift (weights format 4) in both modes: exact is still the CPU's bits, fast
// within its bound; with uniform motion too, where the still pixels' history reads stay inside.
TEST(CudaOutputPass, StillPixelsWithTheHistoryShift) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    check(40, 24, 80, 48, true, 7, false, 0.75f);
    check(30, 20, 90, 60, true, 8, true, 0.75f);
#endif
}

// Fewer render pixels (12) than display columns and rows together (21): the fast pre-pass, which
// spreads the display axes' table over the render pixels, must still fill every entry.
TEST(CudaOutputPass, TinyRenderImageWithHistory) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    check(4, 3, 12, 9, true, 4);
#endif
}

}  // namespace
}  // namespace swinup
