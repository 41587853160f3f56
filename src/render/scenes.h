// The built-in procedural scenes (host), so that the demo and the tests need no files. Each one
// gathers what upscalers get wrong: thin wires and a chain-link fence (alpha), textures near the
// Nyquist rate (moire), text, fast and rotating objects (disocclusion), specular highlights.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "render/scene.h"

namespace swinup::render {

struct BuiltinSceneInfo {
    std::string name;
    std::string description;
};

const std::vector<BuiltinSceneInfo>& builtin_scenes();
// Builds a built-in scene with its own camera motion; nullptr for an unknown name. `seed` lays out
// the scenes that are drawn at random ("movers"); the others ignore it.
std::unique_ptr<Scene> builtin_scene_create(const std::string& name, uint64_t seed = 1);

}  // namespace swinup::render
