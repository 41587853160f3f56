// The linear layer of docs/model-spec.md: y[o] = scale[o] * sum_k(w[o,k] * x[k]) + bias[o], with
// e4m3 inputs and weights, the sum in f32 (each e4m3 x e4m3 product is exact in f32) in k order
// (cpu/layers/matmul.h), then the scale and the bias as two separate roundings (t = acc * scale;
// y = t + bias; never an fma).
#pragma once

#include <string>
#include <vector>

#include "cpu/layers/matmul.h"
#include "model/weights.h"

namespace swinup::cpu {

struct Linear {
    int in = 0;
    int out = 0;
    PackedMatrix weight;        // the decoded e4m3 codes (exact), packed for matmul()
    std::vector<float> scale;   // out
    std::vector<float> bias;    // out

    // Decodes `<name>.weight`, `.scale` and `.bias`; throws std::invalid_argument naming the
    // tensor when one is missing or its shape is not [out, in] / [out].
    static Linear from_weights(const Weights& weights, const std::string& name, int in, int out);
};

// x: rows x layer.in floats (e4m3 values, row-major); y: rows x layer.out f32 outputs.
// Single-threaded: callers split the rows into fixed blocks, so that the bits of a row never
// depend on how the work was shared between threads.
void linear(const Linear& layer, const float* x, int rows, float* y);

}  // namespace swinup::cpu
