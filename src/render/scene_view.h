// The scene as the tracer sees it: flat arrays of plain structs behind raw pointers, so that one
// tracer (SWINUP_HD) reads it on the CPU and, copied as bytes, on the GPU.
//
// Geometry is two-level: each mesh has its own BVH over object-space triangles (built once);
// instances place meshes in the world with a transform for this frame and one for the previous
// frame (object motion vectors); a top-level BVH over instance bounds is rebuilt every frame.
#pragma once

#include <cstdint>

#include "render/math.h"

namespace swinup::render {

// One BVH node. Leaves have count > 0 and own primitives [first, first + count); inner nodes have
// count == 0 and children at first and first + 1. Indices are relative to the owning BVH.
struct BvhNode {
    Vec3 bounds_min;
    int first = 0;
    Vec3 bounds_max;
    int count = 0;
};

// Object-space triangle in the form the intersection test wants: v0 and two edges.
struct Triangle {
    Vec3 v0, edge1, edge2;
};

// What shading needs of a triangle, stored in the same (BVH) order as Triangle.
struct TriangleAttributes {
    Vec3 n0, n1, n2;     // object-space vertex normals
    Vec2 uv0, uv1, uv2;  // texture coordinates
    int material = 0;
};

struct Mesh {
    int node_offset = 0;      // this mesh's BVH nodes start here in SceneView::mesh_nodes
    int triangle_offset = 0;  // and its triangles here in SceneView::triangles / attributes
    int triangle_count = 0;
};

struct Instance {
    int mesh = 0;
    int id = 0;                    // stable identifier (tests and debugging)
    Affine object_to_world;        // this frame
    Affine world_to_object;        // its inverse
    Affine previous_object_to_world;  // previous frame (object motion vectors)
};

enum AlphaMode : int { alpha_opaque = 0, alpha_mask = 1, alpha_blend = 2 };

// What a material is for the masks of the sequence (tracer.h, trace_primary): bits of
// Material::mask_flags.
enum MaterialMaskFlag : int {
    // An emissive, alpha-blended particle: like every blended surface it writes no depth and no
    // motion (the motion vectors stay the opaque surface's behind it, as in engines), and its
    // alpha goes into the reactive mask as well as the transparency mask.
    material_particle = 1,
    // The texture scrolls over time (Material::uv_scroll): the colour changes without motion
    // vectors that describe it. Reactive 1 on an opaque surface; its alpha on a blended one.
    material_animated_texture = 2,
};

struct Material {
    Vec3 base_color{1.0f, 1.0f, 1.0f};  // linear, multiplies the texture
    float alpha = 1.0f;
    int base_color_texture = -1;        // -1: flat colour
    int alpha_mode = alpha_opaque;
    float alpha_cutoff = 0.5f;
    int double_sided = 0;
    float roughness = 0.5f;             // perceptual roughness
    float metallic = 0.0f;
    float specular = 1.0f;              // scales the dielectric F0 (KHR_materials_specular)
    Vec3 emissive{0.0f, 0.0f, 0.0f};
    int mask_flags = 0;                 // MaterialMaskFlag bits
    Vec2 uv_scroll{0.0f, 0.0f};         // texture coordinates per second (material_animated_texture)
};

enum WrapMode : int { wrap_repeat = 0, wrap_clamp = 1, wrap_mirror = 2 };

struct Rgba {
    float r = 0.0f, g = 0.0f, b = 0.0f, a = 1.0f;
};

constexpr int max_texture_levels = 16;

// A texture with its mip chain, each level stored row-major in SceneView::texels.
struct TextureInfo {
    int width = 0, height = 0, levels = 0;
    int wrap_s = wrap_repeat, wrap_t = wrap_repeat;
    int64_t level_offset[max_texture_levels] = {};
    int level_width[max_texture_levels] = {};
    int level_height[max_texture_levels] = {};
};

// Sun, sky and ground: the whole lighting model (shading.h).
struct Lighting {
    Vec3 sun_direction{0.3f, 0.8f, 0.5f};  // unit, towards the sun
    Vec3 sun_radiance{3.0f, 2.85f, 2.6f};  // irradiance on a surface facing the sun
    Vec3 sky_zenith{0.25f, 0.45f, 0.85f};
    Vec3 sky_horizon{0.75f, 0.85f, 0.95f};
    Vec3 ground{0.30f, 0.27f, 0.22f};
    float sky_intensity = 1.0f;
};

struct SceneView {
    const BvhNode* mesh_nodes = nullptr;
    const Triangle* triangles = nullptr;
    const TriangleAttributes* attributes = nullptr;
    const Mesh* meshes = nullptr;
    const Instance* instances = nullptr;
    const BvhNode* top_nodes = nullptr;    // over instances (leaf ranges index top_instances)
    const int* top_instances = nullptr;    // instance indices in top-level BVH order
    int instance_count = 0;
    const Material* materials = nullptr;
    int material_count = 0;
    const TextureInfo* textures = nullptr;
    int texture_count = 0;
    const Rgba* texels = nullptr;
    Lighting lighting;
    float time_s = 0.0f;  // the frame's time (animated textures)
};

}  // namespace swinup::render
