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

// ---- the output pass's kernels against the per-display-pixel ones (cuda/frame/output_kernels.h) ----
#ifdef SWINUP_HAVE_CUDA
enum class Motion { random, uniform, smooth };

// random_case() with the motion of `motion` (uniform: every render pixel alike, so neighbouring
// display pixels' history windows line up one column apart; smooth: a slow wave, so they line up
// in places; random: within +-3 render pixels, they rarely do), a third of the render pixels still
// (the still-pixel shift), and optionally the masks (half of each mask 0, the rest in (0, 1]).
cuda_tools::OutputPassCase kernels_case(int w, int h, int dw, int dh, bool history, bool masks, Motion motion,
                                        uint32_t seed) {
    cuda_tools::OutputPassCase c = random_case(w, h, dw, dh, history, seed);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float* mv = &c.motion[(size_t(y) * w + x) * 2];
            if (motion == Motion::uniform) {
                mv[0] = 0.37f;
                mv[1] = -0.21f;
            } else if (motion == Motion::smooth) {
                mv[0] = 1.25f * std::sin(0.11f * float(x) + 0.07f * float(y));
                mv[1] = 0.5f * std::cos(0.05f * float(x));
            }
            if ((y * w + x) % 3 == 0) mv[0] = mv[1] = 0.0f;
        }
    c.still_history_shift = 0.75f;
    if (masks) {
        std::mt19937 rng(seed + 1000);
        c.masks.resize(size_t(w) * h * 2);
        for (float& m : c.masks) m = rng() % 2 == 0 ? 0.0f : float(rng() % 1024 + 1) / 1024.0f;
    }
    return c;
}

// The pass with `kernels` and with the per-display-pixel kernels: the same linear output, history
// and recurrent state, byte for byte.
void compare_kernels(const cuda_tools::OutputPassCase& c, swinup_precision precision,
                     const cuda::OutputKernels& kernels, const char* label) {
    std::vector<uint16_t> history_new, history_old, recurrent_new, recurrent_old;
    const std::vector<float> out_new = cuda_tools::output_pass(c, precision, &history_new, kernels, &recurrent_new);
    const std::vector<float> out_old =
        cuda_tools::output_pass(c, precision, &history_old, cuda::OutputKernels{false, false}, &recurrent_old);
    ASSERT_EQ(out_new.size(), out_old.size());
    size_t differ = 0;
    for (size_t i = 0; i < out_new.size(); ++i)
        if (std::memcmp(&out_new[i], &out_old[i], sizeof(float)) != 0 && ++differ <= 5)
            ADD_FAILURE() << label << ": value " << i << " (pixel " << (i / 3) % size_t(c.display_width) << ", "
                          << (i / 3) / size_t(c.display_width) << "): " << out_new[i] << " vs " << out_old[i];
    EXPECT_EQ(differ, 0u) << label << ": output values that differ";
    EXPECT_TRUE(history_new == history_old) << label << ": the history written differs";
    EXPECT_TRUE(recurrent_new == recurrent_old) << label << ": the recurrent state differs";
    std::printf("[ measured ] %s %dx%d -> %dx%d%s%s: %zu of %zu output values differ\n", label, c.width, c.height,
                c.display_width, c.display_height, c.history.empty() ? "" : " with history",
                c.masks.empty() ? "" : ", masks", differ, out_new.size());
}

struct KernelsSize {
    int w, h, dw, dh;
};
// Scales 3 (three display pixels a thread in fast mode), 2 and 1.5 (two), an odd display width
// (the row's last thread has one pixel), and a tiny image. Wide enough that whole warps of the
// fast kernel lie inside the image (a warp takes 64 or 96 display columns).
const KernelsSize kKernelsSizes[] = {
    {112, 20, 336, 60}, {96, 20, 192, 40}, {128, 24, 192, 36}, {131, 22, 197, 33}, {4, 3, 12, 9}};

void compare_all(swinup_precision precision, const cuda::OutputKernels& kernels, const char* label) {
    uint32_t seed = 100;
    for (const KernelsSize& s : kKernelsSizes)
        for (Motion motion : {Motion::uniform, Motion::smooth, Motion::random})
            for (bool history : {true, false})
                for (bool masks : {false, true}) {
                    if (!history && motion != Motion::uniform) continue;  // motion is read only with history
                    compare_kernels(kernels_case(s.w, s.h, s.dw, s.dh, history, masks, motion, ++seed), precision,
                                    kernels, label);
                }
}
#endif

// Exact mode's table of render pixel kernels (the CPU's KernelFromTable) gives the bytes of the
// kernel that evaluates them per display pixel, and its pre-pass the recurrent pass's state.
TEST(CudaOutputKernels, ExactTableEqualsPerDisplayPixelKernel) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    compare_all(SWINUP_PRECISION_EXACT, cuda::OutputKernels{true, false}, "exact table vs per display pixel");
#endif
}

// Fast mode's thread per 2 or 3 display pixels gives the bytes of the thread per display pixel.
TEST(CudaOutputKernels, FastTuplesEqualPerPixelKernel) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    compare_all(SWINUP_PRECISION_FAST, cuda::OutputKernels{false, true}, "fast tuples vs per pixel");
#endif
}

// Both candidates on at once (what `swinup bench --with output` runs) in both modes, on the sizes
// of the other tests.
TEST(CudaOutputKernels, BothCandidatesEqualPerPixelKernels) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    const cuda::OutputKernels both{true, true};
    for (swinup_precision precision : {SWINUP_PRECISION_EXACT, SWINUP_PRECISION_FAST}) {
        compare_kernels(kernels_case(40, 24, 120, 72, true, true, Motion::smooth, 7), precision, both, "both candidates");
        compare_kernels(kernels_case(31, 20, 93, 60, true, false, Motion::uniform, 8), precision, both,
                        "both candidates");
    }
#endif
}

}  // namespace
}  // namespace swinup
