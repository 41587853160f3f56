// What the metrics compare: linear colour turned into the sRGB-encoded [0,1] values a display
// shows.
//
// PSNR and SSIM on linear HDR values would be dominated by a few bright pixels and say little
// about what people see, so every metric here runs on display-encoded images:
//   v  = max(colour * exposure, 0)       (the sequence's per-frame exposure; NaN/Inf become 0)
//   HDR: v = v / (1 + v)                  (Reinhard per channel: fixed, monotonic, no parameters)
//   LDR: v = min(v, 1)                    (already display-referred: just clamp)
//   out = sRGB OETF(v)                    (IEC 61966-2-1 piecewise curve)
// The operator is deliberately simple and fixed so that scores are comparable across methods,
// sequences and versions; it is not meant to be a pretty grade.
#pragma once

#include "sequence/image.h"

namespace swinup::eval {

// The sRGB OETF of a linear value in [0,1] (IEC 61966-2-1).
float srgb_encode(float linear);

// The per-channel display mapping above, for one linear value.
float display_encode_value(float linear, float exposure, bool hdr);

// An image of >= 3 channels (extra channels such as alpha are dropped) -> 3-channel encoded image.
// Throws std::invalid_argument if the image has fewer than 3 channels.
Image display_encode(const Image& linear, float exposure, bool hdr);

}  // namespace swinup::eval
