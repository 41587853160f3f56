// Triangle-soup builders for the procedural scenes (host): quads, boxes, cylinders, spheres.
#pragma once

#include <vector>

#include "render/scene.h"

namespace swinup::render {

using TriangleList = std::vector<SourceTriangle>;

// Quad with corners origin, origin + u, origin + u + v, origin + v; normal u x v; texture
// coordinates (0,0) at origin+v... spanning uv_scale repeats: u along `u`, v against `v` (glTF's
// v runs down the image).
void add_quad(TriangleList& out, Vec3 origin, Vec3 u, Vec3 v, int material, Vec2 uv_scale = {1, 1});
// Axis-aligned box from min to max, faces outward, each face mapped to [0, uv_scale].
void add_box(TriangleList& out, Vec3 min, Vec3 max, int material, Vec2 uv_scale = {1, 1});
// Open cylinder (a tube) from a to b, smooth normals; wires are thin ones.
void add_cylinder(TriangleList& out, Vec3 a, Vec3 b, float radius, int segments, int material);
// UV sphere, smooth normals.
void add_sphere(TriangleList& out, Vec3 center, float radius, int rings, int segments, int material);

}  // namespace swinup::render
