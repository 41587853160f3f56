#include "cpu/layers/linear.h"

#include <stdexcept>

// Eigen does the f32 matrix product; its threading stays off (TBB shares the work by row blocks).
#define EIGEN_DONT_PARALLELIZE
// GCC 12 reports false "may be used uninitialized" warnings inside Eigen's AVX-512 packet code,
// and Eigen 3.4's AVX code has an unused variable: warnings about Eigen, not about this file.
#pragma GCC diagnostic push
#if defined(__GNUC__) && !defined(__clang__)  // clang has no such warning
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wunused-variable"
#include <Eigen/Core>
#pragma GCC diagnostic pop

#include "numeric/e4m3.h"
#include "cpu/layers/weights_access.h"

namespace swinup::cpu {

Linear Linear::from_weights(const Weights& weights, const std::string& name, int in, int out) {
    Linear layer;
    layer.in = in;
    layer.out = out;
    const Tensor& w = tensor_checked(weights, name + ".weight", DType::f8_e4m3, {out, in});
    layer.weight.resize(size_t(out) * in);
    for (size_t i = 0; i < layer.weight.size(); ++i) layer.weight[i] = e4m3_to_f32(w.e4m3()[i]);
    layer.scale = f32_vector(tensor_checked(weights, name + ".scale", DType::f32, {out}));
    layer.bias = f32_vector(tensor_checked(weights, name + ".bias", DType::f32, {out}));
    return layer;
}

void linear(const Linear& layer, const float* x, int rows, float* y) {
    using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using ColMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
    const Eigen::Map<const RowMajor> input(x, rows, layer.in);
    // weight is out x in row-major, i.e. the in x out column-major matrix that input multiplies.
    const Eigen::Map<const ColMajor> weight(layer.weight.data(), layer.in, layer.out);
    Eigen::Map<RowMajor> output(y, rows, layer.out);
    output.noalias() = input * weight;

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
