#include "render/geometry.h"

#include <cmath>

namespace swinup::render {

namespace {
constexpr float pi = 3.14159265358979f;

void push(TriangleList& out, Vec3 p0, Vec3 p1, Vec3 p2, Vec3 n0, Vec3 n1, Vec3 n2, Vec2 t0, Vec2 t1,
          Vec2 t2, int material) {
    SourceTriangle t;
    t.p[0] = p0; t.p[1] = p1; t.p[2] = p2;
    t.n[0] = n0; t.n[1] = n1; t.n[2] = n2;
    t.uv[0] = t0; t.uv[1] = t1; t.uv[2] = t2;
    t.material = material;
    out.push_back(t);
}

// Any unit vector perpendicular to `axis`.
Vec3 perpendicular(Vec3 axis) {
    const Vec3 other = std::fabs(axis.x) < 0.9f ? Vec3{1, 0, 0} : Vec3{0, 1, 0};
    return normalize(cross(axis, other));
}
}  // namespace

void add_quad(TriangleList& out, Vec3 origin, Vec3 u, Vec3 v, int material, Vec2 uv_scale) {
    const Vec3 n = normalize(cross(u, v));
    const Vec3 p00 = origin, p10 = origin + u, p11 = origin + u + v, p01 = origin + v;
    const Vec2 t00{0, uv_scale.y}, t10{uv_scale.x, uv_scale.y}, t11{uv_scale.x, 0}, t01{0, 0};
    push(out, p00, p10, p11, n, n, n, t00, t10, t11, material);
    push(out, p00, p11, p01, n, n, n, t00, t11, t01, material);
}

void add_box(TriangleList& out, Vec3 mn, Vec3 mx, int material, Vec2 uv_scale) {
    const Vec3 d = mx - mn;
    add_quad(out, {mn.x, mn.y, mx.z}, {d.x, 0, 0}, {0, d.y, 0}, material, uv_scale);      // +z
    add_quad(out, {mx.x, mn.y, mn.z}, {-d.x, 0, 0}, {0, d.y, 0}, material, uv_scale);     // -z
    add_quad(out, {mx.x, mn.y, mx.z}, {0, 0, -d.z}, {0, d.y, 0}, material, uv_scale);     // +x
    add_quad(out, {mn.x, mn.y, mn.z}, {0, 0, d.z}, {0, d.y, 0}, material, uv_scale);      // -x
    add_quad(out, {mn.x, mx.y, mx.z}, {d.x, 0, 0}, {0, 0, -d.z}, material, uv_scale);     // +y
    add_quad(out, {mn.x, mn.y, mn.z}, {d.x, 0, 0}, {0, 0, d.z}, material, uv_scale);      // -y
}

void add_cylinder(TriangleList& out, Vec3 a, Vec3 b, float radius, int segments, int material) {
    const Vec3 axis = normalize(b - a);
    const Vec3 e1 = perpendicular(axis), e2 = cross(axis, e1);
    for (int i = 0; i < segments; ++i) {
        const float a0 = 2.0f * pi * static_cast<float>(i) / static_cast<float>(segments);
        const float a1 = 2.0f * pi * static_cast<float>(i + 1) / static_cast<float>(segments);
        const Vec3 n0 = e1 * std::cos(a0) + e2 * std::sin(a0), n1 = e1 * std::cos(a1) + e2 * std::sin(a1);
        const float u0 = static_cast<float>(i) / static_cast<float>(segments);
        const float u1 = static_cast<float>(i + 1) / static_cast<float>(segments);
        const Vec3 p0 = a + n0 * radius, p1 = a + n1 * radius, q0 = b + n0 * radius, q1 = b + n1 * radius;
        push(out, p0, p1, q1, n0, n1, n1, {u0, 1}, {u1, 1}, {u1, 0}, material);
        push(out, p0, q1, q0, n0, n1, n0, {u0, 1}, {u1, 0}, {u0, 0}, material);
    }
}

void add_sphere(TriangleList& out, Vec3 center, float radius, int rings, int segments, int material) {
    auto point = [&](int ring, int seg) {
        const float theta = pi * static_cast<float>(ring) / static_cast<float>(rings);
        const float phi = 2.0f * pi * static_cast<float>(seg) / static_cast<float>(segments);
        return Vec3{std::sin(theta) * std::cos(phi), std::cos(theta), -std::sin(theta) * std::sin(phi)};
    };
    auto uv = [&](int ring, int seg) {
        return Vec2{static_cast<float>(seg) / static_cast<float>(segments), static_cast<float>(ring) / static_cast<float>(rings)};
    };
    for (int r = 0; r < rings; ++r) {
        for (int s = 0; s < segments; ++s) {
            const Vec3 n00 = point(r, s), n01 = point(r, s + 1), n10 = point(r + 1, s), n11 = point(r + 1, s + 1);
            if (r > 0) push(out, center + n00 * radius, center + n10 * radius, center + n11 * radius, n00, n10, n11,
                            uv(r, s), uv(r + 1, s), uv(r + 1, s + 1), material);
            if (r < rings - 1) push(out, center + n00 * radius, center + n11 * radius, center + n01 * radius, n00, n11, n01,
                                    uv(r, s), uv(r + 1, s + 1), uv(r, s + 1), material);
        }
    }
}

}  // namespace swinup::render
