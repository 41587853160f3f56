// The whole CPU network on a small grid: finite, deterministic (run to run and across thread
// counts), every layer reported with the shapes of docs/model-spec.md, shifts driven by the frame.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "numeric/e4m3.h"
#include "cpu/network.h"
#include "network_test_weights.h"

namespace swinup {
namespace {

constexpr int kW = 64, kH = 64;

std::vector<float> random_staged(int w, int h, uint32_t seed) { return test::random_staged(w, h, seed, -2.0f, 2.0f); }

std::vector<float> run_network(cpu::Network& net, const std::vector<float>& staged, uint64_t frame,
                               int threads) {
    std::vector<float> head(size_t(kW) * kH * kHeadOutputs, -12345.0f);
    // Allow more threads than cores, so that 3 really means 3 (a different sharing of the blocks).
    tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 4);
    tbb::task_arena arena(threads);
    arena.execute([&] { net.run(staged.data(), kW, kH, frame, head.data()); });
    return head;
}

bool same_bytes(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class NetworkTest : public ::testing::TestWithParam<Variant> {};

TEST_P(NetworkTest, FiniteAndDeterministicAcrossRunsAndThreadCounts) {
    cpu::Network net(test::make_random_weights(GetParam(), 21), SWINUP_PRECISION_EXACT);
    const std::vector<float> staged = random_staged(kW, kH, 4);
    const std::vector<float> a = run_network(net, staged, 0, 2);
    for (float v : a) ASSERT_TRUE(std::isfinite(v));
    float spread = 0;
    for (float v : a) spread = std::max(spread, std::fabs(v - a[0]));
    EXPECT_GT(spread, 0.0f) << "outputs should depend on the input";
    EXPECT_TRUE(same_bytes(a, run_network(net, staged, 0, 2)));
    EXPECT_TRUE(same_bytes(a, run_network(net, staged, 0, 1)));
    EXPECT_TRUE(same_bytes(a, run_network(net, staged, 0, 3)));
    // A second Network from the same weights gives the same bits (no hidden state).
    cpu::Network other(test::make_random_weights(GetParam(), 21), SWINUP_PRECISION_EXACT);
    EXPECT_TRUE(same_bytes(a, run_network(other, staged, 0, 2)));
}

TEST_P(NetworkTest, FrameParityFlipsTheShifts) {
    cpu::Network net(test::make_random_weights(GetParam(), 22), SWINUP_PRECISION_EXACT);
    const std::vector<float> staged = random_staged(kW, kH, 5);
    const std::vector<float> even = run_network(net, staged, 0, 2);
    EXPECT_TRUE(same_bytes(even, run_network(net, staged, 2, 2)));  // only the parity matters
    EXPECT_FALSE(same_bytes(even, run_network(net, staged, 1, 2)));
}

struct Reported {
    std::string name;
    int w, h, c;
};

TEST_P(NetworkTest, HookReportsEveryLayerWithItsShape) {
    const Variant v = GetParam();
    cpu::Network net(test::make_random_weights(v, 23), SWINUP_PRECISION_EXACT);
    std::vector<Reported> got;
    std::vector<float> last_head;
    net.set_layer_hook([&](const std::string& layer, const float* data, int w, int h, int c) {
        for (size_t i = 0; i < size_t(w) * h * c; ++i) ASSERT_TRUE(std::isfinite(data[i])) << layer;
        got.push_back({layer, w, h, c});
        if (layer == "head") last_head.assign(data, data + size_t(w) * h * c);
    });
    const std::vector<float> head = run_network(net, random_staged(kW, kH, 6), 0, 2);

    // docs/model-spec.md, "Layers, in execution order".
    const int w1 = kW / 2, h1 = kH / 2, w2 = kW / 4, h2 = kH / 4, w3 = kW / 8, h3 = kH / 8;
    std::vector<Reported> want;
    if (v == Variant::lite) {
        want.push_back({"embed", w1, h1, 64});
    } else {
        want.push_back({"embed0", kW, kH, 32});
        want.push_back({"embed1", kW, kH, 32});
        want.push_back({"enc0", kW, kH, 32});
        want.push_back({"merge0", w1, h1, 64});
    }
    want.push_back({"enc1", w1, h1, 64});
    want.push_back({"merge1", w2, h2, 96});
    want.push_back({"enc2", w2, h2, 96});
    want.push_back({"merge2", w3, h3, 128});
    for (int i = 0; i < 4; ++i) want.push_back({"tube" + std::to_string(i), w3, h3, 128});
    want.push_back({"expand2", w2, h2, 96});
    want.push_back({"dec2", w2, h2, 96});
    want.push_back({"expand1", w1, h1, 64});
    want.push_back({"dec1", w1, h1, 64});
    want.push_back({"expand0", kW, kH, 32});
    if (v == Variant::full) want.push_back({"dec0", kW, kH, 32});
    want.push_back({"head", kW, kH, 16});

    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].name, want[i].name) << i;
        EXPECT_EQ(got[i].w, want[i].w) << want[i].name;
        EXPECT_EQ(got[i].h, want[i].h) << want[i].name;
        EXPECT_EQ(got[i].c, want[i].c) << want[i].name;
    }
    EXPECT_TRUE(same_bytes(last_head, head)) << "the hook's head is the network's output";
}

TEST_P(NetworkTest, RejectsGridsThatAreNotPadded) {
    cpu::Network net(test::make_random_weights(GetParam(), 24), SWINUP_PRECISION_EXACT);
    std::vector<float> staged(size_t(48) * 64 * kSlots, 0.0f), head(size_t(48) * 64 * kHeadOutputs);
    EXPECT_THROW(net.run(staged.data(), 48, 64, 0, head.data()), std::invalid_argument);
    EXPECT_THROW(net.run(staged.data(), 0, 64, 0, head.data()), std::invalid_argument);
}

TEST(Network, RejectsWeightsWithAMissingTensor) {
    auto weights = test::make_random_weights(Variant::lite, 25);
    weights->tensors.erase("enc2.fc1.scale");
    try {
        cpu::Network net(weights, SWINUP_PRECISION_EXACT);
        FAIL() << "expected an exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("enc2.fc1.scale"), std::string::npos) << e.what();
    }
}

// The head MLP (docs/model-spec.md, "The head MLP") changes head outputs 0-7 and leaves 8-15 to
// head.linear bit for bit; the weights below share every other tensor (make_random_weights draws
// the head MLP's last), so the difference is the MLP's alone. It reads the staged slots too.
TEST_P(NetworkTest, HeadMlpChangesOutputs0To7Only) {
    auto with_mlp = test::make_random_weights(GetParam(), 26, true);
    auto without = std::make_shared<Weights>(*with_mlp);
    without->config.head_mlp = false;
    for (const char* layer : {"head_mlp.fc1", "head_mlp.fc2", "head_mlp.fc3"})
        for (const char* part : {".weight", ".scale", ".bias"}) without->tensors.erase(std::string(layer) + part);
    ASSERT_EQ(without->tensors.size(), model_tensors(without->config).size());
    cpu::Network net_mlp(with_mlp, SWINUP_PRECISION_EXACT), net_plain(without, SWINUP_PRECISION_EXACT);
    const std::vector<float> staged = random_staged(kW, kH, 7);
    const std::vector<float> a = run_network(net_mlp, staged, 1, 2), b = run_network(net_plain, staged, 1, 2);
    size_t changed = 0;
    for (size_t p = 0; p < size_t(kW) * kH; ++p) {
        for (int k = 0; k < kHeadOutputs; ++k) {
            const float x = a[p * kHeadOutputs + k], y = b[p * kHeadOutputs + k];
            if (k >= kHeadMlpOutputs) {
                ASSERT_EQ(std::memcmp(&x, &y, sizeof(float)), 0) << "pixel " << p << " output " << k;
            } else if (x != y) {
                ++changed;
            }
        }
    }
    EXPECT_GT(changed, size_t(kW) * kH * kHeadMlpOutputs * 9 / 10);
    // A change of the slots alone reaches outputs 0-7 of the pixel through the MLP's own input.
    std::vector<float> other = staged;
    other[5 * kSlots + 0] = round_to_e4m3(other[5 * kSlots + 0] + 1.0f);
    EXPECT_FALSE(same_bytes(run_network(net_mlp, other, 1, 2), a));
}

std::string variant_test_name(const ::testing::TestParamInfo<Variant>& param) {
    return variant_name(param.param);
}
INSTANTIATE_TEST_SUITE_P(Variants, NetworkTest, ::testing::Values(Variant::lite, Variant::full),
                         variant_test_name);

}  // namespace
}  // namespace swinup
