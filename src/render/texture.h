// Texture lookups, one definition for host and device: bilinear within a mip level, linear
// between levels (trilinear), at a level of detail the caller computes from the ray cone
// (tracer.h) plus a mip bias.
#pragma once

#include "render/scene_view.h"

namespace swinup::render {

SWINUP_HD int wrap_coordinate(int i, int size, int mode) {
    if (mode == wrap_clamp) return i < 0 ? 0 : (i >= size ? size - 1 : i);
    if (mode == wrap_mirror) {
        const int period = 2 * size;
        int m = i % period;
        if (m < 0) m += period;
        return m < size ? m : period - 1 - m;
    }
    if ((size & (size - 1)) == 0) return i & (size - 1);  // powers of two: a mask, no division
    int m = i % size;
    return m < 0 ? m + size : m;
}

SWINUP_HD Rgba texel_fetch(const SceneView& scene, const TextureInfo& tex, int level, int x, int y) {
    const int w = tex.level_width[level], h = tex.level_height[level];
    x = wrap_coordinate(x, w, tex.wrap_s);
    y = wrap_coordinate(y, h, tex.wrap_t);
    return scene.texels[tex.level_offset[level] + static_cast<int64_t>(y) * w + x];
}

SWINUP_HD Rgba rgba_lerp(Rgba a, Rgba b, float t) {
    return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t, a.a + (b.a - a.a) * t};
}

// Bilinear sample of one level; uv (0,0) is the top-left corner of texel (0,0) (glTF convention).
SWINUP_HD Rgba sample_bilinear(const SceneView& scene, const TextureInfo& tex, int level, Vec2 uv) {
    const float x = uv.x * static_cast<float>(tex.level_width[level]) - 0.5f;
    const float y = uv.y * static_cast<float>(tex.level_height[level]) - 0.5f;
    // Keep the floor's argument in int range whatever the uv (huge uv: any texel is fine).
    const float xf = floorf(clampf(x, -1e8f, 1e8f)), yf = floorf(clampf(y, -1e8f, 1e8f));
    const int x0 = static_cast<int>(xf), y0 = static_cast<int>(yf);
    const float fx = clampf(x - xf, 0.0f, 1.0f), fy = clampf(y - yf, 0.0f, 1.0f);
    const Rgba top = rgba_lerp(texel_fetch(scene, tex, level, x0, y0), texel_fetch(scene, tex, level, x0 + 1, y0), fx);
    const Rgba bottom = rgba_lerp(texel_fetch(scene, tex, level, x0, y0 + 1), texel_fetch(scene, tex, level, x0 + 1, y0 + 1), fx);
    return rgba_lerp(top, bottom, fy);
}

// lod 0 is the full-resolution level; fractional lods blend the two nearest levels.
SWINUP_HD Rgba sample_trilinear(const SceneView& scene, int texture, Vec2 uv, float lod) {
    const TextureInfo& tex = scene.textures[texture];
    const float max_level = static_cast<float>(tex.levels - 1);
    const float l = clampf(lod == lod ? lod : 0.0f, 0.0f, max_level);  // NaN lod -> 0
    const int l0 = static_cast<int>(floorf(l));
    const float f = l - static_cast<float>(l0);
    const Rgba a = sample_bilinear(scene, tex, l0, uv);
    if (f <= 0.0f || l0 + 1 >= tex.levels) return a;
    return rgba_lerp(a, sample_bilinear(scene, tex, l0 + 1, uv), f);
}

}  // namespace swinup::render
