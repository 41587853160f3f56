#include "render/bvh_build.h"

#include <algorithm>
#include <array>

#include "render/bvh_traverse.h"

namespace swinup::render {

Aabb aabb_transform(const Aabb& box, const Affine& transform) {
    Aabb out;
    for (int corner = 0; corner < 8; ++corner) {
        const Vec3 p{(corner & 1) ? box.max.x : box.min.x, (corner & 2) ? box.max.y : box.min.y,
                     (corner & 4) ? box.max.z : box.min.z};
        out.grow(transform_point(transform, p));
    }
    return out;
}

namespace {

constexpr int bin_count = 12;
// Past this depth, splits are by median count, so that the whole tree stays within the
// traversal stack (bvh_traverse.h) whatever the geometry.
constexpr int median_split_depth = bvh_stack_size - 26;

struct Bin {
    Aabb bounds;
    int count = 0;
};

struct BuildTask {
    int node, begin, end, depth;
};

float axis_of(Vec3 v, int axis) { return axis == 0 ? v.x : (axis == 1 ? v.y : v.z); }

}  // namespace

Bvh bvh_build(const std::vector<Aabb>& primitive_bounds, int max_leaf_size) {
    Bvh bvh;
    const int n = static_cast<int>(primitive_bounds.size());
    bvh.order.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) bvh.order[static_cast<size_t>(i)] = i;
    std::vector<Vec3> centers(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) centers[static_cast<size_t>(i)] = primitive_bounds[static_cast<size_t>(i)].center();

    bvh.nodes.reserve(static_cast<size_t>(std::max(1, 2 * n / std::max(1, max_leaf_size) + 1)));
    bvh.nodes.push_back(BvhNode{});
    if (n == 0) {
        // An empty leaf whose box no ray hits.
        bvh.nodes[0].bounds_min = Vec3{1, 1, 1};
        bvh.nodes[0].bounds_max = Vec3{-1, -1, -1};
        return bvh;
    }

    std::vector<BuildTask> tasks{{0, 0, n, 0}};
    while (!tasks.empty()) {
        const BuildTask task = tasks.back();
        tasks.pop_back();
        Aabb bounds, centroid_bounds;
        for (int i = task.begin; i < task.end; ++i) {
            const int p = bvh.order[static_cast<size_t>(i)];
            bounds.grow(primitive_bounds[static_cast<size_t>(p)]);
            centroid_bounds.grow(centers[static_cast<size_t>(p)]);
        }
        BvhNode& node = bvh.nodes[static_cast<size_t>(task.node)];
        node.bounds_min = bounds.min;
        node.bounds_max = bounds.max;
        const int count = task.end - task.begin;
        auto make_leaf = [&] {
            node.first = task.begin;
            node.count = count;
        };
        if (count <= max_leaf_size) {
            make_leaf();
            continue;
        }
        const Vec3 extent = centroid_bounds.max - centroid_bounds.min;
        int axis = 0;
        if (extent.y > extent.x) axis = 1;
        if (extent.z > axis_of(extent, axis)) axis = 2;
        const float lo = axis_of(centroid_bounds.min, axis);
        const float span = axis_of(extent, axis);
        if (!(span > 0.0f)) {  // all centres coincide: nothing separates them
            make_leaf();
            continue;
        }

        int mid = -1;
        if (task.depth < median_split_depth) {
            // Binned SAH along the longest centroid axis.
            std::array<Bin, bin_count> bins{};
            const float scale = static_cast<float>(bin_count) / span;
            auto bin_of = [&](int p) {
                const int b = static_cast<int>((axis_of(centers[static_cast<size_t>(p)], axis) - lo) * scale);
                return std::clamp(b, 0, bin_count - 1);
            };
            for (int i = task.begin; i < task.end; ++i) {
                const int p = bvh.order[static_cast<size_t>(i)];
                Bin& bin = bins[static_cast<size_t>(bin_of(p))];
                bin.bounds.grow(primitive_bounds[static_cast<size_t>(p)]);
                ++bin.count;
            }
            std::array<float, bin_count> right_cost{};
            Aabb right;
            int right_count = 0;
            for (int b = bin_count - 1; b > 0; --b) {
                right.grow(bins[static_cast<size_t>(b)].bounds);
                right_count += bins[static_cast<size_t>(b)].count;
                right_cost[static_cast<size_t>(b)] = right.half_area() * static_cast<float>(right_count);
            }
            Aabb left;
            int left_count = 0;
            float best_cost = std::numeric_limits<float>::max();
            int best_split = -1;
            for (int b = 1; b < bin_count; ++b) {
                left.grow(bins[static_cast<size_t>(b - 1)].bounds);
                left_count += bins[static_cast<size_t>(b - 1)].count;
                if (left_count == 0 || left_count == count) continue;
                const float cost = left.half_area() * static_cast<float>(left_count) + right_cost[static_cast<size_t>(b)];
                if (cost < best_cost) {
                    best_cost = cost;
                    best_split = b;
                }
            }
            // Leaf when splitting costs more than intersecting everything (1 box test ~ 1 triangle).
            const float leaf_cost = bounds.half_area() * static_cast<float>(count);
            if (best_split < 0 || (best_cost + bounds.half_area() >= leaf_cost && count <= 2 * max_leaf_size)) {
                if (best_split < 0 && count > max_leaf_size) {
                    mid = -1;  // fall through to the median split below
                } else {
                    make_leaf();
                    continue;
                }
            } else {
                auto it = std::partition(bvh.order.begin() + task.begin, bvh.order.begin() + task.end,
                                         [&](int p) { return bin_of(p) < best_split; });
                mid = static_cast<int>(it - bvh.order.begin());
            }
        }
        if (mid <= task.begin || mid >= task.end) {
            mid = task.begin + count / 2;
            std::nth_element(bvh.order.begin() + task.begin, bvh.order.begin() + mid,
                             bvh.order.begin() + task.end, [&](int a, int b) {
                                 return axis_of(centers[static_cast<size_t>(a)], axis) <
                                        axis_of(centers[static_cast<size_t>(b)], axis);
                             });
        }
        const int left_index = static_cast<int>(bvh.nodes.size());
        // `node` may dangle after push_back: write through the index.
        bvh.nodes[static_cast<size_t>(task.node)].first = left_index;
        bvh.nodes[static_cast<size_t>(task.node)].count = 0;
        bvh.nodes.push_back(BvhNode{});
        bvh.nodes.push_back(BvhNode{});
        tasks.push_back({left_index, task.begin, mid, task.depth + 1});
        tasks.push_back({left_index + 1, mid, task.end, task.depth + 1});
    }
    return bvh;
}

}  // namespace swinup::render
