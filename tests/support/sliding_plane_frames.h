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

#include "numeric/half.h"
#include "swinup/swinup.h"

namespace swinup::test {

// Bounds on ||gpu - cpu|| / ||cpu|| of every frame's linear output.
constexpr double kExactFrameBound = 1e-2;
constexpr double kFastFrameBound = 3e-2;

// Frame f of the sliding plane at a render size: colour RGBA32F, depth R32F, motion RG32F.
struct SlidingPlaneFrame {
    std::vector<float> color, depth, mv;
    SlidingPlaneFrame(int width, int height, int f)
        : color(size_t(width) * height * 4), depth(size_t(width) * height), mv(size_t(width) * height * 2) {
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const size_t i = size_t(y) * width + x;
                const float u = float(x) - 0.75f * float(f);
                color[i * 4 + 0] = 0.5f + 0.4f * std::sin(0.7f * u) * std::cos(0.45f * float(y));
                color[i * 4 + 1] = 0.4f + 0.3f * std::sin(0.31f * u + 1.0f);
                color[i * 4 + 2] = ((int(std::floor(u / 6)) + y / 6) & 1) ? 2.5f : 0.1f;  // HDR edges
                color[i * 4 + 3] = 1.0f;
                depth[i] = x > width / 2 ? 0.3f : 0.7f;
                mv[i * 2 + 0] = -0.75f;
                mv[i * 2 + 1] = 0.0f;
            }
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
                v.push_back(format == SWINUP_FORMAT_RGBA8 ? float((w >> (8 * c)) & 0xffu) / 255.0f
                                                          : float((w >> (10 * c)) & 0x3ffu) / 1023.0f);
            }
        }
    }
    return v;
}

}  // namespace swinup::test
