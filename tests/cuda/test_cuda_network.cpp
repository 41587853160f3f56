// The CUDA network against the CPU network (cpu::Network), layer by layer, for both variants, both
// precision modes and both window-shift parities, without and with the head MLP (weights format
// 3). Per layer the relative RMS difference is printed (docs/cuda-kernels.md quotes these) and
// held to the stated bound.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "numeric/e4m3.h"
#include "model/model_spec.h"
#include "model/weights.h"
#include "cpu/network.h"
#include "gpu_test_support.h"
#include "network_test_weights.h"

#ifdef SWINUP_HAVE_CUDA
#include "cuda/tools/cuda_tools.h"
#endif

namespace swinup {
namespace {

// Slots in their real ranges (model-spec.md, "Staging"), rounded to e4m3.
[[maybe_unused]] std::vector<float> make_staged(int w, int h, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> s(size_t(w) * h * kSlots);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float* p = &s[(size_t(y) * w + x) * kSlots];
            const float base = 1.5f + std::sin(0.3f * float(x)) * std::cos(0.2f * float(y));
            for (int c = 0; c < 3; ++c) p[c] = base + 0.5f * u(rng);
            for (int c = 3; c < 6; ++c) p[c] = base + 0.3f * u(rng);
            p[6] = 0.2f * u(rng) - 0.1f;
            p[7] = u(rng) < 0.1f ? 1.0f : 0.0f;
            p[8] = u(rng) - 0.5f;
            p[9] = u(rng) - 0.5f;
            p[10] = 0.2f * u(rng) - 0.1f;
            p[11] = 0.2f * u(rng) - 0.1f;
            for (int c = 12; c < 16; ++c) p[c] = 2.0f * u(rng) - 1.0f;
            for (int c = 0; c < kSlots; ++c) p[c] = round_to_e4m3(p[c]);
        }
    return s;
}

struct Case {
    Variant variant;
    swinup_precision precision;
    uint64_t frame;
    bool head_mlp = false;
};

// The seeded initial weights (the bounds below were measured with them), with the head MLP's
// tensors random (test::make_random_weights) when asked: weights_make_initial's fc3 is zero, which
// would leave the MLP's products unseen.
[[maybe_unused]] std::shared_ptr<const Weights> network_weights(Variant variant, bool head_mlp) {
    auto weights = std::make_shared<Weights>(weights_make_initial(variant, 1, head_mlp));
    if (head_mlp) {
        const auto random = test::make_random_weights(variant, 5, true);
        for (const auto& [name, t] : random->tensors)
            if (name.rfind("head_mlp.", 0) == 0) weights->tensors.at(name) = t;
    }
    return weights;
}

// Bounds on ||gpu - cpu|| / ||cpu|| per layer. Exact mode differs from the CPU only in the f32
// summation order of the tensor cores (then amplified by e4m3 rounding flips downstream); fast
// mode adds the MUFU approximations.
[[maybe_unused]] constexpr double kExactBound = 2e-2;
[[maybe_unused]] constexpr double kFastBound = 5e-2;

void compare_network(const Case& c) {
#ifdef SWINUP_HAVE_CUDA
    const int w = 64, h = 64;  // level 3 is 8 x 8 tokens: every window of a shifted block is masked
    const std::shared_ptr<const Weights> weights = network_weights(c.variant, c.head_mlp);
    const std::vector<float> staged = make_staged(w, h, 3);

    std::map<std::string, std::vector<float>> cpu_layers;
    cpu::Network cpu_net(weights, c.precision);
    cpu_net.set_layer_hook([&](const std::string& name, const float* d, int lw, int lh, int ch) {
        cpu_layers[name].assign(d, d + size_t(lw) * lh * ch);
    });
    std::vector<float> cpu_head(size_t(w) * h * kHeadOutputs);
    cpu_net.run(staged.data(), w, h, c.frame, cpu_head.data());

    std::vector<std::string> order;
    std::map<std::string, std::vector<float>> gpu_layers;
    const std::vector<float> gpu_head = cuda_tools::run_network(
        weights, c.precision, staged, w, h, c.frame,
        [&](const std::string& name, const float* d, int lw, int lh, int ch) {
            order.push_back(name);
            gpu_layers[name].assign(d, d + size_t(lw) * lh * ch);
        });

    const double bound = c.precision == SWINUP_PRECISION_EXACT ? kExactBound : kFastBound;
    std::printf("[ measured ] %s%s %s frame %d:", variant_name(c.variant), c.head_mlp ? " head_mlp" : "",
                c.precision == SWINUP_PRECISION_EXACT ? "exact" : "fast", int(c.frame));
    ASSERT_EQ(order.size(), cpu_layers.size()) << "the GPU reports a different set of layers";
    for (const std::string& name : order) {
        ASSERT_TRUE(cpu_layers.count(name)) << name;
        const auto& g = gpu_layers[name];
        const auto& r = cpu_layers[name];
        ASSERT_EQ(g.size(), r.size()) << name;
        const double err = gpu_test::relative_rms(g, r);
        std::printf(" %s %.2e", name.c_str(), err);
        EXPECT_LE(err, bound) << "layer " << name;
        for (float v : g) ASSERT_TRUE(std::isfinite(v)) << name;
    }
    const double head_err = gpu_test::relative_rms(gpu_head, cpu_head);
    std::printf(" (head outputs %.2e)\n", head_err);
    EXPECT_LE(head_err, bound);
#else
    (void)c;
#endif
}

TEST(CudaNetwork, LiteExactMatchesCpuEvenFrame) { SWINUP_REQUIRE_GPU(); compare_network({Variant::lite, SWINUP_PRECISION_EXACT, 0}); }
TEST(CudaNetwork, LiteExactMatchesCpuOddFrame) { SWINUP_REQUIRE_GPU(); compare_network({Variant::lite, SWINUP_PRECISION_EXACT, 1}); }
TEST(CudaNetwork, FullExactMatchesCpuEvenFrame) { SWINUP_REQUIRE_GPU(); compare_network({Variant::full, SWINUP_PRECISION_EXACT, 0}); }
TEST(CudaNetwork, FullExactMatchesCpuOddFrame) { SWINUP_REQUIRE_GPU(); compare_network({Variant::full, SWINUP_PRECISION_EXACT, 1}); }
TEST(CudaNetwork, LiteFastWithinBound) { SWINUP_REQUIRE_GPU(); compare_network({Variant::lite, SWINUP_PRECISION_FAST, 1}); }
TEST(CudaNetwork, FullFastWithinBound) { SWINUP_REQUIRE_GPU(); compare_network({Variant::full, SWINUP_PRECISION_FAST, 0}); }

// With the head MLP: lite's runs in its fused tail, full's in its fused head (head_fused.cuh).
TEST(CudaNetwork, LiteHeadMlpExactMatchesCpuEvenFrame) { SWINUP_REQUIRE_GPU(); compare_network({Variant::lite, SWINUP_PRECISION_EXACT, 0, true}); }
TEST(CudaNetwork, LiteHeadMlpExactMatchesCpuOddFrame) { SWINUP_REQUIRE_GPU(); compare_network({Variant::lite, SWINUP_PRECISION_EXACT, 1, true}); }
TEST(CudaNetwork, FullHeadMlpExactMatchesCpuEvenFrame) { SWINUP_REQUIRE_GPU(); compare_network({Variant::full, SWINUP_PRECISION_EXACT, 0, true}); }
TEST(CudaNetwork, FullHeadMlpExactMatchesCpuOddFrame) { SWINUP_REQUIRE_GPU(); compare_network({Variant::full, SWINUP_PRECISION_EXACT, 1, true}); }
TEST(CudaNetwork, LiteHeadMlpFastWithinBound) { SWINUP_REQUIRE_GPU(); compare_network({Variant::lite, SWINUP_PRECISION_FAST, 1, true}); }
TEST(CudaNetwork, FullHeadMlpFastWithinBound) { SWINUP_REQUIRE_GPU(); compare_network({Variant::full, SWINUP_PRECISION_FAST, 0, true}); }

// The same input twice gives the same bits (no atomics, no order that depends on scheduling).
TEST(CudaNetwork, RepeatedRunsAreByteIdentical) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    auto weights = std::make_shared<const Weights>(weights_make_initial(Variant::full, 2));
    const std::vector<float> staged = make_staged(96, 64, 9);
    const auto a = cuda_tools::run_network(weights, SWINUP_PRECISION_EXACT, staged, 96, 64, 1, {});
    const auto b = cuda_tools::run_network(weights, SWINUP_PRECISION_EXACT, staged, 96, 64, 1, {});
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
#endif
}

}  // namespace
}  // namespace swinup
