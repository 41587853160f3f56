#version 450
#extension GL_GOOGLE_include_directive : require
// Staging (src/frame/stage_pixel.h, cpu/staging.cpp): the 16 e4m3 slots of every pixel of the
// padded grid (padding repeats the nearest real pixel), and for every real pixel its dilated
// motion and t(colour). One invocation per padded pixel.
#include "frame_push.glsl"
#include "pixel_ops.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, binding = 0) readonly buffer ColorPlane { float color[]; };
layout(std430, binding = 1) readonly buffer DepthPlane { float z[]; };
layout(std430, binding = 2) readonly buffer MotionPlane { float motion[]; };
layout(std430, binding = 3) readonly buffer History { uint history[]; };        // 4 f16 a pixel
layout(std430, binding = 4) readonly buffer PrevDepth { float prev_z[]; };
layout(std430, binding = 5) readonly buffer PrevRecurrent { uint prev_recurrent[]; };  // 4 f16
layout(std430, binding = 6) writeonly buffer Staged { uint staged[]; };        // 16 codes a pixel
layout(std430, binding = 7) writeonly buffer Tc { float tc_out[]; };
layout(std430, binding = 8) writeonly buffer Dilated { float dilated[]; };

vec3 history_rgb(int x, int y) {
    const int p = (y * frame.display_width + x) * 2;
    const uint w0 = history[p], w1 = history[p + 1];
    return vec3(f16_unpack(w0, 0u), f16_unpack(w0, 1u), f16_unpack(w1, 0u));
}
#include "history_sampler.glsl"

vec4 recurrent_features(int x, int y) {
    const int p = (y * frame.prev_width + x) * 2;
    const uint w0 = prev_recurrent[p], w1 = prev_recurrent[p + 1];
    return vec4(f16_unpack(w0, 0u), f16_unpack(w0, 1u), f16_unpack(w1, 0u), f16_unpack(w1, 1u));
}

// px::bilinear_sample of the previous frame's recurrent features.
vec4 bilinear_features(float px, float py) {
    const int width = frame.prev_width, height = frame.prev_height;
    const float ux = exact_sub(px, 0.5);
    const float uy = exact_sub(py, 0.5);
    const int ix = px_floor_to_int(ux);
    const int iy = px_floor_to_int(uy);
    const float fx = exact_sub(ux, float(ix));
    const float fy = exact_sub(uy, float(iy));
    const int x0 = px_clampi(ix, 0, width - 1), x1 = px_clampi(ix + 1, 0, width - 1);
    const int y0 = px_clampi(iy, 0, height - 1), y1 = px_clampi(iy + 1, 0, height - 1);
    const vec4 a = recurrent_features(x0, y0), b = recurrent_features(x1, y0);
    const vec4 c = recurrent_features(x0, y1), d = recurrent_features(x1, y1);
    const float gx = exact_sub(1.0, fx), gy = exact_sub(1.0, fy);
    vec4 out_value;
    for (int k = 0; k < 4; ++k) {
        const float top = exact_add(exact_mul(gx, a[k]), exact_mul(fx, b[k]));
        const float bottom = exact_add(exact_mul(gx, c[k]), exact_mul(fx, d[k]));
        out_value[k] = exact_add(exact_mul(gy, top), exact_mul(fy, bottom));
    }
    return out_value;
}

float sample_display_position(int x, float jitter, float scale) {
    return exact_mul(exact_add(float(x) + 0.5, jitter), scale);
}

void main() {
    const int gx = int(gl_GlobalInvocationID.x);
    const int gy = int(gl_GlobalInvocationID.y);
    if (gx >= frame.padded_width || gy >= frame.padded_height) return;
    const int x = min(gx, frame.width - 1);
    const int y = min(gy, frame.height - 1);
    const bool real = gx == x && gy == y;
    const int i = y * frame.width + x;
    const bool prev_valid = (frame.flags & kFlagHistoryValid) != 0u;

    // Dilated motion: the nearest-depth pixel of the 3x3 neighbourhood, ties to the first.
    int best = 0;
    float best_z = 0.0;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const int qx = px_clampi(x + dx, 0, frame.width - 1);
            const int qy = px_clampi(y + dy, 0, frame.height - 1);
            const int index = qy * frame.width + qx;
            const float zq = z[index];
            if ((dy == -1 && dx == -1) || zq > best_z) {
                best = index;
                best_z = zq;
            }
        }
    }
    const vec2 mv = vec2(motion[best * 2], motion[best * 2 + 1]);

    float slots[16];
    vec3 tc;
    for (int c = 0; c < 3; ++c) {
        tc[c] = px_t_of(color[i * 3 + c]);
        slots[c] = tc[c];
    }

    const float dpx = sample_display_position(x, frame.jitter_x, frame.scale_x);
    const float dpy = sample_display_position(y, frame.jitter_y, frame.scale_y);
    const float hx = exact_add(dpx, exact_mul(mv.x, frame.scale_x));
    const float hy = exact_add(dpy, exact_mul(mv.y, frame.scale_y));
    const bool history_valid = prev_valid && px_on_screen(hx, frame.display_width) &&
                               px_on_screen(hy, frame.display_height);
    if (history_valid) {
        const vec3 h = px_clamped_separable_sample(4, false, false, frame.display_width, frame.display_height, hx, hy);
        for (int c = 0; c < 3; ++c) slots[3 + c] = exact_sub(px_t_of(h[c]), tc[c]);
    } else {
        slots[3] = 0.0; slots[4] = 0.0; slots[5] = 0.0;
    }
    slots[7] = history_valid ? 0.0 : 1.0;

    const float ratio_x = exact_div(float(frame.prev_width), float(frame.width));
    const float ratio_y = exact_div(float(frame.prev_height), float(frame.height));
    const float rx = exact_mul(exact_add(float(x) + 0.5, mv.x), ratio_x);
    const float ry = exact_mul(exact_add(float(y) + 0.5, mv.y), ratio_y);
    const bool previous_valid = prev_valid && px_on_screen(rx, frame.prev_width) && px_on_screen(ry, frame.prev_height);
    if (previous_valid) {
        const int nx = px_clampi(px_floor_to_int(rx), 0, frame.prev_width - 1);
        const int ny = px_clampi(px_floor_to_int(ry), 0, frame.prev_height - 1);
        slots[6] = px_disocclusion_cue(prev_z[ny * frame.prev_width + nx], z[i]);
        const vec4 features = bilinear_features(rx, ry);
        for (int k = 0; k < 4; ++k) slots[12 + k] = features[k];
    } else {
        slots[6] = 0.0;
        slots[12] = 0.0; slots[13] = 0.0; slots[14] = 0.0; slots[15] = 0.0;
    }
    slots[8] = exact_sub(exact_sub(dpx, float(px_floor_to_int(dpx))), 0.5);
    slots[9] = exact_sub(exact_sub(dpy, float(px_floor_to_int(dpy))), 0.5);
    slots[10] = px_clampf(exact_mul(mv.x, 0.03125), -1.0, 1.0);
    slots[11] = px_clampf(exact_mul(mv.y, 0.03125), -1.0, 1.0);

    const int out_index = (gy * frame.padded_width + gx) * 4;
    for (int k = 0; k < 4; ++k) {
        staged[out_index + k] = e4m3_pack4(px_slot_code(slots[4 * k]), px_slot_code(slots[4 * k + 1]),
                                           px_slot_code(slots[4 * k + 2]), px_slot_code(slots[4 * k + 3]));
    }
    if (real) {
        for (int c = 0; c < 3; ++c) tc_out[i * 3 + c] = tc[c];
        dilated[i * 2] = mv.x;
        dilated[i * 2 + 1] = mv.y;
    }
}
