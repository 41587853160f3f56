// The whole-frame backend tests' inputs and how they read an output: a textured plane sliding
// right by 0.75 render pixels a frame, with a depth step and HDR edges (history, recurrent state and
// window-shift parity all in play over a few frames); an output frame decoded to linear RGB; and
// the bounds on a GPU backend's relative RMS against the CPU backend's frame (docs/cuda-kernels.md).
// Used by tests/cuda/test_cuda_backend.cpp and the Vulkan backend tests, so that all compare the
// same frames against the same bounds.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "api/resource_desc.h"
#include "frame/packed_formats.h"
#include "numeric/half.h"
#include "swinup/swinup.h"

namespace swinup::test {

// Bounds on ||gpu - cpu|| / ||cpu|| of every frame's linear output.
constexpr double kExactFrameBound = 1e-2;
constexpr double kFastFrameBound = 3e-2;

// The whole-frame tests' context between two sizes: HDR input, `output` the output format.
inline swinup_context_desc sliding_plane_context_desc(int render_width, int render_height, int display_width,
                                                      int display_height, swinup_format output) {
    swinup_context_desc desc = sized_context_desc(render_width, render_height, display_width, display_height);
    desc.flags = SWINUP_FLAG_HDR;
    desc.output_format = output;
    return desc;
}

// Frame f of the sliding plane at a render size: colour RGBA32F, depth R32F, motion RG32F. With
// `still_left_half` the left half stands still (the still-pixel shift acts there, which the mask
// tests need) and only the right half slides.
struct SlidingPlaneFrame {
    int width, height;
    std::vector<float> color, depth, mv;
    SlidingPlaneFrame(int width_, int height_, int f, bool still_left_half = false)
        : width(width_), height(height_), color(size_t(width) * height * 4), depth(size_t(width) * height),
          mv(size_t(width) * height * 2) {
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const size_t i = size_t(y) * width + x;
                const bool still = still_left_half && x < width / 2;
                const float u = still ? float(x) : float(x) - 0.75f * float(f);
                color[i * 4 + 0] = 0.5f + 0.4f * std::sin(0.7f * u) * std::cos(0.45f * float(y));
                color[i * 4 + 1] = 0.4f + 0.3f * std::sin(0.31f * u + 1.0f);
                color[i * 4 + 2] = ((int(std::floor(u / 6)) + y / 6) & 1) ? 2.5f : 0.1f;  // HDR edges
                color[i * 4 + 3] = 1.0f;
                depth[i] = x > width / 2 ? 0.3f : 0.7f;
                mv[i * 2 + 0] = still ? 0.0f : -0.75f;
                mv[i * 2 + 1] = 0.0f;
            }
    }

    // A dispatch of this frame from host memory into `output` (display_width x display_height in
    // `format`); jitter, masks and reset left for the caller.
    swinup_dispatch_desc dispatch_desc(void* output, swinup_format format, int display_width, int display_height) const {
        return frame_dispatch_desc(input_resource(color.data(), SWINUP_FORMAT_RGBA32F, uint32_t(width), uint32_t(height)),
                                   input_resource(depth.data(), SWINUP_FORMAT_R32F, uint32_t(width), uint32_t(height)),
                                   input_resource(mv.data(), SWINUP_FORMAT_RG32F, uint32_t(width), uint32_t(height)),
                                   output_resource(output, format, uint32_t(display_width), uint32_t(display_height)));
    }
};

inline size_t output_pixel_bytes(swinup_format f) { return f == SWINUP_FORMAT_RGBA16F ? 8 : 4; }

// Decoded linear RGB values of an output frame (alpha dropped).
inline std::vector<float> decode_output_rgb(const std::vector<uint8_t>& bytes, swinup_format format) {
    std::vector<float> v;
    for (size_t p = 0; p < bytes.size() / output_pixel_bytes(format); ++p) {
        if (format == SWINUP_FORMAT_RGBA16F) {
            uint16_t h[4];
            std::memcpy(h, &bytes[p * 8], 8);
            for (int c = 0; c < 3; ++c) v.push_back(f16_bits_to_f32(h[c]));
        } else {
            uint32_t w;
            std::memcpy(&w, &bytes[p * 4], 4);
            for (int c = 0; c < 3; ++c) {
                v.push_back(format == SWINUP_FORMAT_RGBA8        ? float((w >> (8 * c)) & 0xffu) / 255.0f
                            : format == SWINUP_FORMAT_B10G11R11F ? px::b10g11r11f_channel(w, c)
                                                                 : float((w >> (10 * c)) & 0x3ffu) / 1023.0f);
            }
        }
    }
    return v;
}

}  // namespace swinup::test
