// What one pixel of each output of a frame is, one definition for host (frame_renderer.cpp,
// oneTBB over rows) and device (render_cuda.cu, one thread per pixel):
// - render pixel: one ray at the jittered sample position -> colour, device depth, motion vector,
//   masks (reactive, transparency & composition of that sample);
// - display motion vector: one ray at the display pixel's centre;
// - ground-truth pixel: strata x strata jittered samples over the display pixel, box filtered.
#pragma once

#include <cstdint>

#include "render/camera.h"
#include "render/jitter.h"
#include "render/tracer.h"

namespace swinup::render {

struct FrameParams {
    Camera camera;            // this frame
    Camera previous_camera;   // the previous frame (motion vectors)
    int render_width = 0, render_height = 0;
    int display_width = 0, display_height = 0;
    float jitter_x = 0.0f, jitter_y = 0.0f;  // render pixels
    float render_lod_bias = 0.0f;            // mip bias of the render pass
    float display_lod_bias = 0.0f;           // mip bias of the ground truth (same detail)
    int gt_strata = 4;                       // ground truth: gt_strata^2 samples per pixel
    uint32_t seed = 0;
    uint32_t frame_index = 0;
    bool depth_inverted = false;
    bool hdr = false;
};

SWINUP_HD Vec3 output_color(Vec3 c, bool hdr) {
    if (hdr) return {max_f(c.x, 0.0f), max_f(c.y, 0.0f), max_f(c.z, 0.0f)};
    return {tonemap_channel(c.x), tonemap_channel(c.y), tonemap_channel(c.z)};
}

// Cone of a pixel of an image `height` pixels tall: the angle one pixel subtends at the centre.
SWINUP_HD RayCone pixel_cone(const Camera& c, int height) {
    return {0.0f, 2.0f * c.tan_half_fov_y / static_cast<float>(height)};
}

// Motion of a primary sample from this frame to the previous one, in pixels of a width x height
// image (current -> previous, without jitter).
SWINUP_HD Vec2 sample_motion(const FrameParams& p, const PrimarySample& s, int width, int height) {
    PixelProjection now, before;
    if (s.hit) {
        now = camera_project_point(p.camera, s.position, width, height);
        before = camera_project_point(p.previous_camera, s.previous_position, width, height);
        if (!(before.view_z > 0.0f)) {
            // Behind the previous camera: no meaningful position; report no motion.
            return {0.0f, 0.0f};
        }
    } else {
        now = camera_project_direction(p.camera, s.position, width, height);
        before = camera_project_direction(p.previous_camera, s.previous_position, width, height);
        if (!(before.view_z > 0.0f)) return {0.0f, 0.0f};
    }
    return {before.x - now.x, before.y - now.y};
}

// color: 4 floats, depth: 1, mv: 2, masks: 2 (reactive, transparency).
SWINUP_HD void render_pixel(const SceneView& scene, const FrameParams& p, int x, int y, float* color,
                            float* depth, float* mv, float* masks) {
    const float sx = static_cast<float>(x) + 0.5f + p.jitter_x;
    const float sy = static_cast<float>(y) + 0.5f + p.jitter_y;
    const Vec3 dir = camera_ray_direction(p.camera, sx, sy, p.render_width, p.render_height);
    const PrimarySample s = trace_primary(scene, p.camera.position, dir, pixel_cone(p.camera, p.render_height),
                                          p.render_lod_bias, true);
    const Vec3 c = output_color(s.color, p.hdr);
    color[0] = c.x;
    color[1] = c.y;
    color[2] = c.z;
    color[3] = 1.0f;
    const float view_z = s.hit ? dot(s.position - p.camera.position, p.camera.forward) : -1.0f;
    depth[0] = device_depth(view_z, p.camera.near, p.camera.far, p.depth_inverted);
    const Vec2 m = sample_motion(p, s, p.render_width, p.render_height);
    mv[0] = m.x;
    mv[1] = m.y;
    masks[0] = saturate(s.reactive);
    masks[1] = saturate(s.transparency);
}

// mv: 2 floats, display pixels.
SWINUP_HD void display_motion_pixel(const SceneView& scene, const FrameParams& p, int x, int y, float* mv) {
    const float sx = static_cast<float>(x) + 0.5f, sy = static_cast<float>(y) + 0.5f;
    const Vec3 dir = camera_ray_direction(p.camera, sx, sy, p.display_width, p.display_height);
    const PrimarySample s = trace_primary(scene, p.camera.position, dir, pixel_cone(p.camera, p.display_height),
                                          p.display_lod_bias, false);
    const Vec2 m = sample_motion(p, s, p.display_width, p.display_height);
    mv[0] = m.x;
    mv[1] = m.y;
}

// color: 4 floats. LDR averages tonemapped samples (the resolve a display would show), HDR
// averages radiance.
SWINUP_HD void ground_truth_pixel(const SceneView& scene, const FrameParams& p, int x, int y, float* color) {
    const int n = p.gt_strata;
    const RayCone cone = pixel_cone(p.camera, p.display_height);
    const uint32_t pixel_key = hash_combine(hash_combine(p.seed, p.frame_index),
                                            static_cast<uint32_t>(y) * 65536u + static_cast<uint32_t>(x));
    Vec3 sum;
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
            const uint32_t h = hash_combine(pixel_key, static_cast<uint32_t>(j * n + i));
            const float ox = (static_cast<float>(i) + hash_to_unit(h)) / static_cast<float>(n);
            const float oy = (static_cast<float>(j) + hash_to_unit(hash_u32(h))) / static_cast<float>(n);
            const Vec3 dir = camera_ray_direction(p.camera, static_cast<float>(x) + ox, static_cast<float>(y) + oy,
                                                  p.display_width, p.display_height);
            const PrimarySample s = trace_primary(scene, p.camera.position, dir, cone, p.display_lod_bias, true);
            sum += output_color(s.color, p.hdr);
        }
    }
    const float inv = 1.0f / static_cast<float>(n * n);
    color[0] = sum.x * inv;
    color[1] = sum.y * inv;
    color[2] = sum.z * inv;
    color[3] = 1.0f;
}

}  // namespace swinup::render
