// GLSL twin of src/frame/debug_view.h (SWINUP_FLAG_DEBUG_VIEW): which render pixel and quadrant a
// display pixel shows, and the value it writes there. Integer mapping and exact-mode arithmetic,
// so the view is the CPU's to the bit.
#ifndef SWINUP_DEBUG_VIEW_GLSL
#define SWINUP_DEBUG_VIEW_GLSL

#include "pixel_ops.glsl"

const int kDebugColour = 0;
const int kDebugDepth = 1;
const int kDebugMotion = 2;

int debug_view_source(int ox, int oy, int display_width, int display_height, int width, int height, out int nx,
                      out int ny) {
    const int qw = (display_width + 1) / 2, qh = (display_height + 1) / 2;
    const int qx = ox >= qw ? 1 : 0, qy = oy >= qh ? 1 : 0;
    const int lx = ox - qx * qw, ly = oy - qy * qh;
    // (2 lx + 1) * width < 2^31 for every size a context accepts (display <= 8192).
    nx = px_clampi(((2 * lx + 1) * width) / (2 * qw), 0, width - 1);
    ny = px_clampi(((2 * ly + 1) * height) / (2 * qh), 0, height - 1);
    return qy * 2 + qx;
}

vec3 debug_view_value(int quadrant, vec3 tc, float z, vec2 mv, float alpha, float exposure, float pre_exposure) {
    if (quadrant == kDebugColour) {
        vec3 v;
        for (int c = 0; c < 3; ++c) v[c] = px_output_units(px_t_inverse(tc[c]), exposure, pre_exposure);
        return v;
    }
    if (quadrant == kDebugDepth) return vec3(z);
    if (quadrant == kDebugMotion) {
        return vec3(px_clampf(exact_add(0.5, exact_mul(mv.x, 0.125)), 0.0, 1.0),
                    px_clampf(exact_add(0.5, exact_mul(mv.y, 0.125)), 0.0, 1.0), 0.5);
    }
    return vec3(alpha);
}

#endif
