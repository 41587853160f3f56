// A pinhole camera and its projection to pixels and device depth, one definition for host and
// device. Pixel space: (0,0) is the top-left corner of the image, +y down, pixel (x, y) covers
// [x, x+1) x [y, y+1). World space is right-handed with +y up (glTF).
#pragma once

#include "render/math.h"

namespace swinup::render {

struct Camera {
    Vec3 position;
    Vec3 right{1, 0, 0}, up{0, 1, 0}, forward{0, 0, -1};  // orthonormal
    float tan_half_fov_y = 0.57735027f;  // tan(30 deg)
    float aspect = 16.0f / 9.0f;         // width / height of the image plane
    float near = 0.1f, far = 1000.0f;
};

// Unit direction of the ray through pixel-space point (sx, sy) of a width x height image.
SWINUP_HD Vec3 camera_ray_direction(const Camera& c, float sx, float sy, int width, int height) {
    const float ndc_x = 2.0f * sx / static_cast<float>(width) - 1.0f;
    const float ndc_y = 1.0f - 2.0f * sy / static_cast<float>(height);
    return normalize(c.forward + c.right * (ndc_x * c.tan_half_fov_y * c.aspect) +
                     c.up * (ndc_y * c.tan_half_fov_y));
}

struct PixelProjection {
    float x = 0.0f, y = 0.0f;  // pixel-space position
    float view_z = 0.0f;       // distance along the view axis (> 0 in front)
};

SWINUP_HD PixelProjection camera_project_view(const Camera& c, float vx, float vy, float vz,
                                              int width, int height) {
    PixelProjection p;
    p.view_z = vz;
    const float z = fabsf(vz) > 1e-20f ? vz : 1e-20f;
    const float ndc_x = vx / (z * c.tan_half_fov_y * c.aspect);
    const float ndc_y = vy / (z * c.tan_half_fov_y);
    p.x = (ndc_x + 1.0f) * 0.5f * static_cast<float>(width);
    p.y = (1.0f - ndc_y) * 0.5f * static_cast<float>(height);
    return p;
}

SWINUP_HD PixelProjection camera_project_point(const Camera& c, Vec3 world, int width, int height) {
    const Vec3 v = world - c.position;
    return camera_project_view(c, dot(v, c.right), dot(v, c.up), dot(v, c.forward), width, height);
}

// A point at infinity in direction `dir` (the sky): only the camera's rotation moves it.
SWINUP_HD PixelProjection camera_project_direction(const Camera& c, Vec3 dir, int width, int height) {
    return camera_project_view(c, dot(dir, c.right), dot(dir, c.up), dot(dir, c.forward), width, height);
}

// Device depth of a D3D-style projection: 0 at near, 1 at far (and beyond: the sky); reverse-Z
// (inverted) is 1 - that, 1 at near and 0 at far.
SWINUP_HD float device_depth(float view_z, float near, float far, bool inverted) {
    float d = 1.0f;
    if (view_z > 0.0f && view_z < far) {
        d = far * (view_z - near) / (view_z * (far - near));
        d = clampf(d, 0.0f, 1.0f);
    }
    return inverted ? 1.0f - d : d;
}

}  // namespace swinup::render
