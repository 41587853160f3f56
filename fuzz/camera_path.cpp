// Fuzzes the camera path reader (camera_path_parse, what `swinup render --camera path.json`
// reads) and the motion it returns.
// Promises checked: the reader returns or throws RenderError naming the path; an accepted path
// gives a finite pose at every time the renderer may ask for (before, at, between and after
// its keys), from which a camera can be made.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "render/camera_path.h"
#include "render/render_sequence.h"
#include "fuzz_check.h"

namespace {

bool finite(const swinup::render::Vec3& v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace swinup::render;
    const std::string text(reinterpret_cast<const char*>(data), size);
    CameraMotion motion;
    try {
        motion = camera_path_parse(text, CameraPose{}, "path.json");
    } catch (const RenderError& e) {
        FUZZ_CHECK(std::string(e.what()).rfind("camera path path.json: ", 0) == 0,
                   std::string("the error does not name the path: ") + e.what());
        return 0;
    }
    // The times to ask: the keys' own, between neighbours, and outside them. The reader has
    // checked the text already, so this second parse cannot fail.
    const nlohmann::json doc = nlohmann::json::parse(text);
    std::vector<float> times = {-1.0f, 0.0f, 1e6f};
    const auto& keys = doc.at("keys");
    for (size_t i = 0; i < keys.size() && i < 64; ++i) {
        const float t = keys[i].at("time").get<float>();
        times.push_back(t);
        if (i + 1 < keys.size()) times.push_back(0.5f * t + 0.5f * keys[i + 1].at("time").get<float>());
    }
    for (const float t : times) {
        const CameraPose pose = motion(t);
        FUZZ_CHECK(finite(pose.position) && finite(pose.target),
                   "a pose that is not finite at time " + std::to_string(t));
        try {
            camera_from_pose(pose, 1.0f);
        } catch (const RenderError&) {  // position and target coincide between two keys
        }
    }
    return 0;
}
