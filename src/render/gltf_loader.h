// glTF 2.0 scenes (.gltf or .glb) through tinygltf (host).
//
// What is used: triangle primitives (POSITION, NORMAL, TEXCOORD_0, indices); node hierarchies
// (matrix or TRS), flattened into one world-space mesh; perspective cameras; materials'
// base colour (factor x sRGB texture, with its sampler's wrap modes and a full mip chain),
// alpha mode (OPAQUE / MASK / BLEND) and cutoff, double-sidedness, metallic and roughness
// factors, emissive factor and KHR_materials_specular's specularFactor.
// What is not: animations (the scene renders at its rest pose), skins, morph targets, other
// texture maps, KHR_texture_transform. MSFT_texture_dds is ignored: textures use their PNG/JPEG
// source. A texture whose image is missing or unreadable becomes a flat colour (its factor x
// 0.5 grey) and a warning in Scene::warnings. An image that is not PNG or JPEG (by its bytes, or
// by its mimeType where one is given) is an error: glTF allows no other format without an
// extension, and the KTX2 and WebP extensions are not supported.
#pragma once

#include <memory>
#include <string>

#include "render/scene.h"

namespace swinup::render {

// Throws RenderError naming the file and what is wrong (unreadable, not glTF, JSON nested deeper
// than kMaxJsonNesting, bad accessors, indices out of range, no triangles).
std::unique_ptr<Scene> gltf_load_scene(const std::string& path);

}  // namespace swinup::render
