// Bounding volume hierarchy construction (host): binned surface-area heuristic over primitive
// bounds. The same builder serves mesh BVHs (triangles) and the per-frame top level (instances).
#pragma once

#include <limits>
#include <vector>

#include "render/scene_view.h"

namespace swinup::render {

struct Aabb {
    Vec3 min{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
             std::numeric_limits<float>::max()};
    Vec3 max{-std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
             -std::numeric_limits<float>::max()};

    void grow(Vec3 p) { min = vmin(min, p); max = vmax(max, p); }
    void grow(const Aabb& b) { min = vmin(min, b.min); max = vmax(max, b.max); }
    bool valid() const { return min.x <= max.x && min.y <= max.y && min.z <= max.z; }
    Vec3 center() const { return (min + max) * 0.5f; }
    float half_area() const {
        if (!valid()) return 0.0f;
        const Vec3 d = max - min;
        return d.x * d.y + d.y * d.z + d.z * d.x;
    }
};

// Bounds of an affine transform of a box (the eight corners).
Aabb aabb_transform(const Aabb& box, const Affine& transform);

struct Bvh {
    std::vector<BvhNode> nodes;  // nodes[0] is the root
    std::vector<int> order;      // leaf ranges index this: primitive order[i] sits at slot i
};

// Builds a BVH of at most `max_leaf_size` primitives per leaf (more only when primitives cannot
// be separated) and depth below the tracer's stack size. An empty input gives one empty leaf.
Bvh bvh_build(const std::vector<Aabb>& primitive_bounds, int max_leaf_size = 4);

}  // namespace swinup::render
