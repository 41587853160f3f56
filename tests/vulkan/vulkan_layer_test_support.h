// Shared by the Vulkan layer and network tests (the device and the validation check are
// vulkan_test_support.h's): host-visible buffers holding packed test data, the e4m3 and f16
// encodings of float test data and back, and the count of values whose bits differ.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "numeric/e4m3.h"
#include "numeric/half.h"
#include "vulkan/layers/layer_recorder.h"
#include "vulkan/runtime/memory.h"

namespace swinup::vulkan_test {

inline vulkan::BufferView view(const vulkan::Buffer& b) { return {b.handle(), 0, b.size()}; }

// A host-visible buffer (shaders read and write it in place) holding `bytes`.
inline vulkan::Buffer host_buffer(vulkan::Device& d, const void* data, size_t bytes) {
    vulkan::Buffer b(d, bytes, vulkan::MemoryUse::Readback);
    if (data) b.write(data, bytes);
    else {
        std::vector<uint8_t> zero(bytes, 0);
        b.write(zero.data(), bytes);
    }
    return b;
}

// Floats holding e4m3 values -> bytes, f16 values -> bits, and back.
inline std::vector<uint8_t> to_e4m3(const std::vector<float>& v) {
    std::vector<uint8_t> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = f32_to_e4m3(v[i]);
    return out;
}
inline std::vector<uint16_t> to_f16(const std::vector<float>& v) {
    std::vector<uint16_t> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = f32_to_f16_bits(v[i]);
    return out;
}
// `count` values of type Bits read back and decoded to f32.
template <typename Bits>
std::vector<float> read_decoded(const vulkan::Buffer& b, size_t count, float (*decode)(Bits)) {
    std::vector<Bits> bits(count);
    b.read(bits.data(), count * sizeof(Bits));
    std::vector<float> out(count);
    for (size_t i = 0; i < count; ++i) out[i] = decode(bits[i]);
    return out;
}
inline std::vector<float> read_e4m3(const vulkan::Buffer& b, size_t count) {
    return read_decoded<uint8_t>(b, count, e4m3_to_f32);
}
inline std::vector<float> read_f16(const vulkan::Buffer& b, size_t count) {
    return read_decoded<uint16_t>(b, count, f16_bits_to_f32);
}
inline std::vector<float> read_f32(const vulkan::Buffer& b, size_t count) {
    std::vector<float> out(count);
    b.read(out.data(), count * 4);
    return out;
}

// Values that differ in their bits (NaN equals NaN), and the relative RMS difference to `ref`.
inline size_t bit_differences(const std::vector<float>& a, const std::vector<float>& ref) {
    size_t n = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        uint32_t x, y;
        std::memcpy(&x, &a[i], 4);
        std::memcpy(&y, &ref[i], 4);
        if (x != y && !(a[i] != a[i] && ref[i] != ref[i])) ++n;
    }
    return n;
}

}  // namespace swinup::vulkan_test

