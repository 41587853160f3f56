#include "cpu/layers/weights_access.h"

#include <stdexcept>

#include "numeric/half.h"

namespace swinup::cpu {

const Tensor& tensor_checked(const Weights& weights, const std::string& name, DType dtype,
                             std::initializer_list<int64_t> shape) {
    const auto it = weights.tensors.find(name);
    if (it == weights.tensors.end()) throw std::invalid_argument("weights: tensor '" + name + "' is missing");
    const Tensor& t = it->second;
    if (t.dtype != dtype) {
        throw std::invalid_argument("weights: tensor '" + name + "' is " + dtype_name(t.dtype) +
                                    ", expected " + dtype_name(dtype));
    }
    if (t.shape != std::vector<int64_t>(shape)) {
        throw std::invalid_argument("weights: tensor '" + name + "' has an unexpected shape");
    }
    if (t.bytes.size() != size_t(t.elements()) * dtype_size(dtype)) {
        throw std::invalid_argument("weights: tensor '" + name + "' has the wrong byte count");
    }
    return t;
}

std::vector<float> f32_vector(const Tensor& tensor) {
    return std::vector<float>(tensor.f32(), tensor.f32() + tensor.elements());
}

std::vector<float> f16_vector(const Tensor& tensor) {
    std::vector<float> v(size_t(tensor.elements()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = f16_bits_to_f32(tensor.f16()[i]);
    return v;
}

}  // namespace swinup::cpu
