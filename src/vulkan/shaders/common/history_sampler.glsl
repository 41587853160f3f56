// px::clamped_separable_sample (src/frame/pixel_ops.h) in GLSL: a separable sample of the f16 RGB
// history with `taps` (4: Catmull-Rom, 6: Lanczos-3) taps per axis, clamped per channel to its 4
// central taps, sums in the C++'s order. The including shader defines, before including this:
//   vec3 history_rgb(int x, int y)   // one in-range history pixel, f16 converted exactly
#ifndef SWINUP_HISTORY_SAMPLER_GLSL
#define SWINUP_HISTORY_SAMPLER_GLSL

#include "pixel_ops.glsl"

vec3 px_clamped_separable_sample(int taps, bool lanczos, bool fused, int width, int height, float px, float py) {
    const int first = 1 - taps / 2;
    const int central = taps / 2 - 1;
    const float ux = exact_sub(px, 0.5);
    const float uy = exact_sub(py, 0.5);
    const int ix = px_floor_to_int(ux);
    const int iy = px_floor_to_int(uy);
    float wx[6], wy[6];
    if (lanczos) {
        px_lanczos3_weights(fused, exact_sub(ux, float(ix)), wx);
        px_lanczos3_weights(fused, exact_sub(uy, float(iy)), wy);
    } else {
        px_catmull_rom_weights(exact_sub(ux, float(ix)), wx);
        px_catmull_rom_weights(exact_sub(uy, float(iy)), wy);
    }
    vec3 sum = vec3(0.0);
    vec3 lo = vec3(F(0x7f7fc99eu));   // 3.4e38f
    vec3 hi = vec3(-F(0x7f7fc99eu));
    for (int j = 0; j < taps; ++j) {
        const int y = px_clampi(iy + first + j, 0, height - 1);
        vec3 row = vec3(0.0);
        for (int i = 0; i < taps; ++i) {
            const int x = px_clampi(ix + first + i, 0, width - 1);
            const vec3 tap = history_rgb(x, y);
            const bool is_central = (i == central || i == central + 1) && (j == central || j == central + 1);
            for (int c = 0; c < 3; ++c) {
                row[c] = exact_add(row[c], exact_mul(wx[i], tap[c]));
                if (is_central) {
                    lo[c] = px_minf(lo[c], tap[c]);
                    hi[c] = px_maxf(hi[c], tap[c]);
                }
            }
        }
        for (int c = 0; c < 3; ++c) sum[c] = exact_add(sum[c], exact_mul(wy[j], row[c]));
    }
    vec3 result;
    for (int c = 0; c < 3; ++c) result[c] = px_clampf(sum[c], lo[c], hi[c]);
    return result;
}

#endif
