// The scene on the host: geometry, instances with their animation, materials, textures, light
// and the scene's own camera. It owns the arrays that SceneView (scene_view.h) points into.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "render/bvh_build.h"
#include "render/camera_path.h"
#include "render/scene_view.h"

namespace swinup::render {

// A triangle as scenes describe it, before it goes into a mesh's BVH.
struct SourceTriangle {
    Vec3 p[3];
    Vec3 n[3];   // vertex normals (zero: the face normal is used)
    Vec2 uv[3];
    int material = 0;
};

// Object-to-world transform of an instance at a time in seconds.
using InstanceAnimation = std::function<Affine(float time_s)>;

struct Scene {
    std::string name;
    std::string description;
    std::vector<std::string> warnings;  // what a loader skipped (missing images, unsupported parts)

    // What SceneView points into.
    std::vector<BvhNode> mesh_nodes;
    std::vector<Triangle> triangles;
    std::vector<TriangleAttributes> attributes;
    std::vector<Mesh> meshes;
    std::vector<Instance> instances;
    std::vector<BvhNode> top_nodes;
    std::vector<int> top_instances;
    std::vector<Material> materials;
    std::vector<TextureInfo> textures;
    std::vector<Rgba> texels;
    Lighting lighting;
    float current_time_s = 0.0f;  // the time of set_time (animated textures)

    // Per instance: its animation (empty: static at the transform it was added with).
    std::vector<InstanceAnimation> animations;
    std::vector<Aabb> mesh_bounds;

    // The scene's own camera: where presets start from and how it moves by default.
    CameraPose camera_base;
    CameraMotion camera_motion;          // empty: static at camera_base
    std::vector<CameraPose> cameras;     // a glTF scene's cameras (presets may start from any)
    float scale = 10.0f;                 // characteristic length, sizes preset motion

    // Builds the mesh's BVH (reordering its triangles); returns the mesh index.
    int add_mesh(const std::vector<SourceTriangle>& source);
    int add_instance(int mesh, const Affine& object_to_world);
    int add_animated_instance(int mesh, InstanceAnimation animation);
    int add_material(const Material& material);

    // Places every instance at `time_s` (previous transforms at `previous_time_s`) and rebuilds
    // the top-level BVH.
    void set_time(float time_s, float previous_time_s);

    // World bounds of all instances at the current time.
    Aabb world_bounds() const;

    SceneView view() const;
};

}  // namespace swinup::render
