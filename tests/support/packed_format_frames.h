// The packed formats' whole-frame tests, shared by the CPU backend's (tests/api) and the Vulkan
// backend's (tests/vulkan): the sliding plane (sliding_plane_frames.h) with its colour and depth
// in a packed format, and the same values in the float format that holds them (RGBA16F for
// B10G11R11F, RGBA32F for R10G10B10A2, R32F for the depths), decoded by frame/packed_formats.h.
// Given the same values, a backend must give the same frames; a B10G11R11F output must be the
// RGBA16F output within one code of the small floats.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "frame/output_encoding.h"
#include "frame/packed_formats.h"
#include "numeric/half.h"
#include "sliding_plane_frames.h"
#include "swinup/swinup.h"

namespace swinup::test {

constexpr uint32_t kPackedRenderW = 32, kPackedRenderH = 16;
constexpr uint32_t kPackedDisplayW = 64, kPackedDisplayH = 32;
constexpr int kPackedFrames = 3;  // history and both window-shift parities

// Frame f's colour and depth as host bytes in a format (packed or its float equivalent).
struct PackedFrame {
    std::vector<uint8_t> color, depth;
    std::vector<float> mv;
    swinup_format color_format, depth_format;
};

inline void append(std::vector<uint8_t>& bytes, const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    bytes.insert(bytes.end(), b, b + n);
}

// The plane's colour (R, G, B of pixel i) in `format`: B10G11R11F / R10G10B10A2 packed, or
// `equivalent_of` that packed format in floats (RGBA16F / RGBA32F of the decoded values).
inline std::vector<uint8_t> colour_bytes(const SlidingPlaneFrame& frame, swinup_format format, bool equivalent) {
    std::vector<uint8_t> bytes;
    for (size_t i = 0; i < frame.color.size() / 4; ++i) {
        const float* c = &frame.color[i * 4];
        if (format == SWINUP_FORMAT_B10G11R11F) {
            const uint32_t w = px::pack_b10g11r11f(c[0], c[1], c[2]);
            if (!equivalent) {
                append(bytes, &w, 4);
                continue;
            }
            uint16_t h[4];
            for (int k = 0; k < 3; ++k) h[k] = f32_to_f16_bits(px::b10g11r11f_channel(w, k));  // exact
            h[3] = 0x3c00;
            append(bytes, h, 8);
        } else {  // SWINUP_FORMAT_R10G10B10A2
            const uint32_t w = px::pack_r10g10b10a2(c[0], c[1], c[2]);
            if (!equivalent) {
                append(bytes, &w, 4);
                continue;
            }
            float v[4];
            for (int k = 0; k < 4; ++k) v[k] = px::r10g10b10a2_channel(w, k);
            append(bytes, v, 16);
        }
    }
    return bytes;
}

// The plane's depth in D24_UNORM_S8 / D32F_S8 (stencil bytes set, never read) or, equivalent, R32F.
inline std::vector<uint8_t> depth_bytes(const SlidingPlaneFrame& frame, swinup_format format, bool equivalent) {
    std::vector<uint8_t> bytes;
    for (size_t i = 0; i < frame.depth.size(); ++i) {
        // A depth that varies along the row as well, so that its quantisation shows.
        const float d = frame.depth[i] + 0.001f * float(i % size_t(frame.width));
        if (format == SWINUP_FORMAT_D24_UNORM_S8) {
            const uint32_t w = uint32_t(std::lround(double(d) * 16777215.0)) | 0xa5000000u;
            const float v = px::d24_depth(w);
            if (equivalent) append(bytes, &v, 4); else append(bytes, &w, 4);
        } else {  // SWINUP_FORMAT_D32F_S8
            const uint32_t stencil = 0xdeadbeefu;  // the stencil byte and 3 unused ones
            append(bytes, &d, 4);
            if (!equivalent) append(bytes, &stencil, 4);
        }
    }
    return bytes;
}

inline PackedFrame packed_frame(int f, swinup_format color, swinup_format depth, bool equivalent) {
    const SlidingPlaneFrame plane(int(kPackedRenderW), int(kPackedRenderH), f);
    PackedFrame p;
    p.color = colour_bytes(plane, color, equivalent);
    p.depth = depth_bytes(plane, depth, equivalent);
    p.mv = plane.mv;
    p.color_format = equivalent ? (color == SWINUP_FORMAT_B10G11R11F ? SWINUP_FORMAT_RGBA16F : SWINUP_FORMAT_RGBA32F)
                                : color;
    p.depth_format = equivalent ? SWINUP_FORMAT_R32F : depth;
    return p;
}

inline size_t packed_output_pixel_bytes(swinup_format f) { return f == SWINUP_FORMAT_RGBA16F ? 8 : 4; }

// kPackedFrames frames through swinup_dispatch on host pointers on a new context of `backend`;
// the output bytes of each. An empty result: the context could not be made (*skip says why).
inline std::vector<std::vector<uint8_t>> run_packed_frames(swinup_backend backend, swinup_format color,
                                                           swinup_format depth, bool equivalent, swinup_format output,
                                                           std::string* skip) {
    swinup_context_desc cd = sliding_plane_context_desc(kPackedRenderW, kPackedRenderH, kPackedDisplayW,
                                                        kPackedDisplayH, output);
    cd.backend = backend;
    cd.num_threads = 2;
    swinup_context* ctx = nullptr;
    const swinup_status created = swinup_context_create(&cd, &ctx);
    if (created != SWINUP_STATUS_OK) {
        *skip = swinup_last_error(nullptr);
        return {};
    }
    std::vector<std::vector<uint8_t>> outputs;
    for (int f = 0; f < kPackedFrames; ++f) {
        PackedFrame p = packed_frame(f, color, depth, equivalent);
        std::vector<uint8_t> out(size_t(kPackedDisplayW) * kPackedDisplayH * packed_output_pixel_bytes(output), 0xcd);
        swinup_dispatch_desc d = frame_dispatch_desc(
            input_resource(p.color.data(), p.color_format, kPackedRenderW, kPackedRenderH),
            input_resource(p.depth.data(), p.depth_format, kPackedRenderW, kPackedRenderH),
            input_resource(p.mv.data(), SWINUP_FORMAT_RG32F, kPackedRenderW, kPackedRenderH),
            output_resource(out.data(), output, kPackedDisplayW, kPackedDisplayH));
        swinup_get_jitter(uint32_t(f), swinup_get_jitter_phase_count(2.0f), &d.jitter_x, &d.jitter_y);
        EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
        outputs.push_back(std::move(out));
    }
    swinup_context_destroy(ctx);
    return outputs;
}

// Every channel of a B10G11R11F output frame within one code of the RGBA16F frame's value encoded
// (f16 -> small float rounds a second time, so a tie may go the other way).
inline void expect_b10g11r11f_near_rgba16f(const std::vector<uint8_t>& packed, const std::vector<uint8_t>& half) {
    ASSERT_EQ(packed.size() * 2, half.size());
    int off_by_one = 0;
    for (size_t p = 0; p < packed.size() / 4; ++p) {
        uint32_t w;
        std::memcpy(&w, &packed[p * 4], 4);
        uint16_t h[4];
        std::memcpy(h, &half[p * 8], 8);
        const uint32_t got[3] = {w & 0x7ffu, (w >> 11) & 0x7ffu, w >> 22};
        for (int c = 0; c < 3; ++c) {
            const uint32_t want = px::f32_to_ufloat(f16_bits_to_f32(h[c]), c == 2 ? 5 : 6);
            const int diff = int(got[c]) - int(want);
            ASSERT_LE(std::abs(diff), 1) << "pixel " << p << " channel " << c << ": " << got[c] << " vs " << want;
            off_by_one += diff != 0;
        }
    }
    std::printf("[ formats  ] B10G11R11F output: %d of %zu channels one code from the RGBA16F frame's\n", off_by_one,
                packed.size() / 4 * 3);
}

}  // namespace swinup::test
