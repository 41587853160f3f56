#include "cpu/layers/linear.h"

#include <stdexcept>

#include "numeric/e4m3.h"
#include "cpu/layers/weights_access.h"

namespace swinup::cpu {

Linear Linear::from_weights(const Weights& weights, const std::string& name, int in, int out) {
    Linear layer;
    layer.in = in;
    layer.out = out;
    const Tensor& w = tensor_checked(weights, name + ".weight", DType::f8_e4m3, {out, in});
    std::vector<float> decoded(size_t(out) * in);
    for (size_t i = 0; i < decoded.size(); ++i) decoded[i] = e4m3_to_f32(w.e4m3()[i]);
    layer.weight = pack_matrix(decoded.data(), in, out);
    layer.scale = f32_vector(tensor_checked(weights, name + ".scale", DType::f32, {out}));
    layer.bias = f32_vector(tensor_checked(weights, name + ".bias", DType::f32, {out}));
    return layer;
}

void linear(const Linear& layer, const float* x, int rows, float* y) {
    matmul(layer.weight, x, rows, y);

    const float* scale = layer.scale.data();
    const float* bias = layer.bias.data();
    for (int r = 0; r < rows; ++r) {
        float* row = y + size_t(r) * layer.out;
        for (int o = 0; o < layer.out; ++o) {
            const float t = row[o] * scale[o];  // -ffp-contract=off: two roundings, as specified
            row[o] = t + bias[o];
        }
    }
}

}  // namespace swinup::cpu
