// The masks the renderer writes (tracer.h, trace_primary): per render sample, transparency =
// 1 - prod(1 - alpha) over the alpha-blended layers the ray passes, reactive = the same over the
// layers that are particles or animated textures, 1 on an opaque animated texture. Checked on a
// scene where the test knows every layer, then on the built-in `particles` scene and on a scene
// given particles by RenderSettings::particles.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "render/frame_renderer.h"
#include "render/geometry.h"
#include "render/procedural_textures.h"
#include "render/render_sequence.h"
#include "render/scene.h"
#include "render/texture_build.h"

using namespace swinup;
using namespace swinup::render;

namespace {

constexpr int kW = 64, kH = 32;  // aspect 2, fov 60: at distance d the view spans x in
                                 // +-1.1547 d and y in +-0.57735 d
constexpr float kTime = 0.5f, kDt = 1.0f / 30.0f;

// Layers (ndc = normalised device x of the pixel centre, no jitter):
// - an opaque wall at z = -10 everywhere;
// - a glass pane, alpha 0.5, over ndc x < 0 at z = -5;
// - particle A, alpha 0.4, moving sideways, over ndc x in [-0.6, -0.2] at z = -3 (in front of
//   the glass);
// - particle B, alpha 0.4, over ndc x in [0.2, 0.4] at z = -3 (over the wall only);
// - an opaque quad with a scrolling texture over ndc x in [0.6, 0.9] at z = -8.
// Every layer spans ndc y in [-0.3, 0.3] (the glass and wall everything).
std::unique_ptr<Scene> layered_scene() {
    auto scene = std::make_unique<Scene>();
    Material wall;
    wall.roughness = 1.0f;
    const int wall_m = scene->add_material(wall);
    Material glass;
    glass.alpha = 0.5f;
    glass.alpha_mode = alpha_blend;
    glass.double_sided = 1;
    const int glass_m = scene->add_material(glass);
    Material particle;
    particle.alpha = 0.4f;
    particle.alpha_mode = alpha_blend;
    particle.double_sided = 1;
    particle.emissive = {2.0f, 1.0f, 0.5f};
    particle.mask_flags = material_particle;
    const int particle_m = scene->add_material(particle);
    Material ticker;
    ticker.roughness = 1.0f;
    const float a[3] = {0.9f, 0.9f, 0.9f}, b[3] = {0.05f, 0.05f, 0.05f};
    ticker.base_color_texture = texture_add(scene->textures, scene->texels, texture_checker(64, 8, a, b));
    ticker.mask_flags = material_animated_texture;
    ticker.uv_scroll = {0.5f, 0.0f};
    const int ticker_m = scene->add_material(ticker);

    TriangleList fixed, moving;
    add_quad(fixed, {-50, -50, -10}, {100, 0, 0}, {0, 100, 0}, wall_m);
    add_quad(fixed, {-20, -20, -5}, {20, 0, 0}, {0, 40, 0}, glass_m);
    const float hx3 = 1.1547f * 3, hy3 = 0.57735f * 3, hx8 = 1.1547f * 8, hy8 = 0.57735f * 8;
    add_quad(fixed, {0.2f * hx3, -0.3f * hy3, -3}, {0.2f * hx3, 0, 0}, {0, 0.6f * hy3, 0}, particle_m);
    add_quad(fixed, {0.6f * hx8, -0.3f * hy8, -8}, {0.3f * hx8, 0, 0}, {0, 0.6f * hy8, 0}, ticker_m);
    add_quad(moving, {-0.6f * hx3, -0.3f * hy3, -3}, {0.4f * hx3, 0, 0}, {0, 0.6f * hy3, 0}, particle_m);
    scene->add_instance(scene->add_mesh(fixed), Affine{});
    // Particle A moves 2 m/s sideways and is where the layout says at kTime.
    scene->add_animated_instance(scene->add_mesh(moving),
                                 [](float t) { return affine_translation({2.0f * (t - kTime), 0, 0}); });
    return scene;
}

Frame render_layered(float time) {
    auto scene = layered_scene();
    scene->set_time(time, time - kDt);
    FrameRequest r;
    FrameParams& p = r.params;
    CameraPose pose;
    pose.position = {0, 0, 0};
    pose.target = {0, 0, -1};
    pose.fov_y_deg = 60.0f;
    pose.near = 0.1f;
    pose.far = 100.0f;
    p.camera = p.previous_camera = camera_from_pose(pose, 2.0f);
    p.render_width = p.display_width = kW;
    p.render_height = p.display_height = kH;
    r.ground_truth = false;
    return render_frame_cpu(scene->view(), r);
}

// Pixel columns whose centres lie in each region (ndc x = 2 (px + 0.5) / 64 - 1), row 15 (ndc y 0.03).
constexpr int kGlassOnly = 6;       // ndc -0.797
constexpr int kParticleOverGlass = 19;  // ndc -0.391
constexpr int kClear = 35;          // ndc 0.109
constexpr int kParticleOnly = 41;   // ndc 0.297
constexpr int kAnimated = 55;       // ndc 0.734
constexpr int kRow = 15;

}  // namespace

TEST(RenderMasks, FollowTheBlendedLayersOfEachSample) {
    const Frame f = render_layered(kTime);
    ASSERT_EQ(f.masks.width, kW);
    ASSERT_EQ(f.masks.height, kH);
    ASSERT_EQ(f.masks.channels, 2);
    auto reactive = [&](int x) { return f.masks.at(x, kRow, 0); };
    auto transparency = [&](int x) { return f.masks.at(x, kRow, 1); };
    // Under the half-transparent pane alone: transparency 0.5, not reactive.
    EXPECT_EQ(transparency(kGlassOnly), 0.5f);
    EXPECT_EQ(reactive(kGlassOnly), 0.0f);
    // A particle (alpha 0.4) in front of the pane: 1 - 0.6 * 0.5 and the particle's own 0.4.
    EXPECT_NEAR(transparency(kParticleOverGlass), 0.7f, 1e-6f);
    EXPECT_NEAR(reactive(kParticleOverGlass), 0.4f, 1e-6f);
    // A particle over the opaque wall.
    EXPECT_NEAR(transparency(kParticleOnly), 0.4f, 1e-6f);
    EXPECT_NEAR(reactive(kParticleOnly), 0.4f, 1e-6f);
    // Off every blended layer: zero.
    EXPECT_EQ(transparency(kClear), 0.0f);
    EXPECT_EQ(reactive(kClear), 0.0f);
    // An opaque surface whose texture scrolls: fully reactive, no transparency.
    EXPECT_EQ(reactive(kAnimated), 1.0f);
    EXPECT_EQ(transparency(kAnimated), 0.0f);
    // Rows above and below every layer but the pane and the wall: only the pane's 0.5.
    EXPECT_EQ(f.masks.at(kParticleOverGlass, 1, 1), 0.5f);
    EXPECT_EQ(f.masks.at(kParticleOverGlass, 1, 0), 0.0f);
    EXPECT_EQ(f.masks.at(kAnimated, 1, 0), 0.0f);
}

// The particles have no motion vectors or depth of their own: under the moving particle the
// sample reports the still wall behind it (no motion, the wall's depth), as engines do.
TEST(RenderMasks, ParticlesKeepTheMotionAndDepthOfTheSurfaceBehind) {
    const Frame f = render_layered(kTime);
    EXPECT_GT(f.masks.at(kParticleOverGlass, kRow, 0), 0.0f);  // the particle is there
    EXPECT_EQ(f.mv.at(kParticleOverGlass, kRow, 0), 0.0f);
    EXPECT_EQ(f.mv.at(kParticleOverGlass, kRow, 1), 0.0f);
    EXPECT_EQ(f.depth.at(kParticleOverGlass, kRow, 0), f.depth.at(kClear, kRow, 0));
}

// The animated texture really moves over time, while its motion vectors say it is still: what
// the reactive mask is for.
TEST(RenderMasks, AnimatedTextureChangesWithoutMotion) {
    const Frame a = render_layered(kTime), b = render_layered(kTime + 0.1f);
    double change = 0.0;
    for (int y = 12; y < 20; ++y) {
        for (int x = 52; x < 58; ++x) {
            for (int c = 0; c < 3; ++c) change += std::fabs(a.color.at(x, y, c) - b.color.at(x, y, c));
            EXPECT_EQ(a.mv.at(x, y, 0), 0.0f);
            EXPECT_EQ(b.mv.at(x, y, 0), 0.0f);
        }
    }
    EXPECT_GT(change, 1.0);
}

namespace {

RenderSettings small_settings(const std::string& scene) {
    RenderSettings s;
    s.scene = scene;
    s.frames = 2;
    s.render_width = 96;
    s.render_height = 54;
    s.display_width = 192;
    s.display_height = 108;
    s.seed = 5;
    return s;
}

}  // namespace

// The built-in scene holds every kind of masked content: the pane's 0.5, the ticker's reactive 1,
// particles' fractional reactive values; most of the frame is unmasked.
TEST(RenderMasks, ParticlesSceneHasPaneTickerAndParticles) {
    const RenderedSequence seq = render_sequence(small_settings("particles"));
    EXPECT_TRUE(seq.info.has_masks);
    const Image& m = seq.frames[1].masks;
    ASSERT_EQ(m.width, 96);
    int pane = 0, ticker = 0, particle = 0, clear = 0;
    for (int y = 0; y < m.height; ++y) {
        for (int x = 0; x < m.width; ++x) {
            const float r = m.at(x, y, 0), t = m.at(x, y, 1);
            ASSERT_TRUE(r >= 0.0f && r <= 1.0f && t >= 0.0f && t <= 1.0f) << x << "," << y;
            pane += t == 0.5f && r == 0.0f;
            ticker += r == 1.0f && t == 0.0f;
            particle += r > 0.0f && r < 1.0f;
            clear += r == 0.0f && t == 0.0f;
        }
    }
    EXPECT_GT(pane, 200);
    EXPECT_GT(ticker, 20);
    EXPECT_GT(particle, 20);
    EXPECT_GT(clear, m.width * m.height / 2);
}

// Particles added to any scene show in the colour and the masks and leave its depth and motion
// vectors exactly as they were; without masks the sequence says so and carries none. The masks
// change no colour.
TEST(RenderMasks, ParticlesOnAnySceneLeaveDepthAndMotionAlone) {
    RenderSettings plain = small_settings("spinner");
    RenderSettings with = plain;
    with.particles = 40;
    RenderSettings unmasked = plain;
    unmasked.masks = false;
    const RenderedSequence a = render_sequence(plain), b = render_sequence(with), c = render_sequence(unmasked);
    EXPECT_FALSE(c.info.has_masks);
    EXPECT_TRUE(c.frames[1].masks.empty());
    EXPECT_EQ(a.frames[1].color.data, c.frames[1].color.data);
    EXPECT_EQ(a.frames[1].gt.data, c.frames[1].gt.data);
    EXPECT_EQ(a.frames[1].depth.data, b.frames[1].depth.data);
    EXPECT_EQ(a.frames[1].mv.data, b.frames[1].mv.data);
    EXPECT_NE(a.frames[1].color.data, b.frames[1].color.data);
    int reactive_without = 0, reactive_with = 0;
    for (size_t i = 0; i < a.frames[1].masks.data.size(); i += 2) {
        reactive_without += a.frames[1].masks.data[i] > 0.0f;
        reactive_with += b.frames[1].masks.data[i] > 0.0f;
    }
    EXPECT_EQ(reactive_without, 0);  // spinner has no blended or animated material
    EXPECT_GT(reactive_with, 50);
    EXPECT_NE(b.info.scene.find("40 particles"), std::string::npos);
}

TEST(RenderMasks, NegativeParticleCountIsNamed) {
    RenderSettings s = small_settings("spinner");
    s.particles = -3;
    try {
        render_sequence(s);
        FAIL() << "no RenderError";
    } catch (const RenderError& e) {
        EXPECT_NE(std::string(e.what()).find("particles = -3"), std::string::npos) << e.what();
    }
}
