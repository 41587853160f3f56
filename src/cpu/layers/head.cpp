#include "cpu/layers/head.h"

#include <cstring>
#include <stdexcept>

#include "model/model_spec.h"
#include "cpu/layers/elementwise.h"
#include "cpu/layers/parallel.h"
#include "cpu/layers/rms_norm.h"
#include "cpu/layers/weights_access.h"

namespace swinup::cpu {

Head Head::from_weights(const Weights& weights, int channels) {
    Head h;
    h.gain = f32_vector(tensor_checked(weights, "head.norm.gain", DType::f32, {channels}));
    h.linear = Linear::from_weights(weights, "head.linear", channels, kHeadOutputs);
    h.has_mlp = weights.config.head_mlp;
    if (h.has_mlp) {
        if (channels + kSlots != kHeadMlpInputs)
            throw std::invalid_argument("head: the head MLP reads 32 channels and the 16 slots");
        h.mlp_fc1 = Linear::from_weights(weights, "head_mlp.fc1", kHeadMlpInputs, kHeadMlpHidden);
        h.mlp_fc2 = Linear::from_weights(weights, "head_mlp.fc2", kHeadMlpHidden, kHeadMlpHidden);
        h.mlp_fc3 = Linear::from_weights(weights, "head_mlp.fc3", kHeadMlpHidden, kHeadMlpOutputs);
    }
    return h;
}

namespace {
struct ScratchHeadNormed {};
struct ScratchHeadMlpIn {};
struct ScratchHeadMlpHidden1 {};
struct ScratchHeadMlpHidden2 {};
struct ScratchHeadMlpOut {};

// y[p][0..7] += fc3(e4m3(relu(fc2(e4m3(relu(fc1([normed_p, slots_p]))))))[p], one f32 add each.
void head_mlp_tokens(const Head& head, const float* normed, const float* slots, int count, float* y) {
    const int c = head.linear.in;
    float* in = thread_scratch<ScratchHeadMlpIn>(size_t(count) * kHeadMlpInputs);
    for (int p = 0; p < count; ++p) {
        std::memcpy(in + size_t(p) * kHeadMlpInputs, normed + size_t(p) * c, sizeof(float) * c);
        std::memcpy(in + size_t(p) * kHeadMlpInputs + c, slots + size_t(p) * kSlots, sizeof(float) * kSlots);
    }
    float* h1 = thread_scratch<ScratchHeadMlpHidden1>(size_t(count) * kHeadMlpHidden);
    linear(head.mlp_fc1, in, count, h1);
    relu_to_e4m3(h1, size_t(count) * kHeadMlpHidden);
    float* h2 = thread_scratch<ScratchHeadMlpHidden2>(size_t(count) * kHeadMlpHidden);
    linear(head.mlp_fc2, h1, count, h2);
    relu_to_e4m3(h2, size_t(count) * kHeadMlpHidden);
    float* added = thread_scratch<ScratchHeadMlpOut>(size_t(count) * kHeadMlpOutputs);
    linear(head.mlp_fc3, h2, count, added);
    for (int p = 0; p < count; ++p)
        for (int k = 0; k < kHeadMlpOutputs; ++k)
            y[size_t(p) * kHeadOutputs + k] += added[size_t(p) * kHeadMlpOutputs + k];
}
}  // namespace

void head_tokens(const Head& head, const float* x, const float* slots, int count, float* y) {
    const int c = head.linear.in;
    float* normed = thread_scratch<ScratchHeadNormed>(size_t(count) * c);
    rms_norm_e4m3(x, count, c, head.gain.data(), normed);
    linear(head.linear, normed, count, y);
    if (head.has_mlp) head_mlp_tokens(head, normed, slots, count, y);
}

}  // namespace swinup::cpu
