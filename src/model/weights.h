// Model weights in memory, loaded from the safetensors layout (JSON header + raw tensors) and
// validated against model_spec.h. The tensors are kept exactly as stored, the way the kernels use
// them (e4m3 codes, f32 scales/biases/gains, f16 bias tables).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace swinup {

struct Tensor {
    DType dtype = DType::f32;
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;  // little-endian raw data, elements() * dtype_size(dtype)

    int64_t elements() const;
    const uint8_t* e4m3() const { return bytes.data(); }
    const float* f32() const { return reinterpret_cast<const float*>(bytes.data()); }
    const uint16_t* f16() const { return reinterpret_cast<const uint16_t*>(bytes.data()); }
};

struct Weights {
    ModelConfig config;
    std::map<std::string, Tensor> tensors;
    std::string description;  // free text: origin and training (metadata "description")

    // The tensor of that name; throws std::out_of_range if absent (load() guarantees presence).
    const Tensor& at(const std::string& name) const { return tensors.at(name); }
    uint64_t parameter_count() const;
    // Host bytes of the tensors' data, shapes and names and the description (what a context
    // holding these weights keeps; swinup_query_memory).
    uint64_t heap_bytes() const;
};

// Parse and validate a safetensors image: header JSON, format name and version, model config,
// every tensor of model_tensors() present with its dtype and shape, offsets in bounds, contiguous
// and non-overlapping, no unknown tensors, scales powers of two, no NaN/Inf. On failure returns
// nullptr and sets *error to a message that names the offending tensor or field.
std::shared_ptr<const Weights> weights_load_memory(const void* data, size_t size, std::string* error);
std::shared_ptr<const Weights> weights_load_file(const std::string& path, std::string* error,
                                                 bool* io_error = nullptr);
// The default weights compiled into the library for a variant.
std::shared_ptr<const Weights> weights_load_embedded(Variant variant, std::string* error);

// Serialise to the safetensors layout (tensors in model_tensors() order, 8-byte aligned header).
std::vector<uint8_t> weights_serialize(const Weights& weights);

// Deterministic seeded initial weights (so everything runs before trained weights exist):
// e4m3 codes of a scaled uniform init, power-of-two per-channel scales, zero reserved head rows.
// With `masks`, mask_embed starts at zero weights, scale 1 and zero bias: the network computes
// exactly what it computes without the layer (docs/masks.md).
Weights weights_make_initial(Variant variant, uint64_t seed, bool head_mlp = false, bool masks = false);

// Whether the weights' masks contribute nothing when the frame has no mask: no mask_embed, or one
// whose bias is all zero (absent masks are zero, and mask_embed(0) is its bias). The GPU backends,
// which do not read masks yet, run only such weights.
bool mask_embed_absent_is_zero(const Weights& weights);

}  // namespace swinup
