// BVH traversal and ray/triangle intersection, one definition for host and device. The leaf
// callback decides what a hit means (closest hit, any hit, alpha tests), so the same loop serves
// the top level, the mesh level, primary rays and shadow rays.
#pragma once

#include "render/scene_view.h"

namespace swinup::render {

constexpr int bvh_stack_size = 64;

// Ray direction reciprocal with zero components nudged, so that slab tests never see 0 * inf.
SWINUP_HD Vec3 safe_reciprocal(Vec3 d) {
    const float tiny = 1e-20f;
    auto r = [tiny](float v) { return 1.0f / (fabsf(v) > tiny ? v : (v >= 0.0f ? tiny : -tiny)); };
    return {r(d.x), r(d.y), r(d.z)};
}

// Slab test; on a hit, t_entry is where the ray enters the box (0 when it starts inside).
SWINUP_HD bool ray_hits_box(Vec3 origin, Vec3 inv_dir, Vec3 bmin, Vec3 bmax, float t_max,
                            float& t_entry) {
    const float tx0 = (bmin.x - origin.x) * inv_dir.x, tx1 = (bmax.x - origin.x) * inv_dir.x;
    const float ty0 = (bmin.y - origin.y) * inv_dir.y, ty1 = (bmax.y - origin.y) * inv_dir.y;
    const float tz0 = (bmin.z - origin.z) * inv_dir.z, tz1 = (bmax.z - origin.z) * inv_dir.z;
    const float t_near = max_f(max_f(min_f(tx0, tx1), min_f(ty0, ty1)), max_f(min_f(tz0, tz1), 0.0f));
    const float t_far = min_f(min_f(max_f(tx0, tx1), max_f(ty0, ty1)), min_f(max_f(tz0, tz1), t_max));
    t_entry = t_near;
    return t_near <= t_far;
}

// Moller-Trumbore. Returns the distance along `dir` (in units of |dir|) and barycentrics (u, v)
// of v1 and v2; `front` tells whether the ray sees the counter-clockwise side.
SWINUP_HD bool ray_hits_triangle(Vec3 origin, Vec3 dir, const Triangle& tri, float t_max,
                                 float& t, float& u, float& v, bool& front) {
    const Vec3 p = cross(dir, tri.edge2);
    const float det = dot(tri.edge1, p);
    if (fabsf(det) < 1e-20f) return false;
    const float inv_det = 1.0f / det;
    const Vec3 s = origin - tri.v0;
    u = dot(s, p) * inv_det;
    if (u < 0.0f || u > 1.0f) return false;
    const Vec3 q = cross(s, tri.edge1);
    v = dot(dir, q) * inv_det;
    if (v < 0.0f || u + v > 1.0f) return false;
    t = dot(tri.edge2, q) * inv_det;
    front = det > 0.0f;  // det = -dot(dir, edge1 x edge2): the normal faces the ray
    return t > 0.0f && t < t_max;
}

// Visits the leaves that the ray (origin, inv_dir) reaches before t_max, nearer child first.
// leaf(first, count, t_max) may shrink t_max (closest hit) and returns true to stop (any hit).
template <class LeafVisitor>
SWINUP_HD void bvh_traverse(const BvhNode* nodes, Vec3 origin, Vec3 inv_dir, float& t_max,
                            LeafVisitor& leaf) {
    float t_entry = 0.0f;
    if (!ray_hits_box(origin, inv_dir, nodes[0].bounds_min, nodes[0].bounds_max, t_max, t_entry)) return;
    int stack_node[bvh_stack_size];
    float stack_t[bvh_stack_size];
    int depth = 0;
    int node_index = 0;
    for (;;) {
        const BvhNode& node = nodes[node_index];
        if (node.count > 0) {
            if (leaf(node.first, node.count, t_max)) return;
        } else {
            const BvhNode& a = nodes[node.first];
            const BvhNode& b = nodes[node.first + 1];
            float ta = 0.0f, tb = 0.0f;
            const bool hit_a = ray_hits_box(origin, inv_dir, a.bounds_min, a.bounds_max, t_max, ta);
            const bool hit_b = ray_hits_box(origin, inv_dir, b.bounds_min, b.bounds_max, t_max, tb);
            if (hit_a && hit_b) {
                const bool a_first = ta <= tb;
                stack_node[depth] = a_first ? node.first + 1 : node.first;
                stack_t[depth] = a_first ? tb : ta;
                ++depth;
                node_index = a_first ? node.first : node.first + 1;
                continue;
            }
            if (hit_a || hit_b) {
                node_index = hit_a ? node.first : node.first + 1;
                continue;
            }
        }
        // Pop the next node that is still nearer than the closest hit so far.
        for (;;) {
            if (depth == 0) return;
            --depth;
            if (stack_t[depth] <= t_max) break;
        }
        node_index = stack_node[depth];
    }
}

}  // namespace swinup::render
