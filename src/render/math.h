// Small vector and affine-transform types for the renderer, one definition for host and device
// (SWINUP_HD). Plain aggregates so that they copy to the GPU as bytes.
#pragma once

#include <cmath>

#include "numeric/host_device.h"

namespace swinup::render {

// min/max as compare-and-select: compiles to minss/maxss on x86 (fminf/fmaxf are library calls
// there, because of their NaN rules) and to min/max on the GPU. Callers never pass NaN.
SWINUP_HD float min_f(float a, float b) { return a < b ? a : b; }
SWINUP_HD float max_f(float a, float b) { return a > b ? a : b; }

struct Vec2 {
    float x = 0.0f, y = 0.0f;
};

struct Vec3 {
    float x = 0.0f, y = 0.0f, z = 0.0f;
    SWINUP_HD float operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};

SWINUP_HD Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
SWINUP_HD Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
SWINUP_HD Vec2 operator*(Vec2 a, float s) { return {a.x * s, a.y * s}; }

SWINUP_HD Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
SWINUP_HD Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
SWINUP_HD Vec3 operator-(Vec3 a) { return {-a.x, -a.y, -a.z}; }
SWINUP_HD Vec3 operator*(Vec3 a, Vec3 b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
SWINUP_HD Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
SWINUP_HD Vec3 operator*(float s, Vec3 a) { return {a.x * s, a.y * s, a.z * s}; }
SWINUP_HD Vec3 operator/(Vec3 a, float s) { return {a.x / s, a.y / s, a.z / s}; }
SWINUP_HD Vec3& operator+=(Vec3& a, Vec3 b) { a = a + b; return a; }

SWINUP_HD float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
SWINUP_HD Vec3 cross(Vec3 a, Vec3 b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
SWINUP_HD float length(Vec3 a) { return sqrtf(dot(a, a)); }
SWINUP_HD Vec3 normalize(Vec3 a) {
    const float len = length(a);
    return len > 0.0f ? a / len : Vec3{0.0f, 0.0f, 1.0f};
}
SWINUP_HD Vec3 vmin(Vec3 a, Vec3 b) { return {min_f(a.x, b.x), min_f(a.y, b.y), min_f(a.z, b.z)}; }
SWINUP_HD Vec3 vmax(Vec3 a, Vec3 b) { return {max_f(a.x, b.x), max_f(a.y, b.y), max_f(a.z, b.z)}; }
SWINUP_HD Vec3 lerp(Vec3 a, Vec3 b, float t) { return a + (b - a) * t; }
SWINUP_HD float clampf(float v, float lo, float hi) { return min_f(max_f(v, lo), hi); }
SWINUP_HD float saturate(float v) { return clampf(v, 0.0f, 1.0f); }

// Row-major 3x4 affine transform: p' = M[:, 0:3] p + M[:, 3].
struct Affine {
    float m[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
};

SWINUP_HD Vec3 transform_point(const Affine& a, Vec3 p) {
    return {a.m[0][0] * p.x + a.m[0][1] * p.y + a.m[0][2] * p.z + a.m[0][3],
            a.m[1][0] * p.x + a.m[1][1] * p.y + a.m[1][2] * p.z + a.m[1][3],
            a.m[2][0] * p.x + a.m[2][1] * p.y + a.m[2][2] * p.z + a.m[2][3]};
}
SWINUP_HD Vec3 transform_vector(const Affine& a, Vec3 v) {
    return {a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
            a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
            a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z};
}
// Normals go through the inverse transpose: given the inverse, multiply by its transpose.
SWINUP_HD Vec3 transform_normal_by_inverse(const Affine& inverse, Vec3 n) {
    return {inverse.m[0][0] * n.x + inverse.m[1][0] * n.y + inverse.m[2][0] * n.z,
            inverse.m[0][1] * n.x + inverse.m[1][1] * n.y + inverse.m[2][1] * n.z,
            inverse.m[0][2] * n.x + inverse.m[1][2] * n.y + inverse.m[2][2] * n.z};
}

SWINUP_HD Affine affine_multiply(const Affine& a, const Affine& b) {
    Affine r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 4; ++j) {
            float v = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
            if (j == 3) v += a.m[i][3];
            r.m[i][j] = v;
        }
    }
    return r;
}

// Inverse of an affine transform (the caller guarantees it is invertible; a singular one gives
// the identity rather than NaN).
SWINUP_HD Affine affine_inverse(const Affine& a) {
    const float c00 = a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1];
    const float c01 = a.m[1][2] * a.m[2][0] - a.m[1][0] * a.m[2][2];
    const float c02 = a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0];
    const float det = a.m[0][0] * c00 + a.m[0][1] * c01 + a.m[0][2] * c02;
    Affine r;
    if (!(fabsf(det) > 1e-30f)) return r;
    const float inv = 1.0f / det;
    r.m[0][0] = c00 * inv;
    r.m[0][1] = (a.m[0][2] * a.m[2][1] - a.m[0][1] * a.m[2][2]) * inv;
    r.m[0][2] = (a.m[0][1] * a.m[1][2] - a.m[0][2] * a.m[1][1]) * inv;
    r.m[1][0] = c01 * inv;
    r.m[1][1] = (a.m[0][0] * a.m[2][2] - a.m[0][2] * a.m[2][0]) * inv;
    r.m[1][2] = (a.m[0][2] * a.m[1][0] - a.m[0][0] * a.m[1][2]) * inv;
    r.m[2][0] = c02 * inv;
    r.m[2][1] = (a.m[0][1] * a.m[2][0] - a.m[0][0] * a.m[2][1]) * inv;
    r.m[2][2] = (a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0]) * inv;
    const Vec3 t{a.m[0][3], a.m[1][3], a.m[2][3]};
    for (int i = 0; i < 3; ++i) {
        r.m[i][3] = -(r.m[i][0] * t.x + r.m[i][1] * t.y + r.m[i][2] * t.z);
    }
    return r;
}

SWINUP_HD Affine affine_translation(Vec3 t) {
    return {{{1, 0, 0, t.x}, {0, 1, 0, t.y}, {0, 0, 1, t.z}}};
}
SWINUP_HD Affine affine_scale(Vec3 s) {
    return {{{s.x, 0, 0, 0}, {0, s.y, 0, 0}, {0, 0, s.z, 0}}};
}
// Rotation of `angle` radians about the unit `axis` (right-handed).
SWINUP_HD Affine affine_rotation(Vec3 axis, float angle) {
    const Vec3 k = normalize(axis);
    const float c = cosf(angle), s = sinf(angle), t = 1.0f - c;
    Affine r;
    r.m[0][0] = t * k.x * k.x + c;       r.m[0][1] = t * k.x * k.y - s * k.z; r.m[0][2] = t * k.x * k.z + s * k.y;
    r.m[1][0] = t * k.x * k.y + s * k.z; r.m[1][1] = t * k.y * k.y + c;       r.m[1][2] = t * k.y * k.z - s * k.x;
    r.m[2][0] = t * k.x * k.z - s * k.y; r.m[2][1] = t * k.y * k.z + s * k.x; r.m[2][2] = t * k.z * k.z + c;
    return r;
}
// glTF's TRS with a unit quaternion (x, y, z, w).
SWINUP_HD Affine affine_from_trs(Vec3 t, const float q[4], Vec3 s) {
    const float x = q[0], y = q[1], z = q[2], w = q[3];
    Affine r;
    r.m[0][0] = (1 - 2 * (y * y + z * z)) * s.x; r.m[0][1] = 2 * (x * y - z * w) * s.y;       r.m[0][2] = 2 * (x * z + y * w) * s.z;
    r.m[1][0] = 2 * (x * y + z * w) * s.x;       r.m[1][1] = (1 - 2 * (x * x + z * z)) * s.y; r.m[1][2] = 2 * (y * z - x * w) * s.z;
    r.m[2][0] = 2 * (x * z - y * w) * s.x;       r.m[2][1] = 2 * (y * z + x * w) * s.y;       r.m[2][2] = (1 - 2 * (x * x + y * y)) * s.z;
    r.m[0][3] = t.x;
    r.m[1][3] = t.y;
    r.m[2][3] = t.z;
    return r;
}

}  // namespace swinup::render
