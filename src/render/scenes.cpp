#include "render/scenes.h"

#include <cmath>

#include "render/geometry.h"
#include "render/jitter.h"
#include "render/particle_emitter.h"
#include "render/procedural_textures.h"
#include "render/texture_build.h"

namespace swinup::render {

namespace {

constexpr float pi = 3.14159265358979f;

// Collects static geometry into one mesh (one instance: the fastest to trace) and adds
// animated parts as their own instances.
class SceneBuilder {
public:
    explicit SceneBuilder(Scene& scene) : scene_(scene) {}

    int material(Vec3 color, float roughness, float metallic = 0.0f, int texture = -1,
                 int alpha_mode = alpha_opaque, bool double_sided = false) {
        Material m;
        m.base_color = color;
        m.roughness = roughness;
        m.metallic = metallic;
        m.base_color_texture = texture;
        m.alpha_mode = alpha_mode;
        m.double_sided = double_sided ? 1 : 0;
        return scene_.add_material(m);
    }
    int texture(const Image& image) { return texture_add(scene_.textures, scene_.texels, image); }

    TriangleList& fixed() { return static_; }

    void animated(const TriangleList& triangles, InstanceAnimation animation) {
        scene_.add_animated_instance(scene_.add_mesh(triangles), std::move(animation));
    }

    void finish() {
        if (!static_.empty()) scene_.add_instance(scene_.add_mesh(static_), Affine{});
        static_.clear();
    }

    Scene& scene() { return scene_; }

private:
    Scene& scene_;
    TriangleList static_;
};

Affine translate_rotate(Vec3 t, Vec3 axis, float angle) {
    return affine_multiply(affine_translation(t), affine_rotation(axis, angle));
}

// ---- reusable pieces ---------------------------------------------------------------------

void add_ground(SceneBuilder& b, float half_size, float repeat_m) {
    const float a[3] = {0.10f, 0.10f, 0.11f}, c[3] = {0.22f, 0.21f, 0.20f};
    const int asphalt = b.material({1, 1, 1}, 0.7f, 0.0f, b.texture(texture_noise(256, a, c, 7)));
    const float repeats = 2.0f * half_size / repeat_m;
    add_quad(b.fixed(), {-half_size, 0, half_size}, {2 * half_size, 0, 0}, {0, 0, -2 * half_size}, asphalt,
             {repeats, repeats});
}

// A brick wall (a thin box) from x0 to x1 at depth z, facing +z.
void add_brick_wall(SceneBuilder& b, float x0, float x1, float z, float height) {
    const int bricks = b.material({1, 1, 1}, 0.85f, 0.0f, b.texture(texture_bricks(512, 3)));
    add_box(b.fixed(), {x0, 0, z - 0.5f}, {x1, height, z}, bricks, {(x1 - x0) / 2.5f, height / 2.5f});
}

// Chain-link fence along x at depth z: alpha-masked, double-sided mesh between posts.
void add_fence(SceneBuilder& b, float x0, float x1, float z, float height) {
    const int link = b.material({1, 1, 1}, 0.35f, 0.8f, b.texture(texture_chain_link(256, 4, 5.0f)), alpha_mask, true);
    const int metal = b.material({0.6f, 0.62f, 0.65f}, 0.3f, 1.0f);
    const float diamond_m = 0.08f;  // one diamond every 8 cm
    add_quad(b.fixed(), {x0, 0.05f, z}, {x1 - x0, 0, 0}, {0, height, 0}, link,
             {(x1 - x0) / (4 * diamond_m), height / (4 * diamond_m)});
    for (float x = x0; x <= x1 + 1e-3f; x += 2.5f) add_cylinder(b.fixed(), {x, 0, z}, {x, height + 0.1f, z}, 0.035f, 10, metal);
    add_cylinder(b.fixed(), {x0, height, z}, {x1, height, z}, 0.02f, 8, metal);
}

// Two poles with sagging thin wires between them (sub-pixel at render resolution).
void add_power_lines(SceneBuilder& b, Vec3 pole_a, Vec3 pole_b, float height, int wires, float wire_radius) {
    const int wood = b.material({0.25f, 0.17f, 0.1f}, 0.8f);
    const int cable = b.material({0.05f, 0.05f, 0.05f}, 0.25f, 0.5f);
    add_cylinder(b.fixed(), pole_a, pole_a + Vec3{0, height, 0}, 0.12f, 12, wood);
    add_cylinder(b.fixed(), pole_b, pole_b + Vec3{0, height, 0}, 0.12f, 12, wood);
    for (const Vec3 base : {pole_a, pole_b}) {
        add_box(b.fixed(), base + Vec3{-0.9f, height - 0.5f, -0.06f}, base + Vec3{0.9f, height - 0.38f, 0.06f}, wood);
    }
    const int segments = 16;
    for (int w = 0; w < wires; ++w) {
        const float offset = -0.8f + 1.6f * static_cast<float>(w) / static_cast<float>(std::max(1, wires - 1));
        const Vec3 a = pole_a + Vec3{offset, height - 0.37f, 0}, c = pole_b + Vec3{offset, height - 0.37f, 0};
        for (int s = 0; s < segments; ++s) {
            auto point = [&](int k) {
                const float f = static_cast<float>(k) / segments;
                return lerp(a, c, f) - Vec3{0, 4.0f * 0.6f * f * (1 - f), 0};  // parabolic sag of 0.6 m
            };
            add_cylinder(b.fixed(), point(s), point(s + 1), wire_radius, 6, cable);
        }
    }
}

// A text panel: a texture of the lines on a quad `width` wide (height from the texture's aspect).
void add_sign(SceneBuilder& b, const std::vector<std::string>& lines, Vec3 bottom_left, Vec3 right, float width,
              int scale, bool glossy) {
    const float ink[3] = {0.02f, 0.02f, 0.03f}, paper[3] = {0.85f, 0.83f, 0.75f};
    const Image text = texture_text(lines, scale, ink, paper);
    const int m = b.material({1, 1, 1}, glossy ? 0.25f : 0.8f, 0.0f, b.texture(text));
    const float height = width * static_cast<float>(text.height) / static_cast<float>(text.width);
    const Vec3 r = normalize(right) * width;
    add_quad(b.fixed(), bottom_left, r, {0, height, 0}, m);
    const int frame = b.material({0.1f, 0.1f, 0.12f}, 0.5f, 0.6f);
    const Vec3 n = normalize(cross(r, Vec3{0, 1, 0}));
    const Vec3 c0 = bottom_left - n * 0.06f - Vec3{0.05f, 0.05f, 0} ;
    const Vec3 c1 = bottom_left + r + Vec3{0.05f, height + 0.05f, 0} - n * 0.01f;
    add_box(b.fixed(), vmin(c0, c1), vmax(c0, c1), frame);  // a frame just behind the panel
}

// A four-bladed fan spinning about the z axis at `rev_per_s`.
void add_fan(SceneBuilder& b, Vec3 center, float radius, float rev_per_s) {
    const int blade_material = b.material({0.8f, 0.15f, 0.1f}, 0.3f);
    TriangleList blades;
    for (int k = 0; k < 4; ++k) {
        TriangleList blade;
        add_box(blade, {0.05f, -0.06f * radius, -0.02f}, {radius, 0.06f * radius, 0.02f}, blade_material);
        const Affine rot = affine_rotation({0, 0, 1}, static_cast<float>(k) * pi / 2);
        for (SourceTriangle t : blade) {
            for (int i = 0; i < 3; ++i) {
                t.p[i] = transform_point(rot, t.p[i]);
                t.n[i] = transform_vector(rot, t.n[i]);
            }
            blades.push_back(t);
        }
    }
    add_cylinder(blades, {0, 0, -0.05f}, {0, 0, 0.05f}, 0.1f * radius, 12, blade_material);
    b.animated(blades, [center, rev_per_s](float t) {
        return translate_rotate(center, {0, 0, 1}, 2 * pi * rev_per_s * t);
    });
    const int metal = b.material({0.3f, 0.3f, 0.32f}, 0.4f, 1.0f);
    add_cylinder(b.fixed(), {center.x, 0, center.z - 0.1f}, {center.x, center.y, center.z - 0.1f}, 0.05f, 10, metal);
}

void add_glossy_spheres(SceneBuilder& b, Vec3 center, float spacing) {
    const int chrome = b.material({0.95f, 0.93f, 0.88f}, 0.08f, 1.0f);
    const int gold = b.material({1.0f, 0.78f, 0.34f}, 0.2f, 1.0f);
    const int plastic = b.material({0.1f, 0.3f, 0.8f}, 0.15f, 0.0f);
    const int mats[3] = {chrome, gold, plastic};
    for (int k = 0; k < 3; ++k) {
        add_sphere(b.fixed(), center + Vec3{spacing * static_cast<float>(k - 1), 0.5f, 0}, 0.5f, 24, 48, mats[k]);
    }
}

void add_tumbling_cube(SceneBuilder& b, Vec3 center, float size, float speed) {
    const float w[3] = {0.9f, 0.9f, 0.9f}, k[3] = {0.05f, 0.05f, 0.05f};
    const int m = b.material({1, 1, 1}, 0.4f, 0.0f, b.texture(texture_checker(256, 32, w, k)));
    TriangleList cube;
    add_box(cube, {-size / 2, -size / 2, -size / 2}, {size / 2, size / 2, size / 2}, m);
    b.animated(cube, [center, speed](float t) {
        const Affine spin = affine_multiply(affine_rotation({0, 1, 0}, speed * t), affine_rotation({1, 0, 0}, 0.7f * speed * t));
        return affine_multiply(affine_translation(center), spin);
    });
}

// A ball moving fast from side to side (x = center.x + amplitude sin(omega t)).
void add_flying_ball(SceneBuilder& b, Vec3 center, float amplitude, float omega) {
    const int red = b.material({0.85f, 0.1f, 0.08f}, 0.2f);
    TriangleList ball;
    add_sphere(ball, {0, 0, 0}, 0.35f, 16, 32, red);
    b.animated(ball, [center, amplitude, omega](float t) {
        const float x = amplitude * std::sin(omega * t);
        return translate_rotate(center + Vec3{x, 0, 0}, {0, 0, 1}, -x / 0.35f);  // rolling
    });
}

// The asphalt ground with a brick wall across it, centred on x = 0: where the street scenes start.
void add_walled_ground(SceneBuilder& b, float wall_half_width, float wall_z, float wall_height) {
    add_ground(b, 100, 4);
    add_brick_wall(b, -wall_half_width, wall_half_width, wall_z, wall_height);
}

CameraPose pose(Vec3 position, Vec3 target, float fov = 50.0f) {
    CameraPose p;
    p.position = position;
    p.target = target;
    p.fov_y_deg = fov;
    p.near = 0.05f;
    p.far = 500.0f;
    return p;
}

// Ends a scene: its static geometry as one instance, daylight, the scale its preset camera
// motions are sized by, and the camera's pose (where it stays unless camera_motion is set).
void finish_daylit(SceneBuilder& b, float scale, CameraPose camera) {
    b.finish();
    Scene& s = b.scene();
    s.lighting.sun_direction = normalize(Vec3{0.45f, 0.7f, 0.55f});
    s.scale = scale;
    s.camera_base = camera;
}

// The camera trucking sideways (along +x) at `speed` m/s, looking the same way throughout.
CameraMotion trucking(CameraPose base, float speed) {
    return [base, speed](float t) {
        CameraPose p = base;
        p.position.x += speed * t;
        p.target.x += speed * t;
        return p;
    };
}

// ---- the scenes ------------------------------------------------------------------------------

void build_fence(Scene& s) {
    SceneBuilder b(s);
    add_walled_ground(b, 20, -14, 7);
    add_fence(b, -15, 15, -4, 2.2f);
    add_power_lines(b, {-14, 0, -9}, {14, 0, -9}, 9, 4, 0.012f);
    add_glossy_spheres(b, {1.5f, 0, -7}, 1.3f);
    finish_daylit(b, 10, pose({-3, 1.6f, 4}, {-2.5f, 1.8f, -6}));
    // Trucking along the fence: parallax between the links, the wires and the wall.
    s.camera_motion = trucking(s.camera_base, 1.5f);
}

void build_moire(Scene& s) {
    SceneBuilder b(s);
    const float w[3] = {0.8f, 0.8f, 0.78f}, k[3] = {0.03f, 0.03f, 0.035f};
    // Checks of 2 cm on the ground: about one render pixel a few metres away.
    const int checks = b.material({1, 1, 1}, 0.6f, 0.0f, b.texture(texture_checker(1024, 8, w, k)));
    add_quad(b.fixed(), {-100, 0, 100}, {200, 0, 0}, {0, 0, -200}, checks, {80, 80});
    const int chirp = b.material({1, 1, 1}, 0.5f, 0.0f, b.texture(texture_chirp(1024)));
    add_quad(b.fixed(), {-4, 0.5f, -9}, {8, 0, 0}, {0, 6, 0}, chirp, {2, 1.5f});
    // A grille of thin bars: geometric aliasing, not only texture.
    const int bar = b.material({0.7f, 0.7f, 0.72f}, 0.3f, 1.0f);
    for (int i = 0; i < 60; ++i) {
        const float x = -6.0f + 0.05f * static_cast<float>(i);
        add_box(b.fixed(), {x, 0, -3}, {x + 0.012f, 2.0f, -2.99f}, bar);
    }
    add_glossy_spheres(b, {3.5f, 0, -4}, 1.2f);
    finish_daylit(b, 8, pose({0, 1.7f, 6}, {0, 1.2f, -8}));
    const CameraPose base = s.camera_base;
    // Slow dolly in with a slight turn: the moire patterns crawl.
    s.camera_motion = [base](float t) {
        CameraPose p = base;
        p.position.z -= 0.8f * t;
        p.target.x += 0.6f * t;
        return p;
    };
}

void build_text(Scene& s) {
    SceneBuilder b(s);
    add_walled_ground(b, 12, -6, 6);
    add_sign(b, {"SWINUP", "TEMPORAL UPSCALER"}, {-5, 3.3f, -5.9f}, {1, 0, 0}, 5.0f, 8, true);
    add_sign(b, {"The quick brown fox jumps over the lazy dog 0123456789.",
                 "Small text is where upscalers fail: strokes one render pixel wide",
                 "alias and shimmer as the jitter moves; the ground truth keeps them.",
                 "Sphinx of black quartz, judge my vow!  (){}[]<>+-*/=%#&@$"},
             {-5, 1.0f, -5.9f}, {1, 0, 0}, 4.5f, 6, false);
    add_sign(b, {"EXIT 42", "km 0.5"}, {1.2f, 1.2f, -5.9f}, {1, 0, 0}, 1.4f, 10, true);
    add_sign(b, {"Rotating text: 3.14159 2.71828 1.41421"}, {3, 0.6f, -5.9f}, {1, 0, 0}, 3.0f, 6, false);
    // A text cube spinning in front of the wall.
    {
        const float ink[3] = {0.9f, 0.9f, 0.2f}, paper[3] = {0.05f, 0.05f, 0.1f};
        const int m = b.material({1, 1, 1}, 0.5f, 0.0f, b.texture(texture_text({"SPIN", "1234"}, 12, ink, paper)));
        TriangleList cube;
        add_box(cube, {-0.5f, -0.5f, -0.5f}, {0.5f, 0.5f, 0.5f}, m);
        b.animated(cube, [](float t) { return translate_rotate({2.5f, 2.8f, -3.5f}, {0, 1, 0}, 1.5f * t); });
    }
    finish_daylit(b, 6, pose({-0.5f, 2.0f, 3.5f}, {0, 2.2f, -6}, 45.0f));
    const CameraPose base = s.camera_base;
    // Slow pan with a little hand-held wobble: text crawls across pixel boundaries.
    s.camera_motion = [base](float t) {
        CameraPose p = base;
        p.target.x += 1.2f * t;
        p.position.y += 0.02f * std::sin(7.0f * t);
        return p;
    };
}

void build_spinner(Scene& s) {
    SceneBuilder b(s);
    add_walled_ground(b, 12, -6, 6);
    add_fan(b, {-1.5f, 2.2f, -3}, 1.3f, 1.2f);
    add_tumbling_cube(b, {2.2f, 1.4f, -2.5f}, 0.9f, 2.5f);
    add_flying_ball(b, {0, 0.35f, -1.0f}, 3.5f, 2.4f);
    add_glossy_spheres(b, {0.5f, 0, -4.8f}, 1.1f);
    // A still camera: all motion is object motion.
    finish_daylit(b, 6, pose({0, 1.6f, 5.5f}, {0, 1.5f, -5}));
}

void build_showcase(Scene& s) {
    SceneBuilder b(s);
    add_walled_ground(b, 14, -10, 7);
    add_fence(b, -12, 2, -5, 2.0f);
    add_power_lines(b, {-12, 0, -7.5f}, {12, 0, -7.5f}, 8.5f, 3, 0.012f);
    add_sign(b, {"SWINUP demo street", "Thin wires, fences, text,", "fast motion and highlights."},
             {3, 1.2f, -9.9f}, {1, 0, 0}, 4.0f, 8, true);
    add_fan(b, {5, 2.3f, -6}, 1.1f, 1.0f);
    add_flying_ball(b, {1, 0.35f, -3}, 3.0f, 2.0f);
    add_tumbling_cube(b, {-2, 2.6f, -3.5f}, 0.7f, 2.0f);
    add_glossy_spheres(b, {-6, 0, -7.5f}, 1.2f);
    const float w[3] = {0.8f, 0.8f, 0.78f}, k[3] = {0.03f, 0.03f, 0.035f};
    const int checks = b.material({1, 1, 1}, 0.5f, 0.0f, b.texture(texture_checker(512, 8, w, k)));
    add_quad(b.fixed(), {-1, 0.01f, 2}, {6, 0, 0}, {0, 0, -4}, checks, {6, 4});
    finish_daylit(b, 10, pose({-1, 1.7f, 5}, {0.5f, 1.8f, -6}));
    const CameraPose base = s.camera_base;
    // A slow arc: parallax through the fence, the wires crossing the sky.
    s.camera_motion = [base](float t) {
        CameraPose p = base;
        const float a = 0.15f * t;
        p.position = base.target + transform_vector(affine_rotation({0, 1, 0}, a), base.position - base.target);
        return p;
    };
}

// What the reactive and transparency & composition masks are for: glowing particles drifting in
// front of everything, a glass pane (alpha 0.5) over a ball and a cube moving behind it, and a
// ticker sign whose text scrolls (an animated texture). The camera trucks slowly sideways.
void build_particles(Scene& s) {
    SceneBuilder b(s);
    add_walled_ground(b, 14, -8, 7);
    add_flying_ball(b, {-1.5f, 1.0f, -3.0f}, 2.2f, 2.6f);
    add_tumbling_cube(b, {-2.6f, 1.7f, -4.5f}, 0.8f, 2.2f);
    // The pane: a flat alpha of 0.5, dark (what it adds is mostly its reflection) and glossy, in a
    // dark frame.
    Material glass;
    glass.base_color = {0.08f, 0.11f, 0.11f};
    glass.alpha = 0.5f;
    glass.alpha_mode = alpha_blend;
    glass.double_sided = 1;
    glass.roughness = 0.05f;
    const int pane = s.add_material(glass);
    add_quad(b.fixed(), {-4.0f, 0.2f, -1.5f}, {4.5f, 0, 0}, {0, 2.6f, 0}, pane);
    const int frame = b.material({0.08f, 0.08f, 0.09f}, 0.5f, 0.6f);
    add_box(b.fixed(), {-4.1f, 0.1f, -1.55f}, {0.6f, 0.2f, -1.45f}, frame);
    add_box(b.fixed(), {-4.1f, 2.8f, -1.55f}, {0.6f, 2.9f, -1.45f}, frame);
    add_box(b.fixed(), {-4.1f, 0.1f, -1.55f}, {-4.0f, 2.9f, -1.45f}, frame);
    add_box(b.fixed(), {0.5f, 0.1f, -1.55f}, {0.6f, 2.9f, -1.45f}, frame);
    // The ticker: text that scrolls left at half the sign's width per second.
    {
        const float ink[3] = {1.0f, 0.55f, 0.1f}, paper[3] = {0.03f, 0.02f, 0.02f};
        const Image text = texture_text({"SWINUP * MASKS * "}, 6, ink, paper);
        Material ticker;
        ticker.base_color_texture = b.texture(text);
        ticker.roughness = 0.6f;
        ticker.emissive = {0.15f, 0.08f, 0.02f};
        ticker.mask_flags = material_animated_texture;
        ticker.uv_scroll = {0.5f, 0.0f};
        const int m = s.add_material(ticker);
        const float width = 4.5f, height = width * static_cast<float>(text.height) / static_cast<float>(text.width);
        add_quad(b.fixed(), {1.0f, 3.2f, -7.45f}, {width, 0, 0}, {0, height, 0}, m);
        add_box(b.fixed(), {0.9f, 3.1f, -7.55f}, {1.1f + width, 3.3f + height, -7.46f}, frame);
    }
    add_glossy_spheres(b, {3.0f, 0, -5.0f}, 1.2f);
    finish_daylit(b, 6, pose({0.5f, 1.6f, 5.0f}, {-0.5f, 1.7f, -6.0f}));
    ParticleEmitterSettings sparks;
    sparks.count = 48;
    sparks.seed = 7;  // the scene's own: the same particles whatever the ground truth's seed
    add_particle_emitter(s, s.camera_base, sparks);
    s.camera_motion = trucking(s.camera_base, 0.6f);
}


// Numbers of a seeded scene: the i-th uniform in [0, 1) of `seed`, the same on every machine.
class SceneRandom {
public:
    explicit SceneRandom(uint64_t seed)
        : key_(hash_combine(static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32))) {}
    float unit() { return hash_to_unit(hash_combine(key_, counter_++)); }
    float range(float lo, float hi) { return lo + (hi - lo) * unit(); }
    int below(int n) { return std::min(static_cast<int>(unit() * static_cast<float>(n)), n - 1); }
    Vec3 colour() { return {range(0.05f, 0.95f), range(0.05f, 0.95f), range(0.05f, 0.95f)}; }

private:
    uint32_t key_;
    uint32_t counter_ = 0;
};

// A textured material for a mover or the backdrop: a checker, noise, bricks or text, in colours
// drawn from `r`, at `repeat` tiles (returned through uv_scale by the caller).
int random_textured_material(SceneBuilder& b, SceneRandom& r) {
    // Two colours far apart (the second near the first's complement): a ghost of the texture shows.
    const Vec3 a = r.colour(), c = lerp(Vec3{1.0f - a.x, 1.0f - a.y, 1.0f - a.z}, r.colour(), 0.3f);
    const float ca[3] = {a.x, a.y, a.z}, cc[3] = {c.x, c.y, c.z};
    const float roughness = r.range(0.3f, 0.9f);
    switch (r.below(4)) {
        case 0: return b.material({1, 1, 1}, roughness, 0.0f, b.texture(texture_checker(256, 8 << r.below(3), ca, cc)));
        case 1: return b.material({1, 1, 1}, roughness, 0.0f, b.texture(texture_noise(256, ca, cc, static_cast<unsigned>(r.below(1000)))));
        case 2: return b.material({1, 1, 1}, roughness, 0.0f, b.texture(texture_bricks(256, static_cast<unsigned>(r.below(1000)))));
        default: return b.material({1, 1, 1}, roughness, 0.0f, b.texture(texture_text({"MOVE 42", "SPIN 7"}, 6, ca, cc)));
    }
}

// Objects of their own texture crossing textured backdrops at varied speeds, spinning at varied
// rates, at varied depths, seeded: what a moving object uncovers behind it and what its own
// texture does while it turns (docs/journal/2026-12-07-ghost-trails-cause.md). Training data, not
// scored: it shares no object with the scored scenes (showcase, spinner). A still camera by
// default (all motion is the objects'); the presets move it.
void build_movers(Scene& s, uint64_t seed) {
    SceneBuilder b(s);
    SceneRandom r(seed);
    // The backdrop: a textured wall across the view at 7-10 m and a textured ground.
    const float wall_z = -r.range(7.0f, 10.0f);
    TriangleList& fixed = b.fixed();
    add_quad(fixed, {-30, 0, wall_z}, {60, 0, 0}, {0, 12, 0}, random_textured_material(b, r),
             {r.range(6.0f, 20.0f), r.range(1.5f, 5.0f)});
    add_quad(fixed, {-30, 0, 8}, {60, 0, 0}, {0, 0, wall_z - 8}, random_textured_material(b, r),
             {r.range(8.0f, 30.0f), r.range(4.0f, 15.0f)});
    // Six to nine movers: boxes, spheres and thin panels, 0.4-1.8 m, between the wall and 0.5 m
    // in front of the camera's target; each swings across the view (peak speed 0.5-9 m/s, about
    // 2-30 display pixels a frame at 960x540) and spins about its own axis at 0.5-12 rad/s (a
    // fifth of them not at all).
    const int count = 6 + r.below(4);
    for (int k = 0; k < count; ++k) {
        const int m = random_textured_material(b, r);
        const float size = r.range(0.4f, 1.8f);
        TriangleList shape;
        switch (r.below(3)) {
            case 0: add_box(shape, {-size / 2, -size / 2, -size / 2}, {size / 2, size / 2, size / 2}, m); break;
            case 1: add_sphere(shape, {0, 0, 0}, size / 2, 16, 32, m); break;
            default: add_box(shape, {-size / 2, -size / 2, -0.03f}, {size / 2, size / 2, 0.03f}, m); break;
        }
        const Vec3 centre{r.range(-2.5f, 2.5f), r.range(0.5f, 2.8f), r.range(wall_z + 1.5f, -0.5f)};
        const float amplitude = r.range(0.8f, 3.0f);
        const float peak_speed = 0.5f * std::pow(18.0f, r.unit());  // log-uniform, 0.5-9 m/s
        const float omega = peak_speed / amplitude, phase = r.range(0.0f, 2 * pi);
        const Vec3 direction = normalize(Vec3{1.0f, r.range(-0.4f, 0.4f), r.range(-0.3f, 0.3f)});
        const Vec3 axis = normalize(Vec3{r.range(-1, 1), r.range(-1, 1), r.range(-1, 1)} + Vec3{0, 0.1f, 0});
        const float spin = r.unit() < 0.2f ? 0.0f : r.range(0.5f, 12.0f);
        b.animated(shape, [=](float t) {
            return translate_rotate(centre + direction * (amplitude * std::sin(omega * t + phase)), axis, spin * t);
        });
    }
    finish_daylit(b, 8, pose({0, 1.6f, 5.5f}, {0, 1.5f, -5}));
}

}  // namespace

const std::vector<BuiltinSceneInfo>& builtin_scenes() {
    static const std::vector<BuiltinSceneInfo> scenes = {
        {"showcase", "a street with everything below: fence, wires, text, spinning and flying objects, highlights; slow arc"},
        {"fence", "chain-link fence (alpha mask), power lines, brick wall, glossy spheres; camera trucks sideways"},
        {"moire", "2 cm checkerboard to the horizon, chirp and ring patterns, a thin-bar grille; slow dolly in"},
        {"text", "signs with large and small text, a spinning text cube; slow pan with wobble"},
        {"spinner", "fast fan, tumbling cube, flying ball in front of a wall (disocclusion); static camera"},
        {"particles", "glowing particles (no motion vectors), a glass pane over a moving ball and cube, a scrolling "
                      "ticker (animated texture): what the masks are for; camera trucks sideways"},
        {"movers", "textured objects swinging across textured backdrops at varied speeds and spin rates, "
                   "laid out by the seed (training data for disocclusion); static camera"},
    };
    return scenes;
}

std::unique_ptr<Scene> builtin_scene_create(const std::string& name, uint64_t seed) {
    auto scene = std::make_unique<Scene>();
    scene->name = name;
    if (name == "showcase") build_showcase(*scene);
    else if (name == "fence") build_fence(*scene);
    else if (name == "moire") build_moire(*scene);
    else if (name == "text") build_text(*scene);
    else if (name == "spinner") build_spinner(*scene);
    else if (name == "particles") build_particles(*scene);
    else if (name == "movers") build_movers(*scene, seed);
    else return nullptr;
    for (const auto& info : builtin_scenes()) {
        if (info.name == name) scene->description = info.description;
    }
    return scene;
}

}  // namespace swinup::render
