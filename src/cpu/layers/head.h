// The head (docs/model-spec.md): RMSNorm -> e4m3 -> linear C -> 16, raw f32 outputs per pixel
// (the output pass applies tanh / sigmoid / exp2 itself).
#pragma once

#include <vector>

#include "core/weights.h"
#include "cpu/layers/linear.h"

namespace swinup::cpu {

struct Head {
    std::vector<float> gain;  // C
    Linear linear;            // C -> kHeadOutputs

    static Head from_weights(const Weights& weights, int channels);
};

// x: count x C f16 tokens; y: count x 16 f32 outputs. Single-threaded.
void head_tokens(const Head& head, const float* x, int count, float* y);

}  // namespace swinup::cpu
