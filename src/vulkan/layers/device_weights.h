// The network's weights on the device: every tensor a layer kernel reads, in one storage buffer
// uploaded once at create, each tensor at a 256-byte aligned offset. Linear weights stay e4m3
// bytes in the file's [out, in] layout (4 per uint in the shaders, K contiguous), scales, biases
// and gains f32, the relative-position bias tables decoded from f16 to f32 (exact).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model_spec.h"
#include "model/weights.h"
#include "vulkan/layers/layer_recorder.h"

namespace swinup::vulkan {

struct DeviceLinear {
    BufferView weight, scale, bias;
    int in = 0;
    int out = 0;
};

struct DeviceBlock {
    BlockSpec spec;
    BufferView norm1, norm2, rel_bias;
    DeviceLinear qkv, proj, fc1, fc2;
};

// A norm followed by a linear: patch merge (gain over 4C), patch expand and the head.
struct DeviceNormLinear {
    BufferView gain;
    DeviceLinear linear;
};

// The bytes of the weights buffer, built on the host; views hold offsets into it until the
// buffer exists (set_buffer).
class WeightBlob {
public:
    static constexpr VkDeviceSize kAlignment = 256;

    // Tensors checked for dtype and shape (cpu/layers/weights_access.h: the error names the
    // tensor). A linear's `in` must be a multiple of 4 and its `out` of 4 (the shaders' packing).
    DeviceLinear add_linear(const Weights& weights, const std::string& name, int in, int out);
    // A linear whose `in` is not a multiple of 4 (full's mask_embed, 2 inputs): each weight row
    // padded with zero codes to padded_in (the GEMM's K); the inputs' padding must be zero codes
    // too. Zero products add exact zeros to a sum that starts at +0: the CPU's bits.
    DeviceLinear add_linear_padded(const Weights& weights, const std::string& name, int in, int out, int padded_in);
    BufferView add_f32(const Weights& weights, const std::string& name, int count);
    BufferView add_rel_bias(const Weights& weights, const std::string& name, int heads);
    DeviceBlock add_block(const Weights& weights, const BlockSpec& spec);

    const std::vector<uint8_t>& bytes() const { return bytes_; }

private:
    BufferView add_bytes(const void* data, size_t size);
    std::vector<uint8_t> bytes_;
};

void set_buffer(DeviceLinear& linear, VkBuffer buffer);
void set_buffer(DeviceBlock& block, VkBuffer buffer);
void set_buffer(DeviceNormLinear& norm_linear, VkBuffer buffer);
inline void set_buffer(BufferView& view, VkBuffer buffer) { view.buffer = buffer; }

}  // namespace swinup::vulkan
