// Staging of one render pixel (docs/model-spec.md, "Staging"): the 16 slots the network reads,
// from this frame's sanitised planes and the previous frame's state. One definition for the CPU
// and CUDA backends: both fill the plain views below and call these functions per pixel.
#pragma once

#include <cstdint>

#include "frame/frame_geometry.h"
#include "numeric/half.h"
#include "numeric/host_device.h"
#include "frame/pixel_ops.h"

namespace swinup {

// This frame at render resolution, after the inputs were read and sanitised (px::stage_*).
struct StageCurrent : FrameGeometry {
    const float* color = nullptr;   // width * height * 3: exposed colour, >= 0, finite
    const float* z = nullptr;       // width * height: reverse-Z depth (1 near, 0 far), finite
    const float* motion = nullptr;  // width * height * 2: motion in render pixels, undilated, finite
};

// The previous frame's temporal state.
struct StagePrevious {
    bool valid = false;                  // false on the first frame and after a reset
    const uint16_t* history = nullptr;   // display_width * display_height * 4 f16 (RGB + unused)
    const float* z = nullptr;            // width * height reverse-Z of the previous frame
    const uint16_t* recurrent = nullptr; // width * height * 4 f16: tanh(head 0..3)
    int width = 0, height = 0;           // the previous frame's render size
};

// Reads history pixels (f16 RGB of 4-channel pixels) for the history samplers (Catmull-Rom in
// staging, Lanczos-3 in the output pass).
struct HalfRgbFetch {
    const uint16_t* pixels;
    int width;
    SWINUP_HD void operator()(int x, int y, float rgb[3]) const {
        const uint16_t* p = pixels + (static_cast<int64_t>(y) * width + x) * 4;
#if defined(__CUDA_ARCH__)
        const uint2 v = *reinterpret_cast<const uint2*>(p);  // one 8-byte load (device buffers are aligned)
        rgb[0] = px::load_half(static_cast<uint16_t>(v.x));
        rgb[1] = px::load_half(static_cast<uint16_t>(v.x >> 16));
        rgb[2] = px::load_half(static_cast<uint16_t>(v.y));
#else
        rgb[0] = px::load_half(p[0]);
        rgb[1] = px::load_half(p[1]);
        rgb[2] = px::load_half(p[2]);
#endif
    }
#if !defined(__CUDA_ARCH__) && defined(__F16C__)
    // The pixel's four f16 as four floats in one register, by one conversion instruction (exact,
    // like each f16 -> f32), for px::clamped_separable_sample's vector path: on such a host the
    // samplers read the history only through it.
    __m128 rgba(int x, int y) const {
        const uint16_t* p = pixels + (static_cast<int64_t>(y) * width + x) * 4;
        return _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    }
#endif
};

// Reads the 4 recurrent features (f16) of a pixel for the bilinear sampler.
struct HalfFeatureFetch {
    const uint16_t* pixels;
    int width;
    SWINUP_HD void operator()(int x, int y, float v[4]) const {
        const uint16_t* p = pixels + (static_cast<int64_t>(y) * width + x) * 4;
#if defined(__CUDA_ARCH__)
        const uint2 w = *reinterpret_cast<const uint2*>(p);  // one 8-byte load
        v[0] = px::load_half(static_cast<uint16_t>(w.x));
        v[1] = px::load_half(static_cast<uint16_t>(w.x >> 16));
        v[2] = px::load_half(static_cast<uint16_t>(w.y));
        v[3] = px::load_half(static_cast<uint16_t>(w.y >> 16));
#else
        for (int k = 0; k < 4; ++k) v[k] = px::load_half(p[k]);
#endif
    }
};

// Dilated motion of render pixel (x, y): the motion of the nearest-depth pixel (largest reverse-Z)
// of the 3x3 neighbourhood, reads clamped to the image, ties to the first in row-major order.
// The running best is kept in scalars, not picked afterwards from arrays of the nine: on the GPU
// an array read at a run-time index lives in local memory (it was the staging kernel's 72-byte
// stack frame).
SWINUP_HD void stage_dilated_motion(const StageCurrent& cur, int x, int y, float mv[2]) {
    int best = 0;
    float best_z = 0.0f;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const int qx = px::clampi(x + dx, 0, cur.width - 1);
            const int qy = px::clampi(y + dy, 0, cur.height - 1);
            const int index = qy * cur.width + qx;
            const float z = cur.z[index];
            if ((dy == -1 && dx == -1) || z > best_z) {  // strictly nearer: ties keep the first
                best = index;
                best_z = z;
            }
        }
    }
    mv[0] = cur.motion[best * 2 + 0];
    mv[1] = cur.motion[best * 2 + 1];
}

// The sample's display position (x + 0.5 + jitter) * s of render pixel x along one axis.
SWINUP_HD float sample_display_position(int x, float jitter, float scale) {
    return exact::mul(exact::add(static_cast<float>(x) + 0.5f, jitter), scale);
}

// Who rounds the slots to e4m3. The CPU keeps them as floats, so stage_slots rounds them itself
// (px::slot_value). The GPU stores e4m3 codes through the hardware encoder
// (cvt.rn.satfinite.e4m3x2: round to nearest even, the same function as f32_to_e4m3, checked by
// tests/cuda/test_cuda_kernels.cpp), so it asks for the slots clamped to +-448 but not yet
// rounded: the encoder's rounding gives the same codes, and the software rounding (about 85 PTX
// instructions a slot, 16 slots a pixel) was half of the staging kernel.
enum class SlotRounding { kHere, kByEncoder };

template <SlotRounding kRounding>
SWINUP_HD float staged_slot(float v) {
    if constexpr (kRounding == SlotRounding::kHere) return px::slot_value(v);
    return px::clampf(v, -kE4m3Max, kE4m3Max);
}

// The 16 slots of render pixel (x, y) (each clamped to +-448 and rounded to e4m3, the rounding
// left to the caller's encoder with SlotRounding::kByEncoder), given its dilated motion `mv`.
// `tc` receives t(colour) in f32 (before e4m3): the output pass's samples.
template <SlotRounding kRounding = SlotRounding::kHere>
SWINUP_HD void stage_slots(const StageCurrent& cur, const StagePrevious& prev, int x, int y,
                           const float mv[2], float slots[16], float tc[3]) {
    const int64_t i = static_cast<int64_t>(y) * cur.width + x;

    // 0-2: the current colour, compressed.
    for (int c = 0; c < 3; ++c) {
        tc[c] = px::t_of(cur.color[i * 3 + c]);
        slots[c] = staged_slot<kRounding>(tc[c]);
    }

    // 3-5 and 7: the display history at the sample's display position plus its motion, as its
    // difference to the current colour in t-space. The difference is rounded to e4m3 after the
    // subtraction, so small disagreements (the cue for trusting or rejecting history) keep e4m3's
    // relative precision instead of vanishing between two coarse absolute values
    // (weights format_version 2; docs/model-spec.md, "Staging").
    const float dpx = sample_display_position(x, cur.jitter_x, cur.scale_x);
    const float dpy = sample_display_position(y, cur.jitter_y, cur.scale_y);
    const float hx = exact::add(dpx, exact::mul(mv[0], cur.scale_x));
    const float hy = exact::add(dpy, exact::mul(mv[1], cur.scale_y));
    const bool history_valid = prev.valid && px::on_screen(hx, cur.display_width) &&
                               px::on_screen(hy, cur.display_height);
    if (history_valid) {
        float h[3];
        px::catmull_rom_sample(HalfRgbFetch{prev.history, cur.display_width}, cur.display_width,
                               cur.display_height, hx, hy, h);
        for (int c = 0; c < 3; ++c) slots[3 + c] = staged_slot<kRounding>(exact::sub(px::t_of(h[c]), tc[c]));
    } else {
        slots[3] = slots[4] = slots[5] = 0.0f;
    }
    slots[7] = history_valid ? 0.0f : 1.0f;

    // 6 and 12-15: the previous render grid at p + mv (p the pixel centre), scaled to that grid
    // when the render size changed.
    const float ratio_x = exact::div(static_cast<float>(prev.width), static_cast<float>(cur.width));
    const float ratio_y = exact::div(static_cast<float>(prev.height), static_cast<float>(cur.height));
    const float rx = exact::mul(exact::add(static_cast<float>(x) + 0.5f, mv[0]), ratio_x);
    const float ry = exact::mul(exact::add(static_cast<float>(y) + 0.5f, mv[1]), ratio_y);
    const bool previous_valid =
        prev.valid && px::on_screen(rx, prev.width) && px::on_screen(ry, prev.height);
    if (previous_valid) {
        const int nx = px::clampi(px::floor_to_int(rx), 0, prev.width - 1);
        const int ny = px::clampi(px::floor_to_int(ry), 0, prev.height - 1);
        const float z_prev = prev.z[static_cast<int64_t>(ny) * prev.width + nx];
        slots[6] = staged_slot<kRounding>(px::disocclusion_cue(z_prev, cur.z[i]));
        float features[4];
        px::bilinear_sample(HalfFeatureFetch{prev.recurrent, prev.width}, prev.width, prev.height, 4,
                            rx, ry, features);
        for (int k = 0; k < 4; ++k) slots[12 + k] = staged_slot<kRounding>(features[k]);
    } else {
        slots[6] = 0.0f;
        slots[12] = slots[13] = slots[14] = slots[15] = 0.0f;
    }

    // 8-9: where the sample falls inside its display pixel, in [-0.5, 0.5).
    slots[8] = staged_slot<kRounding>(exact::sub(exact::sub(dpx, static_cast<float>(px::floor_to_int(dpx))), 0.5f));
    slots[9] = staged_slot<kRounding>(exact::sub(exact::sub(dpy, static_cast<float>(px::floor_to_int(dpy))), 0.5f));

    // 10-11: how fast the pixel moves, render pixels / 32 clamped to [-1, 1].
    slots[10] = staged_slot<kRounding>(px::clampf(exact::mul(mv[0], 0.03125f), -1.0f, 1.0f));
    slots[11] = staged_slot<kRounding>(px::clampf(exact::mul(mv[1], 0.03125f), -1.0f, 1.0f));
}

}  // namespace swinup
