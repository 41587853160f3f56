// Typed access to the tensors of a Weights object for the CPU layers.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "model/weights.h"

namespace swinup::cpu {

// The tensor `name`, checked to have this dtype and shape; throws std::invalid_argument naming
// the tensor otherwise (weights_load validates files, but Weights can also be built in memory).
const Tensor& tensor_checked(const Weights& weights, const std::string& name, DType dtype,
                             std::initializer_list<int64_t> shape);

// An F32 tensor's values.
std::vector<float> f32_vector(const Tensor& tensor);

// An F16 tensor's values decoded to f32 (exact).
std::vector<float> f16_vector(const Tensor& tensor);

}  // namespace swinup::cpu
