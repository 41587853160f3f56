// The disocclusion and moving-object masks (render/motion_masks.h) on scenes where the test knows
// every pixel's answer: a square sliding 2 display pixels a frame in front of a wall that faces
// a still camera, and the camera trucking over the bare wall. The square's edges sit at least 0.2
// pixels from the nearest pixel centres, and its diagonals (where its two triangles meet) pass no
// pixel centre, so which centres it covers is never a matter of rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "render/camera_path.h"
#include "render/geometry.h"
#include "render/motion_masks.h"
#include "render/scene.h"

using namespace swinup;
using namespace swinup::render;

namespace {

constexpr int width = 64, height = 48;
constexpr float dt = 1.0f / 30.0f;
constexpr float wall_distance = 5.0f, square_distance = 3.0f;
// The square in display pixels: left edge at square_left + square_speed * frame, square_size
// wide and tall, its top edge at square_top.
constexpr float square_left = 10.3f, square_speed = 2.0f, square_size = 10.4f, square_top = 18.2f;

CameraPose camera_pose(float x) {
    CameraPose p;
    p.position = {x, 0, 0};
    p.target = {x, 0, -1};
    p.fov_y_deg = 50.0f;
    return p;
}

Camera test_camera(float x) { return camera_from_pose(camera_pose(x), float(width) / float(height)); }

// World units per display pixel on a plane facing the camera at `distance`.
float pixel_size(float distance) {
    const Camera c = test_camera(0);
    return 2.0f * distance * c.tan_half_fov_y / float(height);
}

std::unique_ptr<Scene> wall_scene(bool with_square) {
    auto scene = std::make_unique<Scene>();
    Material m;
    m.roughness = 1.0f;
    const int mat = scene->add_material(m);
    TriangleList wall;
    add_quad(wall, {-50, -50, -wall_distance}, {100, 0, 0}, {0, 100, 0}, mat);
    scene->add_instance(scene->add_mesh(wall), Affine{});
    if (with_square) {
        // In its object space the square spans display pixels [square_left, +size) x
        // [square_top, +size) of frame 0; it slides along +x.
        const float s = pixel_size(square_distance);
        const float x0 = (square_left - 0.5f * width) * s, y1 = (0.5f * height - square_top) * s;
        TriangleList square;
        add_quad(square, {x0, y1 - square_size * s, -square_distance}, {square_size * s, 0, 0},
                 {0, square_size * s, 0}, mat);
        const float speed = square_speed * s / dt;  // world units a second
        scene->add_animated_instance(scene->add_mesh(square), [speed](float t) {
            Affine a;
            a.m[0][3] = speed * t;
            return a;
        });
    }
    scene->set_time(0, -dt);
    return scene;
}

bool covered(int x, int y, int frame) {
    const float cx = float(x) + 0.5f, cy = float(y) + 0.5f;
    const float left = square_left + square_speed * float(frame);
    return cx > left && cx < left + square_size && cy > square_top && cy < square_top + square_size;
}

}  // namespace

TEST(RenderMotionMasks, SlidingSquareUncoversExactlyWhereItWasInTheLastFourFrames) {
    auto scene = wall_scene(true);
    MotionMaskRenderer renderer;
    int uncovered_total = 0;
    for (int frame = 0; frame < 8; ++frame) {
        const float t = float(frame) * dt;
        scene->set_time(t, t - dt);
        const Image masks = renderer.render(*scene, test_camera(0), t, width, height, frame == 0);
        ASSERT_EQ(masks.channels, 2);
        int mismatches = 0;
        for (int y = 0; y < height; ++y) {
            for (int x = 0; x < width; ++x) {
                bool was_covered = false;
                for (int k = 1; k <= 4 && frame - k >= 0; ++k) was_covered |= covered(x, y, frame - k);
                const bool expect_uncovered = was_covered && !covered(x, y, frame);
                const bool expect_moving = covered(x, y, frame);
                mismatches += (masks.at(x, y, 0) == 1.0f) != expect_uncovered;
                mismatches += (masks.at(x, y, 1) == 1.0f) != expect_moving;
                EXPECT_TRUE(masks.at(x, y, 0) == 0.0f || masks.at(x, y, 0) == 1.0f);
                uncovered_total += expect_uncovered;
            }
        }
        EXPECT_EQ(mismatches, 0) << "frame " << frame;
    }
    // The square covers 11 x 11 centres; two columns a frame for each of up to four frames
    // (frames 1..7), 11 rows each: the masks were not empty.
    EXPECT_EQ(uncovered_total, 11 * (2 + 4 + 6 + 8 * 4));
}

TEST(RenderMotionMasks, ResetForgetsTheEarlierFrames) {
    auto scene = wall_scene(true);
    MotionMaskRenderer renderer;
    for (int frame = 0; frame < 3; ++frame) {
        const float t = float(frame) * dt;
        scene->set_time(t, t - dt);
        const Image masks = renderer.render(*scene, test_camera(0), t, width, height, frame == 0 || frame == 2);
        int uncovered = 0;
        for (int i = 0; i < width * height; ++i) uncovered += masks.data[size_t(i) * 2] != 0.0f;
        EXPECT_EQ(uncovered, frame == 1 ? 22 : 0) << "frame " << frame;
    }
}

TEST(RenderMotionMasks, TruckingCameraUncoversOnlyTheColumnsThatEnteredThePicture) {
    auto scene = wall_scene(false);
    MotionMaskRenderer renderer;
    // The camera moves 1.3 wall pixels a frame: no pixel centre reprojects onto the picture's edge.
    const float step = 1.3f * pixel_size(wall_distance);
    for (int frame = 0; frame < 6; ++frame) {
        const float t = float(frame) * dt;
        scene->set_time(t, t - dt);
        const Image masks = renderer.render(*scene, test_camera(step * float(frame)), t, width, height, frame == 0);
        // What pixel x shows now was at x + 1.3 k, k frames ago: off the picture for the
        // columns within 1.3 min(frame, 4) pixels of the right edge.
        const float reach = 1.3f * float(std::min(frame, 4));
        for (int y = 0; y < height; ++y) {
            for (int x = 0; x < width; ++x) {
                const bool expect = float(x) + 0.5f + reach >= float(width);
                ASSERT_EQ(masks.at(x, y, 0), expect ? 1.0f : 0.0f) << x << "," << y << " frame " << frame;
                ASSERT_EQ(masks.at(x, y, 1), 0.0f) << "the wall does not move: " << x << "," << y;
            }
        }
    }
}
