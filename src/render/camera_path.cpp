#include "render/camera_path.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "text/json_repeated_key.h"
#include "text/number_text.h"
#include "render/render_sequence.h"

namespace swinup::render {

namespace {

constexpr float pi = 3.14159265358979f;

Vec3 rotate_about(Vec3 v, Vec3 axis, float angle) {
    return transform_vector(affine_rotation(axis, angle), v);
}

// Smooth, deterministic pseudo-random wobble for the hand-held shake: a sum of sines at
// incommensurate frequencies with phases drawn from the seed.
float wobble(float t, unsigned long long seed, int channel) {
    unsigned long long h = seed * 0x9E3779B97F4A7C15ull + static_cast<unsigned long long>(channel) * 0xBF58476D1CE4E5B9ull;
    float sum = 0.0f;
    const float freqs[3] = {1.7f, 4.3f, 9.1f};
    const float amps[3] = {0.6f, 0.3f, 0.15f};
    for (int k = 0; k < 3; ++k) {
        h ^= h >> 31;
        h *= 0x94D049BB133111EBull;
        h ^= h >> 29;
        const float phase = static_cast<float>(h % 10000ull) / 10000.0f * 2.0f * pi;
        sum += amps[k] * std::sin(2.0f * pi * freqs[k] * t + phase);
    }
    return sum;
}

bool is_finite(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

std::string vec3_text(Vec3 v) {
    return "[" + shortest_text(v.x) + ", " + shortest_text(v.y) + ", " + shortest_text(v.z) + "]";
}

// Whether the view from `position` to `target` is usable as float: each coordinate may be finite
// and target - position still overflow (3e38 - -3e38), or its length (which squares the
// coordinates: any over about 1.8e19); the camera's axes would then be NaN or zero and every ray
// miss (a render of sky and nothing else, without a word).
bool view_is_finite(Vec3 position, Vec3 target) {
    const Vec3 view = target - position;
    return is_finite(view) && std::isfinite(length(view));
}

[[noreturn]] void path_error(const std::string& origin, const std::string& what) {
    throw RenderError("camera path " + origin + ": " + what);
}

Vec3 read_vec3(const nlohmann::json& j, const std::string& origin, const std::string& where) {
    if (!j.is_array() || j.size() != 3) path_error(origin, where + " must be an array of 3 numbers");
    float v[3];
    for (size_t i = 0; i < 3; ++i) {
        if (!j[i].is_number()) path_error(origin, where + " must be an array of 3 numbers");
        v[i] = j[i].get<float>();
        if (!std::isfinite(v[i])) path_error(origin, where + " has a non-finite number");
    }
    return {v[0], v[1], v[2]};
}

float read_number(const nlohmann::json& j, const std::string& key, float fallback,
                  const std::string& origin, float lo, float hi) {
    if (!j.contains(key)) return fallback;
    if (!j[key].is_number()) path_error(origin, "\"" + key + "\" must be a number");
    const float v = j[key].get<float>();
    if (!(v >= lo && v <= hi)) {
        std::ostringstream s;
        s << "\"" << key << "\" = " << v << " is outside [" << lo << ", " << hi << "]";
        path_error(origin, s.str());
    }
    return v;
}

}  // namespace

Camera camera_from_pose(const CameraPose& pose, float aspect) {
    if (!is_finite(pose.position) || !is_finite(pose.target) || !view_is_finite(pose.position, pose.target)) {
        throw RenderError("camera: position " + vec3_text(pose.position) + " and target " + vec3_text(pose.target) +
                          ": the view direction (target - position) or its length is not finite as float");
    }
    const Vec3 to_target = pose.target - pose.position;
    if (!(length(to_target) > 1e-9f)) throw RenderError("camera: position and target coincide");
    Camera c;
    c.position = pose.position;
    c.forward = normalize(to_target);
    Vec3 up_hint = normalize(pose.up);
    if (std::fabs(dot(up_hint, c.forward)) > 0.999f) up_hint = Vec3{0, 0, 1};  // looking straight up/down
    c.right = normalize(cross(c.forward, up_hint));
    c.up = cross(c.right, c.forward);
    c.tan_half_fov_y = std::tan(pose.fov_y_deg * pi / 360.0f);
    if (!is_finite(pose.up) || !(c.tan_half_fov_y > 0.0f) || !std::isfinite(c.tan_half_fov_y)) {
        throw RenderError("camera: up " + vec3_text(pose.up) + ", fov_y_deg " + shortest_text(pose.fov_y_deg) +
                          ": not a usable camera (up must be finite, the field of view in (0, 180) degrees)");
    }
    c.aspect = aspect;
    c.near = pose.near;
    c.far = pose.far;
    return c;
}

std::vector<std::string> camera_preset_names() { return {"static", "dolly", "pan", "orbit", "shake"}; }

CameraMotion camera_preset(const std::string& name, const CameraPose& base, float scale,
                           unsigned long long seed) {
    const Vec3 view = base.target - base.position;
    const float distance = length(view);
    if (name == "static") return [base](float) { return base; };
    if (name == "dolly") {
        // Towards the target at 30% of the scene scale per second (never past it).
        const Vec3 dir = normalize(view);
        const float speed = 0.3f * scale;
        return [base, dir, speed, distance](float t) {
            CameraPose p = base;
            const float d = std::fmin(speed * t, 0.8f * distance);
            p.position = base.position + dir * d;
            p.target = p.position + dir * distance;
            return p;
        };
    }
    if (name == "pan") {
        // Turn about the vertical axis at 20 degrees per second.
        return [base, view](float t) {
            CameraPose p = base;
            p.target = base.position + rotate_about(view, base.up, -20.0f * pi / 180.0f * t);
            return p;
        };
    }
    if (name == "orbit") {
        // Circle the target at 30 degrees per second.
        return [base](float t) {
            CameraPose p = base;
            const Vec3 offset = base.position - base.target;
            p.position = base.target + rotate_about(offset, base.up, 30.0f * pi / 180.0f * t);
            return p;
        };
    }
    if (name == "shake") {
        // Hand-held: translation of ~1% of the scene scale and ~0.5 degree of aim, 2-9 Hz.
        return [base, scale, seed, distance](float t) {
            CameraPose p = base;
            const Vec3 move{wobble(t, seed, 0), wobble(t, seed, 1), wobble(t, seed, 2)};
            const Vec3 aim{wobble(t, seed, 3), wobble(t, seed, 4), wobble(t, seed, 5)};
            p.position = base.position + move * (0.01f * scale);
            p.target = base.target + move * (0.01f * scale) + aim * (0.009f * distance);
            return p;
        };
    }
    std::string names;
    for (const auto& n : camera_preset_names()) names += (names.empty() ? "" : ", ") + n;
    throw RenderSettingsError("unknown camera preset \"" + name + "\" (presets: " + names +
                      "; or give a path to a .json camera path file)");
}

CameraMotion camera_path_parse(const std::string& json_text, const CameraPose& defaults,
                               const std::string& origin) {
    ParsedJson file;  // "keys" given twice would be read as its last copy without a word
    try {
        file = parse_json_finding_repeated_key(json_text);
    } catch (const JsonNestingTooDeep& e) {
        path_error(origin, e.what());
    } catch (const nlohmann::json::exception& e) {  // malformed, or a number like 1e500
        path_error(origin, std::string("not valid JSON: ") + e.what());
    }
    if (!file.repeated_key.empty()) {
        path_error(origin, "the key \"" + file.repeated_key +
                               "\" appears twice in one object (which one is meant?)");
    }
    const nlohmann::json& j = file.value;
    if (!j.is_object()) path_error(origin, "the top level must be a JSON object");
    // A misspelt optional field ("fov" for "fov_y_deg") would otherwise be ignored without a word.
    for (const auto& [key, value] : j.items()) {
        if (key != "fov_y_deg" && key != "near" && key != "far" && key != "keys") {
            path_error(origin, "unknown key \"" + key + "\" (the keys are fov_y_deg, near, far, keys)");
        }
    }
    CameraPose pose = defaults;
    pose.fov_y_deg = read_number(j, "fov_y_deg", defaults.fov_y_deg, origin, 1.0f, 170.0f);
    pose.near = read_number(j, "near", defaults.near, origin, 1e-6f, 1e9f);
    pose.far = read_number(j, "far", defaults.far, origin, 1e-6f, 1e12f);
    if (!(pose.far > pose.near)) path_error(origin, "\"far\" must be greater than \"near\"");
    if (!j.contains("keys")) path_error(origin, "missing \"keys\" (an array of {time, position, target})");
    const auto& keys = j["keys"];
    if (!keys.is_array() || keys.empty()) path_error(origin, "\"keys\" must be a non-empty array");

    struct Key {
        float time;
        Vec3 position, target;
    };
    auto parsed = std::make_shared<std::vector<Key>>();
    for (size_t i = 0; i < keys.size(); ++i) {
        const std::string where = "keys[" + std::to_string(i) + "]";
        const auto& k = keys[i];
        if (!k.is_object()) path_error(origin, where + " must be an object");
        for (const auto& [key, value] : k.items()) {
            if (key != "time" && key != "position" && key != "target") {
                path_error(origin, where + " has the unknown key \"" + key + "\" (a key has time, position, target)");
            }
        }
        for (const char* field : {"time", "position", "target"}) {
            if (!k.contains(field)) path_error(origin, where + " is missing \"" + field + "\"");
        }
        if (!k["time"].is_number()) path_error(origin, where + ".time must be a number");
        Key key{k["time"].get<float>(), read_vec3(k["position"], origin, where + ".position"),
                read_vec3(k["target"], origin, where + ".target")};
        if (!std::isfinite(key.time)) path_error(origin, where + ".time is not finite");
        if (!parsed->empty() && !(key.time > parsed->back().time)) {
            path_error(origin, where + ".time must be greater than the previous key's");
        }
        if (!view_is_finite(key.position, key.target)) {
            path_error(origin, where + ": position " + vec3_text(key.position) + " and target " +
                                   vec3_text(key.target) +
                                   " are too far apart: the view direction (target - position) or its "
                                   "length is not finite as float");
        }
        if (!(length(key.target - key.position) > 1e-9f)) {
            path_error(origin, where + ": position and target coincide");
        }
        // Poses between keys are interpolated as previous + (key - previous) * f, with
        // f = (t - previous.time) / (key.time - previous.time): each difference must be finite.
        if (!parsed->empty()) {
            const Key& previous = parsed->back();
            const char* overflowing = !std::isfinite(key.time - previous.time) ? "time"
                                      : !is_finite(key.position - previous.position) ? "position"
                                      : !is_finite(key.target - previous.target) ? "target"
                                                                                  : nullptr;
            if (overflowing) {
                path_error(origin, where + "." + overflowing + " minus keys[" + std::to_string(i - 1) + "]." +
                                       overflowing + " is not finite as float (too far apart to interpolate)");
            }
        }
        parsed->push_back(key);
    }
    return [parsed, pose](float t) {
        CameraPose p = pose;
        const auto& k = *parsed;
        if (t <= k.front().time || k.size() == 1) {
            p.position = k.front().position;
            p.target = k.front().target;
            return p;
        }
        if (t >= k.back().time) {
            p.position = k.back().position;
            p.target = k.back().target;
            return p;
        }
        size_t i = 1;
        while (k[i].time < t) ++i;
        const float f = (t - k[i - 1].time) / (k[i].time - k[i - 1].time);
        p.position = lerp(k[i - 1].position, k[i].position, f);
        p.target = lerp(k[i - 1].target, k[i].target, f);
        return p;
    };
}

CameraMotion camera_path_load(const std::string& path, const CameraPose& defaults) {
    // A folder opens as a stream on Linux and would read as empty, "not valid JSON".
    if (std::filesystem::is_directory(path)) throw RenderError("camera path " + path + ": is a folder, not a file");
    std::ifstream file(path, std::ios::binary);
    if (!file) throw RenderError("camera path " + path + ": cannot open the file");
    std::stringstream text;
    text << file.rdbuf();
    return camera_path_parse(text.str(), defaults, path);
}

}  // namespace swinup::render
