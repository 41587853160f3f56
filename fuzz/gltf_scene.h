// The glTF harnesses' common body (gltf_text.cpp: .gltf, gltf_binary.cpp: .glb): the input
// becomes a scene file, loaded by gltf_load_scene as `swinup render --scene` loads one.
// Promises checked: the loader returns or throws RenderError naming the file; an accepted scene
// has finite triangles, the materials and textures they name, and cameras the renderer can use.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "render/camera_path.h"
#include "render/gltf_loader.h"
#include "render/render_sequence.h"
#include "fuzz_check.h"
#include "scratch_file.h"

namespace swinup::fuzz {

inline bool finite(const render::Vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

inline void load_gltf_scene(const std::string& name, const uint8_t* data, size_t size) {
    const std::string path = scratch_file(name, data, size);
    std::unique_ptr<render::Scene> scene;
    try {
        scene = render::gltf_load_scene(path);
    } catch (const render::RenderError& e) {
        FUZZ_CHECK(std::string(e.what()).find(path) != std::string::npos,
                   std::string("the error does not name the file: ") + e.what());
        return;
    }
    FUZZ_CHECK(!scene->triangles.empty(), "a scene without triangles");
    for (const auto& t : scene->triangles) {
        FUZZ_CHECK(finite(t.v0) && finite(t.edge1) && finite(t.edge2), "a triangle that is not finite");
    }
    for (const auto& a : scene->attributes) {
        FUZZ_CHECK(a.material >= 0 && static_cast<size_t>(a.material) < scene->materials.size(),
                   "a triangle with material " + std::to_string(a.material));
    }
    for (const auto& m : scene->materials) {
        FUZZ_CHECK(m.base_color_texture < static_cast<int>(scene->textures.size()),
                   "a material with texture " + std::to_string(m.base_color_texture));
    }
    FUZZ_CHECK(!scene->cameras.empty(), "a scene without a camera");
    for (const auto& c : scene->cameras) {
        FUZZ_CHECK(finite(c.position) && finite(c.target) && std::isfinite(c.near) && std::isfinite(c.far) &&
                       c.near > 0.0f && c.far > c.near,
                   "a camera that is not finite or has near >= far");
        try {
            render::camera_from_pose(c, 1.0f);
        } catch (const render::RenderError& e) {
            broken_promise(__FILE__, __LINE__, std::string("a camera the renderer cannot use: ") + e.what());
        }
    }
    FUZZ_CHECK(std::isfinite(scene->scale) && scene->scale > 0.0f, "scale " + std::to_string(scene->scale));
}

}  // namespace swinup::fuzz
