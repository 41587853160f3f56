#include "render/motion_masks.h"

#include <cmath>
#include <limits>

#include <tbb/parallel_for.h>

#include "render/frame_pixels.h"

namespace swinup::render {

namespace {

constexpr float sky_depth = std::numeric_limits<float>::infinity();
// A display pixel centre takes part in the depth range only with at least this bilinear weight:
// a point that reprojects onto a centre (a still surface) is compared with that centre alone.
constexpr float least_weight = 0.01f;

bool same_transform(const Affine& a, const Affine& b) {
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 4; ++c) {
            if (std::fabs(a.m[r][c] - b.m[r][c]) > 1e-6f * std::max(1.0f, std::fabs(a.m[r][c]))) return false;
        }
    }
    return true;
}

float view_depth(const Camera& camera, const PrimarySample& s) {
    return s.hit ? dot(s.position - camera.position, camera.forward) : sky_depth;
}

}  // namespace

Image MotionMaskRenderer::render(const Scene& scene, const Camera& camera, float time_s, int width, int height,
                                 bool reset) {
    if (reset || width != width_ || height != height_) past_.clear();
    width_ = width;
    height_ = height;
    const SceneView view = scene.view();
    const size_t instance_count = scene.instances.size();
    // Each instance's transform at each remembered frame's time, and whether it moves now.
    std::vector<std::vector<Affine>> past_transforms(past_.size(), std::vector<Affine>(instance_count));
    for (size_t k = 0; k < past_.size(); ++k) {
        for (size_t i = 0; i < instance_count; ++i) past_transforms[k][i] = scene.animations[i](past_[k].time_s);
    }
    std::vector<uint8_t> moving(instance_count, 0);
    for (size_t i = 0; i < instance_count; ++i) {
        moving[i] = !same_transform(scene.instances[i].object_to_world, scene.instances[i].previous_object_to_world);
    }

    PastFrame now;
    now.camera = camera;
    now.time_s = time_s;
    now.view_z.assign(size_t(width) * height, sky_depth);
    Image masks(width, height, 2);
    const float tolerance = depth_tolerance_;
    const RayCone cone = pixel_cone(camera, height);
    tbb::parallel_for(0, height, [&](int y) {
        for (int x = 0; x < width; ++x) {
            const Vec3 dir = camera_ray_direction(camera, float(x) + 0.5f, float(y) + 0.5f, width, height);
            const PrimarySample s = trace_primary(view, camera.position, dir, cone, 0.0f, false);
            const float z = view_depth(camera, s);
            now.view_z[size_t(y) * width + x] = z;
            const int instance = s.hit ? s.instance : -1;
            Vec3 object_point;
            if (instance >= 0) object_point = transform_point(scene.instances[size_t(instance)].world_to_object, s.position);
            bool uncovered = false;
            for (size_t k = 0; k < past_.size() && !uncovered; ++k) {
                const PastFrame& before = past_[k];
                PixelProjection p;
                if (instance >= 0) {
                    const Vec3 then = transform_point(past_transforms[k][size_t(instance)], object_point);
                    p = camera_project_point(before.camera, then, width, height);
                } else {
                    p = camera_project_direction(before.camera, dir, width, height);
                }
                const float depth_then = instance >= 0 ? p.view_z : sky_depth;
                if (!(p.view_z > 0.0f) || !(p.x >= 0.0f && p.x < float(width) && p.y >= 0.0f && p.y < float(height))) {
                    uncovered = true;
                    break;
                }
                const float cx = p.x - 0.5f, cy = p.y - 0.5f;
                const int x0 = int(std::floor(cx)), y0 = int(std::floor(cy));
                const float fx = cx - float(x0), fy = cy - float(y0);
                float lo = sky_depth, hi = -sky_depth;
                for (int j = 0; j < 2; ++j) {
                    const float wy = j == 0 ? 1.0f - fy : fy;
                    const int qy = y0 + j;
                    if (wy < least_weight || qy < 0 || qy >= height) continue;
                    for (int i = 0; i < 2; ++i) {
                        const float wx = i == 0 ? 1.0f - fx : fx;
                        const int qx = x0 + i;
                        if (wx < least_weight || qx < 0 || qx >= width) continue;
                        const float q = before.view_z[size_t(qy) * width + qx];
                        lo = std::min(lo, q);
                        hi = std::max(hi, q);
                    }
                }
                const bool visible = depth_then >= lo * (1.0f - tolerance) && depth_then <= hi * (1.0f + tolerance);
                uncovered = !visible;
            }
            float* m = masks.pixel(x, y);
            m[0] = uncovered ? 1.0f : 0.0f;
            m[1] = instance >= 0 && moving[size_t(instance)] ? 1.0f : 0.0f;
        }
    });
    past_.push_front(std::move(now));
    if (int(past_.size()) > history_frames_) past_.pop_back();
    return masks;
}

}  // namespace swinup::render
