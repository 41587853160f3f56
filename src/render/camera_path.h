// Camera motion over time (host): a pose per instant from a scene's own motion, a preset
// (static, dolly, pan, orbit, shake) around a base pose, or a JSON camera path file.
//
// Camera path file (times in seconds; poses between keys are interpolated linearly, before the
// first and after the last key they hold):
//   { "fov_y_deg": 50, "near": 0.05, "far": 200,            (optional, else the scene's)
//     "keys": [ { "time": 0.0, "position": [x, y, z], "target": [x, y, z] }, ... ] }
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "render/camera.h"

namespace swinup::render {

struct CameraPose {
    Vec3 position{0, 0, 5};
    Vec3 target{0, 0, 0};
    Vec3 up{0, 1, 0};
    float fov_y_deg = 60.0f;
    float near = 0.1f, far = 1000.0f;
};

using CameraMotion = std::function<CameraPose(float time_s)>;

// A camera looking from pose.position at pose.target (throws RenderError if they coincide, or if
// target - position or its length is not finite as float).
Camera camera_from_pose(const CameraPose& pose, float aspect);

std::vector<std::string> camera_preset_names();
// A preset around `base`; `scale` is the scene's characteristic length (sizes the motion).
// Throws RenderSettingsError for an unknown name.
CameraMotion camera_preset(const std::string& name, const CameraPose& base, float scale,
                           unsigned long long seed);
// Reads and validates a camera path file; errors name the file and what is wrong in it (each key's
// view and the differences between consecutive keys that interpolation computes must be finite
// as float).
CameraMotion camera_path_load(const std::string& path, const CameraPose& defaults);
// Same, from JSON text (`origin` names it in errors).
CameraMotion camera_path_parse(const std::string& json_text, const CameraPose& defaults,
                               const std::string& origin);

}  // namespace swinup::render
