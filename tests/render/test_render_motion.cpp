// Motion vectors: (1) against an analytic scene where the test knows every point's motion
// (camera moving and turning, a box translating and spinning), reconstructing positions from the
// depth buffer with its own projection maths; (2) by reprojection: frame t-1 warped onto frame t
// with the motion vectors matches frame t outside disocclusions and edges, far better than
// without them; (3) display-resolution vectors agree with the render-resolution ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "render/frame_renderer.h"
#include "render/geometry.h"
#include "render/render_sequence.h"
#include "render/scene.h"
#include "render/texture_build.h"

using namespace swinup;
using namespace swinup::render;

namespace {

constexpr float dt = 1.0f / 30.0f;
const Vec3 box_center0{0.5f, 0.2f, -3.0f};
const Vec3 box_velocity{1.5f, 0.4f, 0.0f};
constexpr float box_spin = 2.0f;  // rad/s about +y

Affine box_transform(float t) {
    return affine_multiply(affine_translation(box_center0 + box_velocity * t), affine_rotation({0, 1, 0}, box_spin * t));
}

CameraPose camera_pose(float t) {
    CameraPose p;
    p.position = {6.0f * t, 0.1f, 2.0f};
    p.target = {6.5f * t, 0.0f, -6.0f};
    p.fov_y_deg = 60.0f;
    p.near = 0.1f;
    p.far = 100.0f;
    return p;
}

// The test's own pinhole: basis from the pose, projection to pixel space (+y down).
struct TestCamera {
    double pos[3], right[3], up[3], fwd[3], tan_half, aspect;
};
TestCamera test_camera(const CameraPose& p, double aspect) {
    TestCamera c{};
    const double f[3] = {p.target.x - p.position.x, p.target.y - p.position.y, p.target.z - p.position.z};
    const double fl = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int i = 0; i < 3; ++i) c.fwd[i] = f[i] / fl;
    // right = fwd x (0,1,0), up = right x fwd
    double r[3] = {-c.fwd[2], 0.0, c.fwd[0]};
    const double rl = std::sqrt(r[0] * r[0] + r[2] * r[2]);
    for (double& v : r) v /= rl;
    for (int i = 0; i < 3; ++i) c.right[i] = r[i];
    c.up[0] = r[1] * c.fwd[2] - r[2] * c.fwd[1];
    c.up[1] = r[2] * c.fwd[0] - r[0] * c.fwd[2];
    c.up[2] = r[0] * c.fwd[1] - r[1] * c.fwd[0];
    c.pos[0] = p.position.x;
    c.pos[1] = p.position.y;
    c.pos[2] = p.position.z;
    c.tan_half = std::tan(p.fov_y_deg * M_PI / 360.0);
    c.aspect = aspect;
    return c;
}
double dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
void project(const TestCamera& c, const double* world, int w, int h, double& x, double& y) {
    const double v[3] = {world[0] - c.pos[0], world[1] - c.pos[1], world[2] - c.pos[2]};
    const double z = dot3(v, c.fwd);
    x = (dot3(v, c.right) / (z * c.tan_half * c.aspect) + 1.0) * 0.5 * w;
    y = (1.0 - dot3(v, c.up) / (z * c.tan_half)) * 0.5 * h;
}

// A smooth pattern (periods of tens of pixels): warping it bilinearly is accurate, so what
// reprojection leaves is the motion vectors' error.
Image smooth_texture() {
    Image img(64, 64, 4, 1.0f);
    for (int y = 0; y < 64; ++y) {
        for (int x = 0; x < 64; ++x) {
            const double u = 2 * M_PI * x / 64.0, v = 2 * M_PI * y / 64.0;
            img.at(x, y, 0) = static_cast<float>(0.5 + 0.35 * std::sin(u) * std::cos(v));
            img.at(x, y, 1) = static_cast<float>(0.5 + 0.35 * std::cos(u + v));
            img.at(x, y, 2) = static_cast<float>(0.5 + 0.35 * std::sin(2 * v));
        }
    }
    return img;
}

std::unique_ptr<Scene> analytic_scene() {
    auto scene = std::make_unique<Scene>();
    Material m;
    m.roughness = 1.0f;  // no view-dependent sky reflection
    m.base_color_texture = texture_add(scene->textures, scene->texels, smooth_texture());
    const int mat = scene->add_material(m);
    TriangleList wall, box;
    add_quad(wall, {-50, -50, -6}, {100, 0, 0}, {0, 100, 0}, mat, {50, 50});
    add_box(box, {-0.5f, -0.5f, -0.5f}, {0.5f, 0.5f, 0.5f}, mat);
    scene->add_instance(scene->add_mesh(wall), Affine{});
    scene->add_animated_instance(scene->add_mesh(box), box_transform);
    return scene;
}

float bilinear(const Image& img, double x, double y, int c) {
    x = std::clamp(x, 0.0, img.width - 1.0);
    y = std::clamp(y, 0.0, img.height - 1.0);
    const int x0 = std::min(static_cast<int>(x), img.width - 2), y0 = std::min(static_cast<int>(y), img.height - 2);
    const double fx = x - x0, fy = y - y0;
    const double top = img.at(x0, y0, c) * (1 - fx) + img.at(x0 + 1, y0, c) * fx;
    const double bottom = img.at(x0, y0 + 1, c) * (1 - fx) + img.at(x0 + 1, y0 + 1, c) * fx;
    return static_cast<float>(top * (1 - fy) + bottom * fy);
}

}  // namespace

TEST(RenderMotion, MatchesAnalyticCameraAndObjectMotion) {
    const int w = 96, h = 54;
    const float t = 5 * dt;
    auto scene = analytic_scene();
    scene->set_time(t, t - dt);
    FrameRequest r;
    FrameParams& p = r.params;
    const float aspect = static_cast<float>(w) / h;
    p.camera = camera_from_pose(camera_pose(t), aspect);
    p.previous_camera = camera_from_pose(camera_pose(t - dt), aspect);
    p.render_width = p.display_width = w;
    p.render_height = p.display_height = h;
    p.jitter_x = 0.3f;
    p.jitter_y = -0.2f;
    r.ground_truth = false;
    const Frame f = render_frame_cpu(scene->view(), r);

    const TestCamera now = test_camera(camera_pose(t), aspect), before = test_camera(camera_pose(t - dt), aspect);
    const CameraPose pose = camera_pose(t);
    int box_pixels = 0, checked = 0;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            // Ray through the jittered sample; its view z comes from inverting the device depth.
            const double d = f.depth.at(x, y, 0);
            const double n = pose.near, fa = pose.far;
            const double view_z = fa * n / (fa - d * (fa - n));
            const double sx = x + 0.5 + p.jitter_x, sy = y + 0.5 + p.jitter_y;
            const double ndc_x = 2 * sx / w - 1, ndc_y = 1 - 2 * sy / h;
            double dir[3];
            for (int i = 0; i < 3; ++i) {
                dir[i] = now.fwd[i] + now.right[i] * ndc_x * now.tan_half * now.aspect + now.up[i] * ndc_y * now.tan_half;
            }
            // dir has unit length along fwd, so the point is pos + dir * view_z.
            double world[3];
            for (int i = 0; i < 3; ++i) world[i] = now.pos[i] + dir[i] * view_z;
            double prev[3] = {world[0], world[1], world[2]};
            const bool on_box = world[2] > -5.0;  // the wall is at z = -6, the box near -3
            if (on_box) {
                // Undo this frame's box transform, apply the previous one.
                const Vec3 c = box_center0 + box_velocity * t, cp = box_center0 + box_velocity * (t - dt);
                const double a = -box_spin * dt;  // previous rotation relative to now
                const double lx = world[0] - c.x, lz = world[2] - c.z;
                // rotation about +y by a: x' = x cos a + z sin a, z' = -x sin a + z cos a
                prev[0] = cp.x + lx * std::cos(a) + lz * std::sin(a);
                prev[1] = world[1] - c.y + cp.y;
                prev[2] = cp.z - lx * std::sin(a) + lz * std::cos(a);
                ++box_pixels;
            }
            double x_now, y_now, x_prev, y_prev;
            project(now, world, w, h, x_now, y_now);
            project(before, prev, w, h, x_prev, y_prev);
            EXPECT_NEAR(x_now, sx, 2e-3) << "reconstruction " << x << "," << y;
            EXPECT_NEAR(f.mv.at(x, y, 0), x_prev - x_now, 2e-3) << x << "," << y << (on_box ? " box" : " wall");
            EXPECT_NEAR(f.mv.at(x, y, 1), y_prev - y_now, 2e-3) << x << "," << y << (on_box ? " box" : " wall");
            ++checked;
        }
    }
    EXPECT_GT(box_pixels, 100);  // the moving object is really in view
    EXPECT_EQ(checked, w * h);
}

TEST(RenderMotion, ReprojectionOfPreviousFrameMatchesOutsideDisocclusions) {
    const int w = 160, h = 90;
    const float aspect = static_cast<float>(w) / h;
    auto scene = analytic_scene();
    // Frames 4 (t-1) and 5 (t) with their Halton jitters, the display MVs at twice the size.
    Frame frames[2];
    float jx[2], jy[2];
    for (int k = 0; k < 2; ++k) {
        const uint32_t index = static_cast<uint32_t>(4 + k);
        const float t = static_cast<float>(index) * dt;
        scene->set_time(t, t - dt);
        FrameRequest r;
        FrameParams& p = r.params;
        p.camera = camera_from_pose(camera_pose(t), aspect);
        p.previous_camera = camera_from_pose(camera_pose(t - dt), aspect);
        p.render_width = w;
        p.render_height = h;
        p.display_width = 2 * w;
        p.display_height = 2 * h;
        jitter_offset(index, jitter_phase_count(2.0f), p.jitter_x, p.jitter_y);
        jx[k] = p.jitter_x;
        jy[k] = p.jitter_y;
        r.ground_truth = false;
        r.mv_display = true;
        frames[k] = render_frame_cpu(scene->view(), r);
    }
    const Frame& a = frames[0];
    const Frame& b = frames[1];
    std::vector<double> err_mv, err_zero, err_flip;
    int moving = 0, on_box = 0;
    for (int y = 2; y < h - 2; ++y) {
        for (int x = 2; x < w - 2; ++x) {
            const double mx = b.mv.at(x, y, 0), my = b.mv.at(x, y, 1);
            // The sample's previous position as a continuous index into frame t-1's samples,
            // which sat at k + 0.5 + jitter(t-1).
            auto sample = [&](double dx, double dy, int c) {
                return bilinear(a.color, double(x) + jx[1] + dx - jx[0], double(y) + jy[1] + dy - jy[0], c);
            };
            const double qx = double(x) + jx[1] + mx - jx[0], qy = double(y) + jy[1] + my - jy[0];
            if (qx < 1 || qy < 1 || qx > w - 3 || qy > h - 3) continue;
            // Edges and disocclusions: depth varying around either position.
            float lo = 1, hi = 0, lo_b = 1, hi_b = 0;
            for (int dy = -1; dy <= 2; ++dy) {
                for (int dx = -1; dx <= 2; ++dx) {
                    const float da = a.depth.at(static_cast<int>(qx) + dx, static_cast<int>(qy) + dy, 0);
                    lo = std::min(lo, da);
                    hi = std::max(hi, da);
                }
            }
            for (int dy = -1; dy <= 1; ++dy) {
                for (int dx = -1; dx <= 1; ++dx) {
                    const float db = b.depth.at(x + dx, y + dy, 0);
                    lo_b = std::min(lo_b, db);
                    hi_b = std::max(hi_b, db);
                }
            }
            if (hi - lo > 0.002f || hi_b - lo_b > 0.002f) continue;
            if (std::hypot(mx, my) > 1.0) ++moving;
            on_box += b.depth.at(x, y, 0) < 0.985f;  // nearer than 6.5 units: the box (the wall is at 8)
            double e = 0, z = 0, fl = 0;
            for (int c = 0; c < 3; ++c) {
                const double cur = b.color.at(x, y, c);
                e += std::fabs(sample(mx, my, c) - cur);
                z += std::fabs(sample(0, 0, c) - cur);
                fl += std::fabs(sample(-mx, -my, c) - cur);
            }
            err_mv.push_back(e / 3);
            err_zero.push_back(z / 3);
            err_flip.push_back(fl / 3);
        }
    }
    ASSERT_GT(err_mv.size(), 8000u);
    EXPECT_GT(moving, 8000);  // nearly everything moves by more than a pixel
    EXPECT_GT(on_box, 200);   // including the spinning box
    auto mean = [](const std::vector<double>& v) {
        double sum = 0;
        for (double e : v) sum += e;
        return sum / static_cast<double>(v.size());
    };
    auto percentile = [](std::vector<double> v, double q) {
        std::sort(v.begin(), v.end());
        return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))];
    };
    // Warped with the motion vectors the frames agree up to bilinear resampling of the pattern
    // and the box's moving shadow; without them, or with their sign flipped, they do not.
    const double m = mean(err_mv);
    EXPECT_LT(m, 0.01) << "mean abs error with motion vectors";
    EXPECT_LT(percentile(err_mv, 0.95), 0.02);
    EXPECT_GT(mean(err_zero), 4.0 * m);
    EXPECT_GT(mean(err_flip), 4.0 * m);

    // Display-resolution vectors are in display pixels: twice the render ones where the motion
    // field is smooth (display pixel 2x+1's centre is 0.25 render pixels from sample x).
    int compared = 0, agree = 0;
    for (int y = 4; y < h - 4; y += 2) {
        for (int x = 4; x < w - 4; x += 2) {
            float lo = 1, hi = 0;
            for (int dy = -2; dy <= 2; ++dy) {
                for (int dx = -2; dx <= 2; ++dx) {
                    lo = std::min(lo, b.depth.at(x + dx, y + dy, 0));
                    hi = std::max(hi, b.depth.at(x + dx, y + dy, 0));
                }
            }
            if (hi - lo > 0.001f) continue;
            ++compared;
            if (std::fabs(b.mv_display.at(2 * x + 1, 2 * y + 1, 0) - 2 * b.mv.at(x, y, 0)) < 0.1 &&
                std::fabs(b.mv_display.at(2 * x + 1, 2 * y + 1, 1) - 2 * b.mv.at(x, y, 1)) < 0.1) {
                ++agree;
            }
        }
    }
    ASSERT_GT(compared, 1500);
    EXPECT_GT(agree, compared * 95 / 100);
}
