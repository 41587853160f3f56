// Shared helpers of the C API and pipeline tests: small contexts and frames built in memory.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api/resource_desc.h"
#include "numeric/half.h"
#include "swinup/swinup.h"

namespace swinup::test {

inline swinup_context_desc small_context_desc(uint32_t render_w = 32, uint32_t render_h = 32,
                                              uint32_t display_w = 64, uint32_t display_h = 64) {
    swinup_context_desc d = sized_context_desc(render_w, render_h, display_w, display_h);
    d.backend = SWINUP_BACKEND_CPU;
    d.num_threads = 2;
    return d;
}

// One frame's input and output memory, RGBA32F colour, R32F depth, RG32F motion.
struct FrameData {
    uint32_t width = 0, height = 0, display_width = 0, display_height = 0;
    std::vector<float> color, depth, motion;
    std::vector<uint8_t> output;
    swinup_format output_format = SWINUP_FORMAT_RGBA16F;

    FrameData(uint32_t w, uint32_t h, uint32_t dw, uint32_t dh,
              swinup_format format = SWINUP_FORMAT_RGBA16F, bool mv_display = false)
        : width(w), height(h), display_width(dw), display_height(dh),
          color(size_t(w) * h * 4, 0.5f), depth(size_t(w) * h, 0.5f),
          motion(mv_display ? size_t(dw) * dh * 2 : size_t(w) * h * 2, 0.0f),
          output(size_t(dw) * dh * 8, 0), output_format(format) {}

    float* rgba(uint32_t x, uint32_t y) { return &color[(size_t(y) * width + x) * 4]; }

    // A dispatch descriptor pointing at this memory.
    swinup_dispatch_desc dispatch(bool mv_display = false) {
        return frame_dispatch_desc(
            input_resource(color.data(), SWINUP_FORMAT_RGBA32F, width, height),
            input_resource(depth.data(), SWINUP_FORMAT_R32F, width, height),
            input_resource(motion.data(), SWINUP_FORMAT_RG32F, mv_display ? display_width : width,
                           mv_display ? display_height : height),
            output_resource(output.data(), output_format, display_width, display_height));
    }

    // Output pixel (x, y) channel c of an RGBA16F output, as a float.
    float output_half(uint32_t x, uint32_t y, int c) const {
        uint16_t h;
        std::memcpy(&h, &output[(size_t(y) * display_width + x) * 8 + size_t(c) * 2], sizeof h);
        return f16_bits_to_f32(h);
    }
};

// A context that the test owns; fails the test when creation fails.
struct ContextHandle {
    swinup_context* ctx = nullptr;
    explicit ContextHandle(const swinup_context_desc& d) {
        const swinup_status s = swinup_context_create(&d, &ctx);
        EXPECT_EQ(s, SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    }
    ~ContextHandle() { swinup_context_destroy(ctx); }
    ContextHandle(const ContextHandle&) = delete;
    ContextHandle& operator=(const ContextHandle&) = delete;
};

// A smooth test pattern that moves `shift` render pixels to the right per frame.
inline void fill_pattern(FrameData& f, float shift) {
    for (uint32_t y = 0; y < f.height; ++y) {
        for (uint32_t x = 0; x < f.width; ++x) {
            float* p = f.rgba(x, y);
            const float u = (float(x) - shift) / float(f.width), v = float(y) / float(f.height);
            p[0] = 0.2f + 0.6f * u * u;
            p[1] = 0.3f + 0.5f * v;
            p[2] = 0.5f + 0.4f * (((x + y) / 4) % 2 == 0 ? u : v);
            p[3] = 1.0f;
            f.depth[size_t(y) * f.width + x] = 0.2f + 0.5f * v;
        }
    }
    for (size_t i = 0; i < f.motion.size(); i += 2) {
        f.motion[i] = -1.0f;  // current -> previous: the content came from the left
        f.motion[i + 1] = 0.0f;
    }
}

// Frame i of a moving sequence: the pattern shifted i render pixels, jittered by phase i of 32.
inline swinup_dispatch_desc moving_frame(FrameData& f, uint32_t i) {
    fill_pattern(f, float(i));
    swinup_dispatch_desc d = f.dispatch();
    EXPECT_EQ(swinup_get_jitter(i, 32, &d.jitter_x, &d.jitter_y), SWINUP_STATUS_OK);
    return d;
}

}  // namespace swinup::test
