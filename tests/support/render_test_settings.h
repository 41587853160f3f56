// What the renderer's tests set up alike: a render's settings from its scene, frame count and two
// sizes (every other field RenderSettings's default), and a camera at the origin looking down -z.
#pragma once

#include <string>

#include "render/camera_path.h"
#include "render/render_sequence.h"

namespace swinup::test {

inline render::RenderSettings render_settings(const std::string& scene, int frames, int render_width, int render_height,
                                              int display_width, int display_height) {
    render::RenderSettings s;
    s.scene = scene;
    s.frames = frames;
    s.render_width = render_width;
    s.render_height = render_height;
    s.display_width = display_width;
    s.display_height = display_height;
    return s;
}

// Camera at the origin looking down -z: vertical field of view, near and far planes, aspect ratio.
inline render::Camera camera_down_minus_z(float fov_y_deg, float near_plane, float far_plane, float aspect) {
    render::CameraPose pose;
    pose.position = {0, 0, 0};
    pose.target = {0, 0, -1};
    pose.fov_y_deg = fov_y_deg;
    pose.near = near_plane;
    pose.far = far_plane;
    return render::camera_from_pose(pose, aspect);
}

}  // namespace swinup::test
