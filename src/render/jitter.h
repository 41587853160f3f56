// Sub-pixel jitter of the render samples and the deterministic random numbers of the renderer,
// one definition for host and device.
#pragma once

#include <cmath>
#include <cstdint>

#include "frame/halton_jitter.h"
#include "numeric/host_device.h"

namespace swinup::render {

// Phase count recommended for a display/render ratio s: ceil(8 s^2).
SWINUP_HD uint32_t jitter_phase_count(float scale) {
    const float n = ceilf(8.0f * scale * scale - 1e-4f);  // 1e-4: 8 * 1.5^2 is 18, not 19
    return n < 1.0f ? 1u : static_cast<uint32_t>(n);
}

// Jitter of frame `frame` of a sequence of `count` phases: the C API's (frame/halton_jitter.h).
SWINUP_HD void jitter_offset(uint32_t frame, uint32_t count, float& jx, float& jy) {
    halton_jitter(frame, count, &jx, &jy);
}

// Counter-based hash (a 32-bit finaliser): the same numbers for the same inputs on every device
// and thread count, which makes renders deterministic for a seed.
SWINUP_HD uint32_t hash_u32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}
SWINUP_HD uint32_t hash_combine(uint32_t a, uint32_t b) { return hash_u32(a ^ (b + 0x9e3779b9u + (a << 6) + (a >> 2))); }
// Uniform in [0, 1).
SWINUP_HD float hash_to_unit(uint32_t h) { return static_cast<float>(h >> 8) * (1.0f / 16777216.0f); }

}  // namespace swinup::render
