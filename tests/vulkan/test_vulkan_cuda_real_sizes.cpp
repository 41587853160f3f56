// The Vulkan backend at the sizes games run, on a GPU: 1280x720 -> 2560x1440 (and 1920x1080 ->
// 3840x2160 for lite fast), three frames of the sliding plane (history, recurrent features, both
// window-shift parities), both variants, exact and fast, through the C API with host pointers:
// - Vulkan against the CPU backend (exact: within kExactFrameBound; fast: kFastFrameBound), the
//   bounds of the small-size tests (test_vulkan_backend.cpp), which lavapipe runs in CI;
// - the same frames through the CUDA backend and the Vulkan backend, compared with each other
//   within the same bounds (each is held to the CPU, so their difference is at most the sum; the
//   tighter check is the printed measure).
// The worst relative RMS and the count of byte-identical frames are printed for each pair.
// GPU test (its name has "cuda": label gpu): it skips, saying so, without a CUDA GPU of compute
// capability 8.9+, or when the Vulkan device is a CPU implementation (lavapipe would need hours).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "sliding_plane_frames.h"
#include "swinup/swinup.h"

namespace swinup {
namespace {

using test::decode_output_rgb;
using test::kExactFrameBound;
using test::kFastFrameBound;
using test::output_pixel_bytes;

constexpr int kFrames = 3;

struct Sizes {
    int rw, rh, dw, dh;
};

struct Context {
    swinup_context* ctx = nullptr;
    ~Context() { swinup_context_destroy(ctx); }
};

swinup_context_desc context_desc(const Sizes& s, swinup_backend backend, swinup_variant variant,
                                 swinup_precision precision) {
    swinup_context_desc d = test::sliding_plane_context_desc(s.rw, s.rh, s.dw, s.dh, SWINUP_FORMAT_RGBA16F);
    d.backend = backend;
    d.variant = variant;
    d.precision = precision;
    d.num_threads = 0;  // every core: the CPU reference at these sizes
    return d;
}

// The frames of one backend, or an empty list with *skip set when its context cannot be made.
std::vector<std::vector<uint8_t>> run(const Sizes& s, swinup_backend backend, swinup_variant variant,
                                      swinup_precision precision, std::string* skip) {
    Context c;
    const swinup_context_desc desc = context_desc(s, backend, variant, precision);
    if (swinup_context_create(&desc, &c.ctx) != SWINUP_STATUS_OK) {
        *skip = std::string("no context: ") + swinup_last_error(nullptr);
        return {};
    }
    swinup_context_info info;
    swinup_context_get_info(c.ctx, &info);
    if (backend == SWINUP_BACKEND_VULKAN && std::string(info.device_name).find("llvmpipe") != std::string::npos) {
        *skip = std::string("the Vulkan device is ") + info.device_name + ", a CPU implementation";
        return {};
    }
    std::vector<std::vector<uint8_t>> frames;
    for (int f = 0; f < kFrames; ++f) {
        const test::SlidingPlaneFrame frame(s.rw, s.rh, f);
        std::vector<uint8_t> out(size_t(s.dw) * s.dh * output_pixel_bytes(SWINUP_FORMAT_RGBA16F), 0xcd);
        swinup_dispatch_desc d = frame.dispatch_desc(out.data(), SWINUP_FORMAT_RGBA16F, s.dw, s.dh);
        swinup_get_jitter(uint32_t(f), swinup_get_jitter_phase_count(float(s.dw) / float(s.rw)), &d.jitter_x,
                          &d.jitter_y);
        EXPECT_EQ(swinup_dispatch(c.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(c.ctx);
        frames.push_back(std::move(out));
    }
    return frames;
}

void expect_close(const std::vector<std::vector<uint8_t>>& got, const std::vector<std::vector<uint8_t>>& want,
                  double bound, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    double worst = 0.0;
    int identical = 0;
    for (size_t f = 0; f < got.size(); ++f) {
        const double err = gpu_test::relative_rms(decode_output_rgb(got[f], SWINUP_FORMAT_RGBA16F),
                                                  decode_output_rgb(want[f], SWINUP_FORMAT_RGBA16F));
        worst = std::max(worst, err);
        identical += got[f] == want[f] ? 1 : 0;
        EXPECT_LE(err, bound) << what << ", frame " << f;
    }
    std::printf("[ measured ] %s: worst frame relative RMS %.3e, %d of %zu frames byte-identical\n", what.c_str(),
                worst, identical, got.size());
}

void compare(const Sizes& s, swinup_variant variant, swinup_precision precision) {
    SWINUP_REQUIRE_GPU();
    std::string skip;
    const auto vulkan = run(s, SWINUP_BACKEND_VULKAN, variant, precision, &skip);
    if (!skip.empty()) GTEST_SKIP() << "GPU test skipped: " << skip;
    const auto cuda = run(s, SWINUP_BACKEND_CUDA, variant, precision, &skip);
    ASSERT_TRUE(skip.empty()) << skip;
    const auto cpu = run(s, SWINUP_BACKEND_CPU, variant, precision, &skip);
    ASSERT_TRUE(skip.empty()) << skip;
    const double bound = precision == SWINUP_PRECISION_EXACT ? kExactFrameBound : kFastFrameBound;
    const std::string name = std::string(variant == SWINUP_VARIANT_LITE ? "lite " : "full ") +
                             (precision == SWINUP_PRECISION_EXACT ? "exact " : "fast ") + std::to_string(s.rw) + "x" +
                             std::to_string(s.rh) + "->" + std::to_string(s.dw) + "x" + std::to_string(s.dh);
    expect_close(vulkan, cpu, bound, name + ", Vulkan against the CPU");
    expect_close(cuda, cpu, bound, name + ", CUDA against the CPU");
    expect_close(vulkan, cuda, bound, name + ", Vulkan against CUDA");
}

const Sizes k720p{1280, 720, 2560, 1440};
const Sizes k1080p{1920, 1080, 3840, 2160};

TEST(VulkanCudaRealSizes, LiteExact) { compare(k720p, SWINUP_VARIANT_LITE, SWINUP_PRECISION_EXACT); }
TEST(VulkanCudaRealSizes, FullExact) { compare(k720p, SWINUP_VARIANT_FULL, SWINUP_PRECISION_EXACT); }
TEST(VulkanCudaRealSizes, LiteFast) {
    compare(k720p, SWINUP_VARIANT_LITE, SWINUP_PRECISION_FAST);
    compare(k1080p, SWINUP_VARIANT_LITE, SWINUP_PRECISION_FAST);
}
TEST(VulkanCudaRealSizes, FullFast) { compare(k720p, SWINUP_VARIANT_FULL, SWINUP_PRECISION_FAST); }

}  // namespace
}  // namespace swinup
