// The head (docs/model-spec.md): RMSNorm -> e4m3 -> linear C -> 16, raw f32 outputs per pixel
// (the output pass applies tanh / sigmoid / exp2 itself), and, when the weights have it, the head
// MLP ("The head MLP"): [normalised, staged slots] -> fc1 -> ReLU -> e4m3 -> fc2 -> ReLU -> e4m3
// -> fc3, added to outputs 0-7.
#pragma once

#include <vector>

#include "model/weights.h"
#include "cpu/layers/linear.h"

namespace swinup::cpu {

struct Head {
    std::vector<float> gain;  // C
    Linear linear;            // C -> kHeadOutputs
    bool has_mlp = false;
    Linear mlp_fc1, mlp_fc2, mlp_fc3;  // 48 -> 64 -> 64 -> 8 (when has_mlp)

    static Head from_weights(const Weights& weights, int channels);
    size_t heap_bytes() const {
        return gain.capacity() * sizeof(float) + linear.heap_bytes() + mlp_fc1.heap_bytes() + mlp_fc2.heap_bytes() +
               mlp_fc3.heap_bytes();
    }
};

// x: count x C f16 tokens; slots: count x kSlots staged e4m3 values of the same pixels (read by
// the head MLP only); y: count x 16 f32 outputs. Single-threaded.
void head_tokens(const Head& head, const float* x, const float* slots, int count, float* y);

}  // namespace swinup::cpu
