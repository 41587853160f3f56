#include "vulkan/layers/device_weights.h"

#include <cstring>
#include <stdexcept>

#include "numeric/half.h"
#include "cpu/layers/weights_access.h"

namespace swinup::vulkan {

BufferView WeightBlob::add_bytes(const void* data, size_t size) {
    const size_t offset = (bytes_.size() + kAlignment - 1) / kAlignment * kAlignment;
    bytes_.resize(offset + size, 0);
    std::memcpy(bytes_.data() + offset, data, size);
    return BufferView{VK_NULL_HANDLE, VkDeviceSize(offset), VkDeviceSize(size)};
}

DeviceLinear WeightBlob::add_linear(const Weights& weights, const std::string& name, int in, int out) {
    if (in % 4 != 0 || out % 4 != 0) {
        throw std::invalid_argument("vulkan network: linear " + name + " is " + std::to_string(in) + " -> " +
                                    std::to_string(out) + "; the GEMM needs multiples of 4");
    }
    const Tensor& w = cpu::tensor_checked(weights, name + ".weight", DType::f8_e4m3, {out, in});
    const Tensor& s = cpu::tensor_checked(weights, name + ".scale", DType::f32, {out});
    const Tensor& b = cpu::tensor_checked(weights, name + ".bias", DType::f32, {out});
    DeviceLinear l;
    l.in = in;
    l.out = out;
    l.weight = add_bytes(w.bytes.data(), w.bytes.size());
    l.scale = add_bytes(s.bytes.data(), s.bytes.size());
    l.bias = add_bytes(b.bytes.data(), b.bytes.size());
    return l;
}

DeviceLinear WeightBlob::add_linear_padded(const Weights& weights, const std::string& name, int in, int out,
                                           int padded_in) {
    if (padded_in % 4 != 0 || padded_in < in || out % 4 != 0) {
        throw std::invalid_argument("vulkan network: linear " + name + " cannot be padded to " +
                                    std::to_string(padded_in) + " inputs");
    }
    const Tensor& w = cpu::tensor_checked(weights, name + ".weight", DType::f8_e4m3, {out, in});
    const Tensor& s = cpu::tensor_checked(weights, name + ".scale", DType::f32, {out});
    const Tensor& b = cpu::tensor_checked(weights, name + ".bias", DType::f32, {out});
    std::vector<uint8_t> padded(size_t(out) * padded_in, 0);  // e4m3 code 0 is +0
    for (int o = 0; o < out; ++o) std::memcpy(&padded[size_t(o) * padded_in], &w.bytes[size_t(o) * in], size_t(in));
    DeviceLinear l;
    l.in = padded_in;
    l.out = out;
    l.weight = add_bytes(padded.data(), padded.size());
    l.scale = add_bytes(s.bytes.data(), s.bytes.size());
    l.bias = add_bytes(b.bytes.data(), b.bytes.size());
    return l;
}

BufferView WeightBlob::add_f32(const Weights& weights, const std::string& name, int count) {
    const Tensor& t = cpu::tensor_checked(weights, name, DType::f32, {count});
    return add_bytes(t.bytes.data(), t.bytes.size());
}

BufferView WeightBlob::add_rel_bias(const Weights& weights, const std::string& name, int heads) {
    const Tensor& t = cpu::tensor_checked(weights, name, DType::f16, {heads, kWindowTokens, kWindowTokens});
    const std::vector<float> decoded = cpu::f16_vector(t);
    return add_bytes(decoded.data(), decoded.size() * sizeof(float));
}

DeviceBlock WeightBlob::add_block(const Weights& weights, const BlockSpec& spec) {
    const int c = spec.channels;
    const std::string& n = spec.name;
    if (spec.heads <= 0 || c % spec.heads != 0 || (c / spec.heads) % 4 != 0 || c / spec.heads > 64) {
        throw std::invalid_argument("vulkan network: block " + n + ": " + std::to_string(c) +
                                    " channels in " + std::to_string(spec.heads) +
                                    " heads; the attention kernel needs a head size that is a multiple of 4, at most 64");
    }
    DeviceBlock b;
    b.spec = spec;
    b.norm1 = add_f32(weights, n + ".norm1.gain", c);
    b.qkv = add_linear(weights, n + ".qkv", c, 3 * c);
    b.rel_bias = add_rel_bias(weights, n + ".rel_bias", spec.heads);
    b.proj = add_linear(weights, n + ".proj", c, c);
    b.norm2 = add_f32(weights, n + ".norm2.gain", c);
    b.fc1 = add_linear(weights, n + ".fc1", c, 4 * c);
    b.fc2 = add_linear(weights, n + ".fc2", 4 * c, c);
    return b;
}

void set_buffer(DeviceLinear& l, VkBuffer buffer) {
    l.weight.buffer = l.scale.buffer = l.bias.buffer = buffer;
}

void set_buffer(DeviceBlock& b, VkBuffer buffer) {
    b.norm1.buffer = b.norm2.buffer = b.rel_bias.buffer = buffer;
    for (DeviceLinear* l : {&b.qkv, &b.proj, &b.fc1, &b.fc2}) set_buffer(*l, buffer);
}

void set_buffer(DeviceNormLinear& n, VkBuffer buffer) {
    n.gain.buffer = buffer;
    set_buffer(n.linear, buffer);
}

}  // namespace swinup::vulkan
