// An input resource (colour, depth, motion) as the readers of both backends see it: where its rows
// are and how its elements are stored, and the read of one element as a float. The CPU backend
// reads host resources in place (cpu/input_planes.cpp); the CUDA one reads device resources in
// place and host ones from a packed device copy (cuda/frame/pre_network.cu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "frame/formats.h"
#include "frame/packed_formats.h"
#include "numeric/half.h"
#include "numeric/host_device.h"
#include "swinup/swinup.h"

namespace swinup {

struct InputImage {       // a validated input resource (api/validation.cpp checked every field)
    const void* data = nullptr;
    size_t pitch = 0;     // bytes per row
    int channels = 0;     // elements per pixel
    int half = 0;         // 1: f16 elements, 0: f32 (or UNORM8 when unorm8)
    int unorm8 = 0;       // 1: one byte a pixel, code / 255 (masks: read them with read_mask_input)
    int packing = 0;      // an InputPacking (formats.h): not kPackedNone for the packed formats
    int width = 0, height = 0;
    // CUDA only: a texture object (cudaTextureObject_t; unnormalised coordinates, point sampling,
    // element read mode) of an imported image (cuda/interop/) read instead of `data`; 0: none.
    unsigned long long texture = 0;
};

// Whether the input is given: memory to read (`data`) or, on CUDA, an imported image's texture
// object (which has no `data`). An optional input (a mask) that is not given reads 0 everywhere;
// every backend's presence test is this one, so an imported mask is never taken for an absent one.
SWINUP_HD bool input_given(const InputImage& im) { return im.data != nullptr || im.texture != 0; }

// The image of a resource read where it lies, rows `resource_row_pitch` apart.
inline InputImage input_image(const swinup_resource& r) {
    InputImage im;
    im.data = r.data;
    im.pitch = resource_row_pitch(r);
    im.channels = format_channels(r.format);
    im.half = format_is_half(r.format) ? 1 : 0;
    im.unorm8 = r.format == SWINUP_FORMAT_R8_UNORM ? 1 : 0;
    im.packing = format_packing(r.format);
    im.width = static_cast<int>(r.width);
    im.height = static_cast<int>(r.height);
    return im;
}

// Channel c of a packed pixel (im.packing != kPackedNone) whose bytes start at `pixel` (4-byte
// aligned: validation checks the pointer and pitch against the element size).
SWINUP_HD float read_packed_input(const InputImage& im, const uint8_t* pixel, int c) {
    uint32_t word;
#if defined(__CUDA_ARCH__)
    word = *reinterpret_cast<const uint32_t*>(pixel);
#else
    std::memcpy(&word, pixel, sizeof word);
#endif
    switch (im.packing) {
        case kPackedB10G11R11F: return px::b10g11r11f_channel(word, c);
        case kPackedR10G10B10A2: return px::r10g10b10a2_channel(word, c);
        case kPackedD24S8: return px::d24_depth(word);
        default: return bits_to_float(word);  // kPackedD32FS8: the f32 depth first
    }
}

// Channel c of pixel (x, y) as a float (f16 converted exactly, packed formats decoded by
// frame/packed_formats.h).
SWINUP_HD float read_input(const InputImage& im, int x, int y, int c) {
    const uint8_t* row = static_cast<const uint8_t*>(im.data) + static_cast<size_t>(y) * im.pitch;
    if (im.packing != kPackedNone) {
        const size_t stride = im.packing == kPackedD32FS8 ? 8 : 4;
        return read_packed_input(im, row + static_cast<size_t>(x) * stride, c);
    }
    const size_t e = static_cast<size_t>(x) * static_cast<size_t>(im.channels) + static_cast<size_t>(c);
#if defined(__CUDA_ARCH__)
    if (im.texture != 0) {  // the texel's own value: half to float is exact, as f16_bits_to_f32
        const float u = static_cast<float>(x) + 0.5f, v = static_cast<float>(y) + 0.5f;
        if (im.channels == 1) return tex2D<float>(im.texture, u, v);
        if (im.channels == 2) {
            const float2 t = tex2D<float2>(im.texture, u, v);
            return c == 0 ? t.x : t.y;
        }
        const float4 t = tex2D<float4>(im.texture, u, v);
        return c == 0 ? t.x : c == 1 ? t.y : c == 2 ? t.z : t.w;
    }
    // Element-aligned (validation checks pointers and pitches against the element size).
    if (im.half) return f16_bits_to_f32(reinterpret_cast<const uint16_t*>(row)[e]);
    return reinterpret_cast<const float*>(row)[e];
#else
    if (im.half) {
        uint16_t h;
        std::memcpy(&h, row + e * 2, sizeof h);
        return f16_bits_to_f32(h);
    }
    float f;
    std::memcpy(&f, row + e * 4, sizeof f);
    return f;
#endif
}

}  // namespace swinup
