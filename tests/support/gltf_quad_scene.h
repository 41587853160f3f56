// The small glTF scene of the loader test (tests/render/test_render_gltf.cpp), which the fuzz
// seeds (fuzz/make_seeds.cpp) start from too: a unit quad in the xy plane ([-1,1]^2, facing +z)
// drawn by two meshes, one textured and one alpha-masked, under a scaled node and a group
// holding a matrix node, and a perspective camera. Each user adds where its buffer and images
// are and the extensions it is about.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace swinup::test {

// The quad's one buffer, 140 bytes: 4 positions, 4 normals, 4 uvs (float) and 6 indices (uint16).
inline std::vector<uint8_t> gltf_quad_buffer() {
    const float pos[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
    const float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    const float uv[8] = {0, 1, 1, 1, 1, 0, 0, 0};
    const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    std::vector<uint8_t> bytes;
    for (const auto& [data, size] : {std::pair<const void*, size_t>{pos, sizeof pos}, {nrm, sizeof nrm},
                                     {uv, sizeof uv}, {idx, sizeof idx}}) {
        const auto* p = static_cast<const uint8_t*>(data);
        bytes.insert(bytes.end(), p, p + size);
    }
    return bytes;
}

// The scene's document without "buffers", "images" and "textures": material 0 reads texture 0.
inline nlohmann::json gltf_quad_document() {
    return R"({
      "asset": {"version": "2.0"},
      "bufferViews": [
        {"buffer": 0, "byteOffset": 0, "byteLength": 128},
        {"buffer": 0, "byteOffset": 128, "byteLength": 12}],
      "accessors": [
        {"bufferView": 0, "byteOffset": 0, "componentType": 5126, "count": 4, "type": "VEC3",
         "min": [-1, -1, 0], "max": [1, 1, 0]},
        {"bufferView": 0, "byteOffset": 48, "componentType": 5126, "count": 4, "type": "VEC3"},
        {"bufferView": 0, "byteOffset": 96, "componentType": 5126, "count": 4, "type": "VEC2"},
        {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}],
      "materials": [
        {"name": "textured", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0},
                                                      "metallicFactor": 0, "roughnessFactor": 0.9}},
        {"name": "mask", "doubleSided": true, "alphaMode": "MASK", "alphaCutoff": 0.3,
         "pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.4, 0.6, 1.0]}}],
      "meshes": [
        {"name": "front", "primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3, "material": 0}]},
        {"name": "side", "primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3, "material": 1}]}],
      "cameras": [{"type": "perspective", "perspective": {"yfov": 0.9, "znear": 0.1, "zfar": 50, "aspectRatio": 1.0}}],
      "nodes": [
        {"name": "front", "mesh": 0, "translation": [0, 0, -5], "scale": [2, 2, 2]},
        {"name": "group", "children": [2], "translation": [3, 0, 0]},
        {"name": "side", "mesh": 1, "matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,-7,1]},
        {"name": "camera", "camera": 0, "translation": [0, 0, 1]}],
      "scenes": [{"nodes": [0, 1, 3]}],
      "scene": 0
    })"_json;
}

}  // namespace swinup::test
