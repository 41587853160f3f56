// The Vulkan network against the CPU network (cpu::Network), layer by layer, for both variants,
// both window-shift parities, without and with the head MLP, with masks (weights with mask_embed), on the 64x64 render grid (level 3 is
// 8 x 8 tokens: every window of a shifted block there is masked), with the Khronos validation
// layer on (any message fails the test).
// Bounds: exact mode gives the CPU's bits in every layer (zero differing values): the GEMMs and
// attention sum their products in the CPU's order and the exact formulas are the C++ ones. That
// is tighter than the CPU-vs-CUDA exact bound (relative RMS 2e-2 per layer,
// tests/cuda/test_cuda_network.cpp kExactBound). Fast mode is held to the CUDA fast bound, 5e-2
// per layer (kFastBound); the measured values are printed on `[ measured ]` lines.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu/network.h"
#include "gpu_test_support.h"
#include "model/model_spec.h"
#include "numeric/e4m3.h"
#include "network_test_weights.h"
#include "vulkan/backend/network_vulkan.h"
#include "vulkan/runtime/recorder.h"
#include "vulkan_layer_test_support.h"
#include "vulkan_test_support.h"

namespace swinup {
namespace {

constexpr double kFastBound = 5e-2;

struct Case {
    Variant variant;
    swinup_precision precision;
    uint64_t frame;
    bool head_mlp = false;
    bool masks = false;  // weights with mask_embed, run with masks
};

std::string case_text(const Case& c) {
    return std::string(c.variant == Variant::lite ? "Lite" : "Full") + (c.head_mlp ? "HeadMlp" : "") +
           (c.masks ? "Masks" : "") +
           (c.precision == SWINUP_PRECISION_EXACT ? "Exact" : "Fast") + "Frame" + std::to_string(c.frame);
}

// gtest prints the parameter with this (ctest's test names) instead of its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << case_text(c); }

// A padded grid's staged masks (w x h x 2, e4m3 values in [0, 1] as staging makes them) and the
// same packed as frame/mask_tokens.comp packs them for mask_embed: lite, per level-1 token its 2x2
// pixels' pairs in quadrant order (8 codes); full, per pixel (r, t, 0, 0).
struct TestMasks {
    std::vector<float> plane;
    std::vector<uint8_t> tokens;
};

TestMasks random_masks(Variant variant, int w, int h, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    TestMasks m;
    m.plane.resize(size_t(w) * h * kMaskInputs);
    for (float& v : m.plane) {
        const uint32_t kind = static_cast<uint32_t>(rng() % 4);
        v = kind == 0 ? 0.0f : kind == 1 ? 1.0f : round_to_e4m3(unit(rng));
    }
    const auto code = [&](int x, int y, int k) {
        return f32_to_e4m3(m.plane[(size_t(y) * size_t(w) + size_t(x)) * kMaskInputs + size_t(k)]);
    };
    if (variant == Variant::lite) {
        for (int ty = 0; ty < h / 2; ++ty)
            for (int tx = 0; tx < w / 2; ++tx)
                for (int q = 0; q < 4; ++q)
                    for (int k = 0; k < kMaskInputs; ++k) m.tokens.push_back(code(2 * tx + (q & 1), 2 * ty + (q >> 1), k));
    } else {
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) m.tokens.insert(m.tokens.end(), {code(x, y, 0), code(x, y, 1), 0, 0});
    }
    return m;
}

void compare_network(vulkan::Device& device, const Case& c, int w = 64, int h = 64) {
    const std::shared_ptr<const Weights> weights = test::make_random_weights(c.variant, 5, c.head_mlp, c.masks);
    const TestMasks masks = c.masks ? random_masks(c.variant, w, h, 11) : TestMasks{};
    // Slots in [-1.5, 1.5): the staged ranges (model-spec.md "Staging") after e4m3 rounding.
    const std::vector<float> staged = test::random_staged(w, h, 3, -1.5f, 1.5f);

    std::vector<std::pair<std::string, std::vector<float>>> cpu_layers;
    cpu::Network cpu_net(weights, c.precision);
    cpu_net.set_layer_hook([&](const std::string& name, const float* d, int lw, int lh, int ch) {
        cpu_layers.emplace_back(name, std::vector<float>(d, d + size_t(lw) * lh * ch));
    });
    std::vector<float> cpu_head(size_t(w) * h * kHeadOutputs);
    cpu_net.run(staged.data(), w, h, c.frame, cpu_head.data(), c.masks ? masks.plane.data() : nullptr);

    vulkan::VulkanNetwork net(device, weights, c.precision, w, h);
    std::printf("[ grid     ] %dx%d\n", w, h);
    net.set_layer_snapshots(true);
    const std::vector<uint8_t> staged_bytes = vulkan_test::to_e4m3(staged);
    vulkan::Buffer staged_buf = vulkan_test::host_buffer(device, staged_bytes.data(), staged_bytes.size());
    vulkan::Buffer head_buf = vulkan_test::host_buffer(device, nullptr, cpu_head.size() * 4);
    vulkan::Buffer mask_buf;
    if (c.masks) mask_buf = vulkan_test::host_buffer(device, masks.tokens.data(), masks.tokens.size());
    {
        vulkan::HostSubmitter submitter(device);
        vulkan::Recorder& rec = submitter.begin();
        net.record(rec, vulkan_test::view(staged_buf), w, h, c.frame, vulkan_test::view(head_buf),
                   c.masks ? vulkan_test::view(mask_buf) : vulkan::BufferView{});
        rec.barrier(true);
        submitter.submit_and_wait();
    }
    const std::vector<float> head = vulkan_test::read_f32(head_buf, cpu_head.size());
    const std::vector<vulkan::VulkanNetwork::LayerOutput> layers = net.layer_outputs();

    const bool exact = c.precision == SWINUP_PRECISION_EXACT;
    std::printf("[ measured ] %s%s %s frame %d (differing values / relative RMS):", variant_name(c.variant),
                c.head_mlp ? " head_mlp" : "", exact ? "exact" : "fast", int(c.frame));
    ASSERT_EQ(layers.size(), cpu_layers.size()) << "the Vulkan network reports a different list of layers";
    for (size_t i = 0; i < layers.size(); ++i) {
        const auto& [name, ref] = cpu_layers[i];
        const vulkan::VulkanNetwork::LayerOutput& got = layers[i];
        ASSERT_EQ(got.name, name) << "layer " << i;
        ASSERT_EQ(got.values.size(), ref.size()) << name;
        const size_t diff = vulkan_test::bit_differences(got.values, ref);
        const double err = gpu_test::relative_rms(got.values, ref);
        std::printf(" %s %zu/%.2e", name.c_str(), diff, err);
        if (exact) EXPECT_EQ(diff, 0u) << "layer " << name;
        else EXPECT_LE(err, kFastBound) << "layer " << name;
        for (float v : got.values) ASSERT_TRUE(std::isfinite(v)) << name;
    }
    const size_t head_diff = vulkan_test::bit_differences(head, cpu_head);
    const double head_err = gpu_test::relative_rms(head, cpu_head);
    std::printf(" (head outputs %zu/%.2e)\n", head_diff, head_err);
    if (exact) EXPECT_EQ(head_diff, 0u);
    else EXPECT_LE(head_err, kFastBound);
}

// The shared device (vulkan_test_support.h: skipped without one, failed on any validation message).
class VulkanNetwork : public vulkan::testing::VulkanTest, public ::testing::WithParamInterface<Case> {};

TEST_P(VulkanNetwork, MatchesCpuNetwork) { compare_network(device(), GetParam()); }

std::string case_name(const ::testing::TestParamInfo<Case>& p) { return case_text(p.param); }

INSTANTIATE_TEST_SUITE_P(
    Variants, VulkanNetwork,
    ::testing::Values(Case{Variant::lite, SWINUP_PRECISION_EXACT, 0}, Case{Variant::lite, SWINUP_PRECISION_EXACT, 1},
                      Case{Variant::full, SWINUP_PRECISION_EXACT, 0}, Case{Variant::full, SWINUP_PRECISION_EXACT, 1},
                      Case{Variant::lite, SWINUP_PRECISION_FAST, 1}, Case{Variant::full, SWINUP_PRECISION_FAST, 0},
                      Case{Variant::lite, SWINUP_PRECISION_EXACT, 1, true},
                      Case{Variant::full, SWINUP_PRECISION_EXACT, 0, true},
                      Case{Variant::lite, SWINUP_PRECISION_FAST, 0, true},
                      Case{Variant::lite, SWINUP_PRECISION_EXACT, 1, false, true},
                      Case{Variant::full, SWINUP_PRECISION_EXACT, 0, false, true}),
    case_name);

// A grid smaller than the network's maximum (the activations are sized for the maximum) and an
// invalid grid: the error names the size.
using VulkanNetworkGrid = vulkan::testing::VulkanTest;

// A grid that is not square: level 3 is 12 x 8 tokens, so the shifted windows wrap differently
// along x and y.
TEST_F(VulkanNetworkGrid, NonSquareGridMatchesCpu) {
    compare_network(device(), {Variant::full, SWINUP_PRECISION_EXACT, 1, true}, 96, 64);
}

// The layer marker brackets every layer, in the order and with the names of the layer outputs,
// on the recorder the network records into.
TEST_F(VulkanNetworkGrid, LayerMarkerBracketsEveryLayerInOrder) {
    const std::shared_ptr<const Weights> weights = test::make_random_weights(Variant::full, 10, false);
    vulkan::VulkanNetwork net(device(), weights, SWINUP_PRECISION_FAST, 64, 64);
    net.set_layer_snapshots(true);
    std::vector<std::string> events;
    vulkan::Recorder* seen = nullptr;
    net.set_layer_marker([&](const std::string& layer, bool begin, vulkan::Recorder& rec) {
        events.push_back((begin ? "+" : "-") + layer);
        seen = &rec;
    });
    const std::vector<uint8_t> staged = vulkan_test::to_e4m3(test::random_staged(64, 64, 5, -1.5f, 1.5f));
    vulkan::Buffer staged_buf = vulkan_test::host_buffer(device(), staged.data(), staged.size());
    vulkan::Buffer head_buf = vulkan_test::host_buffer(device(), nullptr, size_t(64) * 64 * kHeadOutputs * 4);
    vulkan::HostSubmitter submitter(device());
    vulkan::Recorder& rec = submitter.begin();
    net.record(rec, vulkan_test::view(staged_buf), 64, 64, 0, vulkan_test::view(head_buf));
    rec.barrier(true);
    submitter.submit_and_wait();
    EXPECT_EQ(seen, &rec);
    std::vector<std::string> expected;
    for (const auto& layer : net.layer_outputs()) {
        expected.push_back("+" + layer.name);
        expected.push_back("-" + layer.name);
    }
    EXPECT_EQ(expected.size(), 2 * (weights->config.blocks().size() + 9));  // blocks, embed0/1, 3 merges, 3 expands, head
    EXPECT_EQ(events, expected);
}

// Weights without a tensor the network reads: an error naming it, at create.
TEST_F(VulkanNetworkGrid, MissingTensorIsNamed) {
    auto weights = test::make_random_weights(Variant::lite, 9, false);
    weights->tensors.erase("dec2.fc1.weight");
    try {
        vulkan::VulkanNetwork net(device(), weights, SWINUP_PRECISION_EXACT, 64, 64);
        ADD_FAILURE() << "weights without dec2.fc1.weight were accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("dec2.fc1.weight"), std::string::npos) << e.what();
    }
}

TEST_F(VulkanNetworkGrid, SmallerGridMatchesAndBadGridIsRefused) {
    vulkan::Device& dev = device();
    const std::shared_ptr<const Weights> weights = test::make_random_weights(Variant::lite, 8, false);
    vulkan::VulkanNetwork net(dev, weights, SWINUP_PRECISION_EXACT, 96, 64);
    const int w = 64, h = 32;
    const std::vector<float> staged = test::random_staged(w, h, 4, -1.5f, 1.5f);
    std::vector<float> cpu_head(size_t(w) * h * kHeadOutputs);
    cpu::Network(weights, SWINUP_PRECISION_EXACT).run(staged.data(), w, h, 3, cpu_head.data());
    const std::vector<uint8_t> staged_bytes = vulkan_test::to_e4m3(staged);
    vulkan::Buffer staged_buf = vulkan_test::host_buffer(dev, staged_bytes.data(), staged_bytes.size());
    vulkan::Buffer head_buf = vulkan_test::host_buffer(dev, nullptr, cpu_head.size() * 4);
    vulkan::HostSubmitter submitter(dev);
    vulkan::Recorder& rec = submitter.begin();
    try {
        net.record(rec, vulkan_test::view(staged_buf), 128, 64, 0, vulkan_test::view(head_buf));
        ADD_FAILURE() << "a grid beyond the maximum was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("128x64"), std::string::npos) << e.what();
    }
    net.record(rec, vulkan_test::view(staged_buf), w, h, 3, vulkan_test::view(head_buf));
    rec.barrier(true);
    submitter.submit_and_wait();
    EXPECT_EQ(vulkan_test::bit_differences(vulkan_test::read_f32(head_buf, cpu_head.size()), cpu_head), 0u);
}

}  // namespace
}  // namespace swinup
