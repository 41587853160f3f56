// The lighting model, one definition for host and device: a sun with a shadow ray, a
// hemispherical sky (analytic, unoccluded: no noise), a normalised Blinn-Phong specular lobe
// with Schlick Fresnel (roughness mapped GGX-style), and a sky reflection for glossy surfaces.
// Simple on purpose: ground truth must converge with 16 samples, and the colour must be free of
// Monte-Carlo noise so that differences are the upscaler's.
#pragma once

#include "render/scene_view.h"

namespace swinup::render {

constexpr float shading_pi = 3.14159265358979f;

// Radiance of the sky seen in direction `dir` (unit): zenith-horizon gradient, a darker ground
// below the horizon and a glow around the sun.
SWINUP_HD Vec3 sky_radiance(const Lighting& light, Vec3 dir) {
    Vec3 base;
    if (dir.y >= 0.0f) {
        base = lerp(light.sky_horizon, light.sky_zenith, sqrtf(dir.y));
    } else {
        base = lerp(light.sky_horizon, light.ground, saturate(-dir.y * 4.0f));
    }
    const float c = max_f(dot(dir, light.sun_direction), 0.0f);
    const float c2 = c * c, c4 = c2 * c2, c8 = c4 * c4, c16 = c8 * c8, c32 = c16 * c16;
    const float glow = 0.6f * c32 * c32 + 0.15f * c8;
    return (base + light.sun_radiance * glow) * light.sky_intensity;
}

// Irradiance / pi from the sky and ground hemispheres onto a surface with normal n.
SWINUP_HD Vec3 sky_ambient(const Lighting& light, Vec3 n) {
    const float up = 0.5f + 0.5f * n.y;
    const Vec3 sky = lerp(light.sky_horizon, light.sky_zenith, 0.5f);
    return lerp(light.ground * 0.8f, sky, up) * light.sky_intensity;
}

SWINUP_HD Vec3 fresnel_schlick(Vec3 f0, float cos_theta) {
    const float m = 1.0f - saturate(cos_theta);
    const float m5 = m * m * m * m * m;
    return f0 + (Vec3{1, 1, 1} - f0) * m5;
}

struct ShadingInput {
    Vec3 albedo;        // base colour (texture x factor), linear
    Vec3 normal;        // unit shading normal, facing the viewer
    Vec3 to_viewer;     // unit
    const Material* material;
    float sun_visibility;  // 0 in shadow .. 1 lit
};

SWINUP_HD Vec3 shade_surface(const Lighting& light, const ShadingInput& in) {
    const Material& m = *in.material;
    const Vec3 n = in.normal, v = in.to_viewer, l = light.sun_direction;
    const float n_dot_l = max_f(dot(n, l), 0.0f);
    const float n_dot_v = max_f(dot(n, v), 1e-4f);
    const float metallic = saturate(m.metallic);
    const Vec3 f0 = lerp(Vec3{0.04f, 0.04f, 0.04f} * m.specular, in.albedo, metallic);
    const Vec3 diffuse_albedo = in.albedo * (1.0f - metallic);

    // Diffuse: sun (Lambert) + sky.
    Vec3 color = diffuse_albedo * (light.sun_radiance * (n_dot_l * in.sun_visibility / shading_pi) +
                                   sky_ambient(light, n));
    // Sun specular: normalised Blinn-Phong, exponent from GGX alpha = roughness^2.
    const float roughness = clampf(m.roughness, 0.03f, 1.0f);
    const float alpha = roughness * roughness;
    const float exponent = min_f(2.0f / (alpha * alpha) - 2.0f, 8192.0f);
    if (n_dot_l > 0.0f && in.sun_visibility > 0.0f) {
        // Microfacet form F D G / (4 n.l n.v) with the implicit G = n.l n.v, and the Blinn-Phong
        // distribution normalised over projected area: D = (e + 2) / (2 pi) (n.h)^e.
        const Vec3 h = normalize(l + v);
        const float n_dot_h = max_f(dot(n, h), 0.0f);
        const float d = (exponent + 2.0f) / (2.0f * shading_pi) * powf(n_dot_h, exponent);
        const Vec3 f = fresnel_schlick(f0, dot(v, h));
        color += f * light.sun_radiance * (0.25f * d * n_dot_l * in.sun_visibility);
    }
    // Sky reflection, fading out with roughness (no visibility: glossy floors reflect the sky).
    const Vec3 r = n * (2.0f * dot(n, v)) - v;
    const float gloss = (1.0f - roughness) * (1.0f - roughness);
    color += fresnel_schlick(f0, n_dot_v) * sky_radiance(light, r) * gloss;
    return color + m.emissive;
}

// Display encoding for LDR sequences: ACES filmic fit (Narkowicz), result in [0, 1], linear.
SWINUP_HD float tonemap_channel(float x) {
    x = max_f(x, 0.0f);
    const float y = (x * (2.51f * x + 0.03f)) / (x * (2.43f * x + 0.59f) + 0.14f);
    return saturate(y);
}

}  // namespace swinup::render
