// Motion vectors of a rotating object: the tumbling cube of the built-in `spinner` scene (the
// demo's showcase has the same cube), which turns about two axes at once. For every render sample
// that lands on the cube, the sample moved by its motion vector must land, a frame earlier, on the
// same point of the cube's surface. The test finds that point by tracing a second ray in the
// scene as it was a frame earlier, through the position the vector points to, and compares the
// two hits in the cube's own (object) space: nothing of the renderer's motion arithmetic is
// reused, only the tracer that finds surfaces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "render/camera_path.h"
#include "render/frame_renderer.h"
#include "render/jitter.h"
#include "render/scenes.h"

using namespace swinup;
using namespace swinup::render;

namespace {

constexpr float dt = 1.0f / 30.0f;

// The cube: the only instance whose mesh is 12 triangles (the fan, the ball and the static
// geometry have many more).
int find_cube(const Scene& scene) {
    int found = -1;
    for (const Instance& instance : scene.instances) {
        if (scene.meshes[static_cast<size_t>(instance.mesh)].triangle_count == 12) {
            EXPECT_EQ(found, -1) << "two 12-triangle instances in the spinner scene";
            found = instance.id;
        }
    }
    return found;
}

struct CubeSample {
    float sx = 0.0f, sy = 0.0f;  // the sample's position, render pixels
    float mvx = 0.0f, mvy = 0.0f;
    Vec3 object_point;           // where it hits the cube, in the cube's object space
};

// The samples of frame `f` (rendered at time t with `camera`, jitter jx, jy) that hit the cube.
std::vector<CubeSample> cube_samples(const Scene& scene, int cube, const Camera& camera, const Frame& f,
                                     float jx, float jy) {
    std::vector<CubeSample> out;
    const SceneView view = scene.view();
    for (int y = 0; y < f.mv.height; ++y) {
        for (int x = 0; x < f.mv.width; ++x) {
            CubeSample c;
            c.sx = static_cast<float>(x) + 0.5f + jx;
            c.sy = static_cast<float>(y) + 0.5f + jy;
            const Vec3 dir = camera_ray_direction(camera, c.sx, c.sy, f.mv.width, f.mv.height);
            const PrimarySample s = trace_primary(view, camera.position, dir, pixel_cone(camera, f.mv.height), 0.0f, false);
            if (!s.hit || s.instance != cube) continue;
            c.mvx = f.mv.at(x, y, 0);
            c.mvy = f.mv.at(x, y, 1);
            c.object_point = transform_point(scene.instances[static_cast<size_t>(cube)].world_to_object, s.position);
            out.push_back(c);
        }
    }
    return out;
}

struct Agreement {
    int compared = 0;       // samples whose displaced ray hits the cube a frame earlier
    int elsewhere = 0;      // ... hits something else (the point was hidden, or the vector is wrong)
    double max_error_m = 0.0;  // largest object-space distance between the two hits
    double mean_error_m = 0.0;
};

// Traces, in `scene` set to the previous frame, the ray through each sample moved by `scale`
// times its motion vector, and measures how far its cube hit is from the sample's.
Agreement agreement(const Scene& scene, int cube, const Camera& previous_camera, int w, int h,
                    const std::vector<CubeSample>& samples, float scale) {
    Agreement a;
    const SceneView view = scene.view();
    double sum = 0.0;
    for (const CubeSample& c : samples) {
        const float px = c.sx + scale * c.mvx, py = c.sy + scale * c.mvy;
        const Vec3 dir = camera_ray_direction(previous_camera, px, py, w, h);
        const PrimarySample s =
            trace_primary(view, previous_camera.position, dir, pixel_cone(previous_camera, h), 0.0f, false);
        if (!s.hit || s.instance != cube) {
            ++a.elsewhere;
            continue;
        }
        const Vec3 p = transform_point(scene.instances[static_cast<size_t>(cube)].world_to_object, s.position);
        const double e = length(p - c.object_point);
        a.max_error_m = std::max(a.max_error_m, e);
        sum += e;
        ++a.compared;
    }
    a.mean_error_m = a.compared > 0 ? sum / a.compared : 0.0;
    return a;
}

}  // namespace

TEST(RenderTumblingMotion, CubeVectorsPointToTheSameSurfacePointAFrameEarlier) {
    auto scene = builtin_scene_create("spinner");
    ASSERT_TRUE(scene);
    const int cube = find_cube(*scene);
    ASSERT_GE(cube, 0);
    const int w = 320, h = 180;
    const float aspect = static_cast<float>(w) / h;
    // The spinner's camera stands still, so every vector on the cube is the cube's own motion.
    const Camera camera = camera_from_pose(scene->camera_base, aspect);
    int frames_checked = 0;
    for (const uint32_t index : {3u, 8u, 13u}) {
        const float t = static_cast<float>(index) * dt;
        scene->set_time(t, t - dt);
        FrameRequest r;
        FrameParams& p = r.params;
        p.camera = camera;
        p.previous_camera = camera;
        p.render_width = p.display_width = w;
        p.render_height = p.display_height = h;
        jitter_offset(index, jitter_phase_count(2.0f), p.jitter_x, p.jitter_y);
        r.ground_truth = false;
        const Frame f = render_frame_cpu(scene->view(), r);
        const std::vector<CubeSample> samples = cube_samples(*scene, cube, camera, f, p.jitter_x, p.jitter_y);
        ASSERT_GT(samples.size(), 300u) << "the cube is in view at frame " << index;
        double speed = 0.0;
        for (const CubeSample& c : samples) speed = std::max(speed, double(std::hypot(c.mvx, c.mvy)));
        EXPECT_GT(speed, 1.0) << "the cube really moves (render pixels a frame) at frame " << index;

        scene->set_time(t - dt, t - 2 * dt);
        const Agreement with = agreement(*scene, cube, camera, w, h, samples, 1.0f);
        const Agreement without = agreement(*scene, cube, camera, w, h, samples, 0.0f);
        const Agreement flipped = agreement(*scene, cube, camera, w, h, samples, -1.0f);
        // One render pixel is about 4 cm on the cube here; the hits agree to float precision.
        EXPECT_LT(with.max_error_m, 1e-3) << "frame " << index;
        // Only the points a face turns into view this frame were hidden a frame earlier.
        EXPECT_GT(with.compared, static_cast<int>(samples.size()) * 95 / 100) << "frame " << index;
        // The vectors matter: without them, or reversed, the rays find other points.
        EXPECT_GT(without.mean_error_m, 100 * std::max(with.mean_error_m, 1e-5)) << "frame " << index;
        EXPECT_GT(flipped.mean_error_m, 100 * std::max(with.mean_error_m, 1e-5)) << "frame " << index;
        RecordProperty("frame_" + std::to_string(index) + "_max_error_um",
                       static_cast<int>(with.max_error_m * 1e6));
        ++frames_checked;
    }
    EXPECT_EQ(frames_checked, 3);
}
