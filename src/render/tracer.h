// The ray tracer, one definition for host and device: closest hit and shadow rays through the
// two-level BVH (with alpha-mask tests and single-sided culling), surface reconstruction with
// ray-cone texture level of detail, and the primary sample that the frame renderer stores:
// colour (through up to a few alpha-blended layers), the first opaque surface's position now and
// in the previous frame (depth and motion vectors), and the sample's reactive and transparency &
// composition mask values.
#pragma once

#include "render/bvh_traverse.h"
#include "render/shading.h"
#include "render/texture.h"

namespace swinup::render {

// A ray cone (Akenine-Moller et al. 2019, primary rays only): footprint width at distance t is
// width + spread * t. The spread of a pinhole camera is the angle one pixel subtends.
struct RayCone {
    float width = 0.0f;
    float spread = 0.0f;
};

struct TraceHit {
    float t = 0.0f;
    int instance = -1;  // -1: missed everything
    int triangle = 0;   // absolute index into SceneView::triangles
    float u = 0.0f, v = 0.0f;
    bool front = true;
};

// Texture level of detail at a hit: 0.5 log2(texel area / world area) of the triangle, plus the
// log2 of the cone's footprint over the cosine of incidence (capped at grazing angles), plus the
// caller's bias (negative: sharper, as upscalers ask of games).
SWINUP_HD float hit_texture_lod(const SceneView& scene, const Instance& instance, int triangle,
                                const TextureInfo& tex, Vec3 dir, float t, RayCone cone, float lod_bias) {
    const Triangle& tri = scene.triangles[triangle];
    const TriangleAttributes& a = scene.attributes[triangle];
    const Vec3 world_cross = cross(transform_vector(instance.object_to_world, tri.edge1),
                                   transform_vector(instance.object_to_world, tri.edge2));
    const float world_area = length(world_cross);
    const Vec2 duv1 = a.uv1 - a.uv0, duv2 = a.uv2 - a.uv0;
    const float uv_area = fabsf(duv1.x * duv2.y - duv1.y * duv2.x) *
                          static_cast<float>(tex.width) * static_cast<float>(tex.height);
    if (!(world_area > 0.0f) || !(uv_area > 0.0f)) return 0.0f;
    const float cos_incidence = max_f(fabsf(dot(dir, world_cross)) / world_area, 0.02f);
    const float footprint = max_f(cone.width + cone.spread * t, 1e-12f);
    return 0.5f * log2f(uv_area / world_area) + log2f(footprint / cos_incidence) + lod_bias;
}

SWINUP_HD Vec2 hit_uv(const TriangleAttributes& a, float u, float v) {
    const float w = 1.0f - u - v;
    return {a.uv0.x * w + a.uv1.x * u + a.uv2.x * v, a.uv0.y * w + a.uv1.y * u + a.uv2.y * v};
}

// The texture coordinates a material samples at a hit: an animated texture scrolls with time.
SWINUP_HD Vec2 material_uv(const SceneView& scene, const Material& m, int triangle, float u, float v) {
    const Vec2 uv = hit_uv(scene.attributes[triangle], u, v);
    if ((m.mask_flags & material_animated_texture) == 0) return uv;
    return uv + m.uv_scroll * scene.time_s;
}

// Base colour and alpha of a material at a hit (texture x factor, flat colour without texture).
SWINUP_HD Rgba material_base_color(const SceneView& scene, const Material& m, const Instance& instance,
                                   int triangle, float u, float v, Vec3 dir, float t, RayCone cone,
                                   float lod_bias) {
    Rgba c{m.base_color.x, m.base_color.y, m.base_color.z, m.alpha};
    if (m.base_color_texture >= 0 && m.base_color_texture < scene.texture_count) {
        const TextureInfo& tex = scene.textures[m.base_color_texture];
        const float lod = hit_texture_lod(scene, instance, triangle, tex, dir, t, cone, lod_bias);
        const Rgba s = sample_trilinear(scene, m.base_color_texture,
                                        material_uv(scene, m, triangle, u, v), lod);
        c.r *= s.r;
        c.g *= s.g;
        c.b *= s.b;
        c.a *= s.a;
    }
    return c;
}

// Alpha of a masked material for its test, from the full-resolution level: averaged mip alphas
// fall under the cutoff and would make distant fences vanish. The render frame then aliases like
// an alpha-tested fence without alpha-to-coverage, and the supersampled ground truth resolves it.
SWINUP_HD float material_coverage(const SceneView& scene, const Material& m, int triangle, float u, float v) {
    if (m.base_color_texture < 0 || m.base_color_texture >= scene.texture_count) return m.alpha;
    const TextureInfo& tex = scene.textures[m.base_color_texture];
    return m.alpha * sample_bilinear(scene, tex, 0, material_uv(scene, m, triangle, u, v)).a;
}

struct TraceOptions {
    float t_min = 0.0f;
    float t_max = 3.0e38f;
    bool cull_single_sided_back_faces = true;  // as rasterisers do for single-sided materials
    bool any_hit = false;                       // shadow rays: stop at the first occluder
    bool skip_blended = false;                  // shadow rays: alpha-blended surfaces cast none
};

// Traces a world-space ray (unit dir); fills `hit` with the closest accepted surface.
SWINUP_HD bool trace_ray(const SceneView& scene, Vec3 origin, Vec3 dir, const TraceOptions& options,
                         TraceHit& hit) {
    hit.instance = -1;
    float t_max = options.t_max;
    if (scene.instance_count == 0) return false;
    bool done = false;
    auto instance_leaf = [&](int first, int count, float& t_limit) -> bool {
        for (int k = first; k < first + count; ++k) {
            const int instance_index = scene.top_instances[k];
            const Instance& instance = scene.instances[instance_index];
            const Mesh& mesh = scene.meshes[instance.mesh];
            // Object space: the direction keeps its length there, so t means the same distance.
            const Vec3 o = transform_point(instance.world_to_object, origin);
            const Vec3 d = transform_vector(instance.world_to_object, dir);
            const Vec3 inv_d = safe_reciprocal(d);
            auto triangle_leaf = [&](int tri_first, int tri_count, float& t_tri_limit) -> bool {
                for (int i = tri_first; i < tri_first + tri_count; ++i) {
                    const int triangle = mesh.triangle_offset + i;
                    float t = 0.0f, u = 0.0f, v = 0.0f;
                    bool front = true;
                    if (!ray_hits_triangle(o, d, scene.triangles[triangle], t_tri_limit, t, u, v, front)) continue;
                    if (t <= options.t_min) continue;
                    const Material& m = scene.materials[scene.attributes[triangle].material];
                    if (!front && !m.double_sided && options.cull_single_sided_back_faces) continue;
                    if (m.alpha_mode == alpha_blend && options.skip_blended) continue;
                    if (m.alpha_mode == alpha_mask && material_coverage(scene, m, triangle, u, v) < m.alpha_cutoff) continue;
                    t_tri_limit = t;
                    hit.t = t;
                    hit.instance = instance_index;
                    hit.triangle = triangle;
                    hit.u = u;
                    hit.v = v;
                    hit.front = front;
                    if (options.any_hit) {
                        done = true;
                        return true;
                    }
                }
                return false;
            };
            bvh_traverse(scene.mesh_nodes + mesh.node_offset, o, inv_d, t_limit, triangle_leaf);
            if (done) return true;
        }
        return false;
    };
    bvh_traverse(scene.top_nodes, origin, safe_reciprocal(dir), t_max, instance_leaf);
    return hit.instance >= 0;
}

// What shading needs at a hit, in world space.
struct SurfacePoint {
    Vec3 position;
    Vec3 geometric_normal;  // unit, facing the ray's origin
    Vec3 normal;            // unit shading normal, facing the ray's origin
    const Material* material;
    Rgba base_color;
};

SWINUP_HD SurfacePoint surface_at(const SceneView& scene, const TraceHit& hit, Vec3 origin, Vec3 dir,
                                  RayCone cone, float lod_bias) {
    const Instance& instance = scene.instances[hit.instance];
    const Triangle& tri = scene.triangles[hit.triangle];
    const TriangleAttributes& a = scene.attributes[hit.triangle];
    SurfacePoint s;
    s.position = origin + dir * hit.t;
    s.material = &scene.materials[a.material];
    Vec3 ng = normalize(transform_normal_by_inverse(instance.world_to_object, cross(tri.edge1, tri.edge2)));
    const float w = 1.0f - hit.u - hit.v;
    Vec3 n = normalize(transform_normal_by_inverse(instance.world_to_object, a.n0 * w + a.n1 * hit.u + a.n2 * hit.v));
    if (dot(ng, dir) > 0.0f) ng = -ng;
    if (dot(n, ng) < 0.0f) n = -n;  // the shading normal on the side the ray sees
    s.geometric_normal = ng;
    s.normal = n;
    s.base_color = material_base_color(scene, *s.material, instance, hit.triangle, hit.u, hit.v, dir,
                                       hit.t, cone, lod_bias);
    return s;
}

// Radiance leaving a surface towards the ray's origin (sun with a shadow ray, sky, specular).
SWINUP_HD Vec3 shade_hit(const SceneView& scene, const SurfacePoint& s, Vec3 dir) {
    const Lighting& light = scene.lighting;
    float visibility = 0.0f;
    if (dot(s.geometric_normal, light.sun_direction) > 0.0f) {
        // Offset along the normal, scaled with the magnitude of the position (float precision).
        const float scale = max_f(max_f(fabsf(s.position.x), fabsf(s.position.y)), max_f(fabsf(s.position.z), 1.0f));
        const Vec3 origin = s.position + s.geometric_normal * (2e-5f * scale);
        TraceOptions shadow;
        shadow.any_hit = true;
        shadow.skip_blended = true;
        shadow.cull_single_sided_back_faces = false;
        TraceHit blocker;
        visibility = trace_ray(scene, origin, light.sun_direction, shadow, blocker) ? 0.0f : 1.0f;
    }
    ShadingInput in;
    in.albedo = Vec3{s.base_color.r, s.base_color.g, s.base_color.b};
    in.normal = s.normal;
    in.to_viewer = -dir;
    in.material = s.material;
    in.sun_visibility = visibility;
    return shade_surface(light, in);
}

constexpr int max_blend_layers = 4;

// One camera ray: the colour it sees and the first opaque surface (or the sky) behind any
// alpha-blended layers. Depth and motion come from that surface, as in games where transparent
// surfaces write neither.
// The masks (FSR 2's meaning; docs/sequence-format.md), from the blended layers' alphas a_i:
//   transparency = 1 - prod(1 - a_i) over every blended layer the ray passes;
//   reactive     = 1 - prod(1 - a_i) over the blended layers that are particles or carry an
//                  animated texture, and 1 when the opaque surface has an animated texture.
// Computed only when shading (the alphas come from the textures).
struct PrimarySample {
    Vec3 color;
    bool hit = false;             // an opaque surface (else the sky)
    Vec3 position;                // world position now (hit) or the ray direction (sky)
    Vec3 previous_position;       // where that point was in the previous frame
    int instance = -1;
    float reactive = 0.0f;
    float transparency = 0.0f;
};

SWINUP_HD bool material_is_reactive(const Material& m) {
    return (m.mask_flags & (material_particle | material_animated_texture)) != 0;
}

SWINUP_HD PrimarySample trace_primary(const SceneView& scene, Vec3 origin, Vec3 dir, RayCone cone,
                                      float lod_bias, bool shade) {
    PrimarySample out;
    Vec3 throughput{1.0f, 1.0f, 1.0f};
    float clear = 1.0f;           // prod(1 - a_i) over blended layers
    float clear_reactive = 1.0f;  // the same over the reactive ones
    TraceOptions options;
    for (int layer = 0; layer <= max_blend_layers; ++layer) {
        TraceHit hit;
        if (!trace_ray(scene, origin, dir, options, hit)) break;
        const Material& m = scene.materials[scene.attributes[hit.triangle].material];
        if (m.alpha_mode == alpha_blend && layer < max_blend_layers) {
            if (shade) {
                const SurfacePoint s = surface_at(scene, hit, origin, dir, cone, lod_bias);
                const float alpha = saturate(s.base_color.a);
                out.color += throughput * shade_hit(scene, s, dir) * alpha;
                throughput = throughput * (1.0f - alpha);
                clear *= 1.0f - alpha;
                if (material_is_reactive(m)) clear_reactive *= 1.0f - alpha;
            }
            // Continue just past this layer (relative step: float precision of t).
            options.t_min = hit.t * (1.0f + 1e-5f) + 1e-6f;
            continue;
        }
        const Instance& instance = scene.instances[hit.instance];
        out.hit = true;
        out.instance = instance.id;
        out.position = origin + dir * hit.t;
        out.previous_position = transform_point(instance.previous_object_to_world,
                                                transform_point(instance.world_to_object, out.position));
        if (shade) {
            const SurfacePoint s = surface_at(scene, hit, origin, dir, cone, lod_bias);
            out.color += throughput * shade_hit(scene, s, dir);
            out.transparency = 1.0f - clear;
            out.reactive = (m.mask_flags & material_animated_texture) != 0 ? 1.0f : 1.0f - clear_reactive;
        }
        return out;
    }
    out.position = dir;
    out.previous_position = dir;
    if (shade) {
        out.color += throughput * sky_radiance(scene.lighting, dir);
        out.transparency = 1.0f - clear;
        out.reactive = 1.0f - clear_reactive;
    }
    return out;
}

}  // namespace swinup::render
