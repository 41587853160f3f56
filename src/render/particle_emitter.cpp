#include "render/particle_emitter.h"

#include <cmath>

#include "render/geometry.h"
#include "render/jitter.h"
#include "render/procedural_textures.h"
#include "render/texture_build.h"

namespace swinup::render {

void add_particle_emitter(Scene& scene, const CameraPose& view, const ParticleEmitterSettings& settings) {
    if (settings.count <= 0) return;
    Material sprite;
    sprite.base_color = {0.2f, 0.1f, 0.05f};
    sprite.roughness = 1.0f;
    sprite.specular = 0.0f;
    sprite.alpha_mode = alpha_blend;
    sprite.double_sided = 1;
    sprite.emissive = settings.emissive;
    sprite.mask_flags = material_particle;
    sprite.base_color_texture = texture_add(scene.textures, scene.texels, texture_soft_disc(64, settings.peak_alpha),
                                            wrap_clamp, wrap_clamp);
    const int material = scene.add_material(sprite);

    // The view's basis: the sprites face the camera of `view` (billboards fixed at its first pose;
    // a moving camera sees them a little turned, as particles of a fixed orientation).
    const Vec3 forward = normalize(view.target - view.position);
    const Vec3 right = normalize(cross(forward, view.up));
    const Vec3 up = cross(right, forward);
    TriangleList quad;  // unit square in the sprite's plane, centred at the origin
    add_quad(quad, {-1, -1, 0}, {2, 0, 0}, {0, 2, 0}, material);
    const int mesh = scene.add_mesh(quad);

    const float tan_half = std::tan(0.5f * view.fov_y_deg * 3.14159265f / 180.0f);
    const uint32_t seed = hash_combine(static_cast<uint32_t>(settings.seed), static_cast<uint32_t>(settings.seed >> 32));
    for (int i = 0; i < settings.count; ++i) {
        uint32_t h = hash_combine(seed, static_cast<uint32_t>(i));
        auto next = [&h] {
            h = hash_u32(h);
            return hash_to_unit(h);
        };
        const float distance =
            scene.scale * (settings.near_fraction + (settings.far_fraction - settings.near_fraction) * next());
        const float half_height = distance * tan_half;  // half the view's height at that distance
        const float x = (2.0f * next() - 1.0f) * 1.6f * half_height;  // a 16:9 view and a margin
        const float y0 = (2.0f * next() - 1.0f) * half_height;
        const float radius = settings.radius_fraction * half_height * (0.6f + 0.8f * next());
        const float rise = settings.rise_fraction * half_height * (0.6f + 0.8f * next());
        const float sway = settings.sway_fraction * half_height * (0.5f + next());
        const float sway_rate = 2.0f + 3.0f * next(), phase = 6.2831853f * next();
        const Vec3 centre = view.position + forward * distance;
        // The sprite's plane: the view's right and up axes, scaled to the particle's radius.
        Affine orient;
        for (int r = 0; r < 3; ++r) {
            orient.m[r][0] = right[r] * radius;
            orient.m[r][1] = up[r] * radius;
            orient.m[r][2] = forward[r] * radius;
            orient.m[r][3] = 0.0f;
        }
        scene.add_animated_instance(mesh, [=](float t) {
            // Rise from y0, wrapping over the view's height (plus a radius above and below).
            const float span = 2.0f * (half_height + radius);
            float y = std::fmod(y0 + half_height + radius + rise * t, span);
            if (y < 0.0f) y += span;
            y -= half_height + radius;
            const float dx = sway * std::sin(sway_rate * t + phase);
            Affine a = orient;
            const Vec3 p = centre + right * (x + dx) + up * y;
            a.m[0][3] = p.x;
            a.m[1][3] = p.y;
            a.m[2][3] = p.z;
            return a;
        });
    }
}

}  // namespace swinup::render
