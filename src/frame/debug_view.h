// SWINUP_FLAG_DEBUG_VIEW: the output shows what the frame was made of instead of the upscaled
// frame, four views of the whole frame at half size (one definition for the CPU backend,
// cpu/output_pass.cpp; the Vulkan shaders' twin is shaders/common/debug_view.glsl):
//   top left      the colour as staging read it (t-space colour brought back to linear, exposure
//                 undone: the units of the output)
//   top right     the depth, reverse-Z (white near, black far)
//   bottom left   the dilated motion: R = 0.5 + x / 8, G = 0.5 + y / 8 (render pixels, clamped to
//                 [0, 1]), B = 0.5: grey is still
//   bottom right  the network's history weight (alpha, with the still-pixel shift and the
//                 transparency mask): white keeps the history, black takes the current frame
// The history and the recurrent state are those of the normal frame: the view is drawn into the
// output only, so turning it off shows the sequence as it would have been.
#pragma once

#include <cstdint>

#include "frame/output_encoding.h"
#include "frame/pixel_ops.h"
#include "numeric/exact_math.h"
#include "numeric/host_device.h"

namespace swinup {

enum DebugQuadrant : int { kDebugColour = 0, kDebugDepth = 1, kDebugMotion = 2, kDebugWeight = 3 };

// The quadrant display pixel (ox, oy) lies in and the render pixel (*nx, *ny) it shows: the
// quadrant's pixel centre scaled to the render size, in integers (the same on every device).
SWINUP_HD int debug_view_source(int ox, int oy, int display_width, int display_height, int width, int height,
                                int* nx, int* ny) {
    const int qw = (display_width + 1) / 2, qh = (display_height + 1) / 2;
    const int qx = ox >= qw ? 1 : 0, qy = oy >= qh ? 1 : 0;
    const int lx = ox - qx * qw, ly = oy - qy * qh;
    *nx = px::clampi(static_cast<int>((int64_t(2 * lx + 1) * width) / (2 * qw)), 0, width - 1);
    *ny = px::clampi(static_cast<int>((int64_t(2 * ly + 1) * height) / (2 * qh)), 0, height - 1);
    return qy * 2 + qx;
}

// The value the view writes for `quadrant` from render pixel n's staged colour tc (t-space, 3),
// reverse-Z depth z, dilated motion mv (2) and history weight alpha; the colour in the output's
// units (output_units with the frame's exposure), the others as they are.
SWINUP_HD void debug_view_value(int quadrant, const float* tc, float z, const float* mv, float alpha, float exposure,
                                float pre_exposure, float v[3]) {
    switch (quadrant) {
        case kDebugColour:
            for (int c = 0; c < 3; ++c) v[c] = output_units(exact::tonemap_t_inverse(tc[c]), exposure, pre_exposure);
            return;
        case kDebugDepth: v[0] = v[1] = v[2] = z; return;
        case kDebugMotion:
            v[0] = px::clampf(exact::add(0.5f, exact::mul(mv[0], 0.125f)), 0.0f, 1.0f);
            v[1] = px::clampf(exact::add(0.5f, exact::mul(mv[1], 0.125f)), 0.0f, 1.0f);
            v[2] = 0.5f;
            return;
        default: v[0] = v[1] = v[2] = alpha; return;
    }
}

}  // namespace swinup
