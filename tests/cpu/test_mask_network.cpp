// The masks in the network (weights format 5, docs/masks.md): mask_embed's output is added to the
// first layer's f32 output (lite embed, full embed0); a frame without masks gets mask_embed(0),
// its bias. The shipped weights' mask_embed bias is zero, so without masks they give exactly the
// frames of the same network without the layer; with masks both trained layers (2026-12-05) act.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu/network.h"
#include "model/weights.h"
#include "network_test_weights.h"
#include "numeric/e4m3.h"
#include "pipeline_fixture.h"

namespace swinup {
namespace {

constexpr int kW = 64, kH = 32;

std::vector<float> head_of(const std::shared_ptr<const Weights>& weights, const std::vector<float>& staged,
                           const float* masks) {
    cpu::Network net(weights, SWINUP_PRECISION_EXACT);
    std::vector<float> head(size_t(kW) * kH * kHeadOutputs);
    net.run(staged.data(), kW, kH, 1, head.data(), masks);
    return head;
}

bool same_bytes(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The same weights without mask_embed: the network of weights format 4.
std::shared_ptr<Weights> without_mask_embed(const Weights& w) {
    auto out = std::make_shared<Weights>(w);
    out->config.masks = false;
    for (const char* t : {"mask_embed.weight", "mask_embed.scale", "mask_embed.bias"}) out->tensors.erase(t);
    return out;
}

class MaskNetwork : public ::testing::TestWithParam<Variant> {};

TEST_P(MaskNetwork, AbsentMasksAddTheBiasAndMasksChangeTheHead) {
    const std::shared_ptr<const Weights> weights = test::make_random_weights(GetParam(), 21, false, true);
    const std::vector<float> staged = test::random_staged(kW, kH, 4, -2.0f, 2.0f);
    std::vector<float> zeros(size_t(kW) * kH * 2, 0.0f), masks(size_t(kW) * kH * 2);
    std::mt19937 rng(9);
    for (float& m : masks) m = round_to_e4m3(std::uniform_real_distribution<float>(0.0f, 1.0f)(rng));

    const std::vector<float> absent = head_of(weights, staged, nullptr);
    // mask_embed(0) = its bias: absent masks are masks of zero (random biases are never 0, so the
    // sign of a zero cannot differ).
    EXPECT_TRUE(same_bytes(absent, head_of(weights, staged, zeros.data())));
    // The bias does act: the network without the layer computes something else.
    EXPECT_FALSE(same_bytes(absent, head_of(without_mask_embed(*weights), staged, nullptr)));
    // And so do the masks.
    EXPECT_FALSE(same_bytes(absent, head_of(weights, staged, masks.data())));
    // Deterministic with masks, as without.
    EXPECT_TRUE(same_bytes(head_of(weights, staged, masks.data()), head_of(weights, staged, masks.data())));

    // A zero mask_embed (the shipped weights' start) is the network without the layer, masks or not.
    auto zeroed = std::make_shared<Weights>(*weights);
    for (uint8_t& code : zeroed->tensors.at("mask_embed.weight").bytes) code = 0;
    std::memset(zeroed->tensors.at("mask_embed.bias").bytes.data(), 0, zeroed->tensors.at("mask_embed.bias").bytes.size());
    const std::vector<float> plain = head_of(without_mask_embed(*weights), staged, nullptr);
    EXPECT_TRUE(same_bytes(plain, head_of(zeroed, staged, nullptr)));
    EXPECT_TRUE(same_bytes(plain, head_of(zeroed, staged, masks.data())));
}

INSTANTIATE_TEST_SUITE_P(Variants, MaskNetwork, ::testing::Values(Variant::lite, Variant::full),
                         [](const ::testing::TestParamInfo<Variant>& p) { return std::string(variant_name(p.param)); });

// The shipped weights became format 5 with a zero mask_embed (2026-12-05); both variants' weight
// was then trained on masked sequences, its bias kept zero. Every frame through the C API without
// masks is byte for byte the frame of the same weights without the layer (format 4's network);
// with masks the trained layer changes the frames.
TEST(ShippedWeights, WithoutMasksFormat5GivesTheFramesOfTheNetworkWithoutMaskEmbed) {
    for (Variant v : {Variant::lite, Variant::full}) {
        std::string error;
        const std::shared_ptr<const Weights> shipped = weights_load_embedded(v, &error);
        ASSERT_TRUE(shipped) << error;
        ASSERT_TRUE(shipped->config.masks) << variant_name(v) << ": the shipped weights are format 5";
        ASSERT_TRUE(mask_embed_absent_is_zero(*shipped));
        size_t nonzero_codes = 0;
        for (uint8_t code : shipped->at("mask_embed.weight").bytes) nonzero_codes += (code & 0x7f) != 0;
        ASSERT_GT(nonzero_codes, 0u) << variant_name(v) << "'s shipped mask_embed is the trained one";
        const std::vector<uint8_t> format4 = weights_serialize(*without_mask_embed(*shipped));
        const std::vector<float> reactive(32 * 32, 0.375f), transparency(32 * 32, 0.75f);
        for (bool with_masks : {false, true}) {
            std::vector<std::vector<uint8_t>> frames[2];
            for (int which = 0; which < 2; ++which) {
                swinup_context_desc cd = test::small_context_desc(32, 32, 64, 64);
                cd.variant = v == Variant::full ? SWINUP_VARIANT_FULL : SWINUP_VARIANT_LITE;
                if (which == 1) {
                    cd.weights_source = SWINUP_WEIGHTS_MEMORY;
                    cd.weights_data = format4.data();
                    cd.weights_size = format4.size();
                }
                test::ContextHandle ctx(cd);
                test::FrameData f(32, 32, 64, 64);
                for (uint32_t i = 0; i < 3; ++i) {
                    swinup_dispatch_desc d = test::moving_frame(f, i);
                    if (with_masks) {
                        d.reactive_mask = input_resource(reactive.data(), SWINUP_FORMAT_R32F, 32, 32);
                        d.transparency_mask = input_resource(transparency.data(), SWINUP_FORMAT_R32F, 32, 32);
                    }
                    ASSERT_EQ(swinup_dispatch(ctx.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx.ctx);
                    frames[which].push_back(f.output);
                }
            }
            if (with_masks) {
                EXPECT_NE(frames[0], frames[1]) << variant_name(v) << "'s trained mask_embed changes nothing with masks";
                continue;
            }
            for (size_t i = 0; i < frames[0].size(); ++i)
                EXPECT_EQ(frames[0][i], frames[1][i]) << variant_name(v) << " frame " << i << (with_masks ? " with masks" : "");
        }
    }
}

}  // namespace
}  // namespace swinup
