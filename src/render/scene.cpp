#include "render/scene.h"

#include <stdexcept>

namespace swinup::render {

int Scene::add_mesh(const std::vector<SourceTriangle>& source) {
    std::vector<Aabb> bounds(source.size());
    Aabb all;
    for (size_t i = 0; i < source.size(); ++i) {
        for (const Vec3& p : source[i].p) bounds[i].grow(p);
        all.grow(bounds[i]);
    }
    const Bvh bvh = bvh_build(bounds);
    Mesh mesh;
    mesh.node_offset = static_cast<int>(mesh_nodes.size());
    mesh.triangle_offset = static_cast<int>(triangles.size());
    mesh.triangle_count = static_cast<int>(source.size());
    mesh_nodes.insert(mesh_nodes.end(), bvh.nodes.begin(), bvh.nodes.end());
    for (const int index : bvh.order) {
        const SourceTriangle& s = source[static_cast<size_t>(index)];
        const Vec3 e1 = s.p[1] - s.p[0], e2 = s.p[2] - s.p[0];
        triangles.push_back({s.p[0], e1, e2});
        TriangleAttributes a;
        const Vec3 face = normalize(cross(e1, e2));
        auto normal_or_face = [&](Vec3 n) { return length(n) > 0.0f ? normalize(n) : face; };
        a.n0 = normal_or_face(s.n[0]);
        a.n1 = normal_or_face(s.n[1]);
        a.n2 = normal_or_face(s.n[2]);
        a.uv0 = s.uv[0];
        a.uv1 = s.uv[1];
        a.uv2 = s.uv[2];
        a.material = s.material;
        attributes.push_back(a);
    }
    meshes.push_back(mesh);
    mesh_bounds.push_back(all);
    return static_cast<int>(meshes.size()) - 1;
}

int Scene::add_instance(int mesh, const Affine& object_to_world) {
    return add_animated_instance(mesh, [object_to_world](float) { return object_to_world; });
}

int Scene::add_animated_instance(int mesh, InstanceAnimation animation) {
    if (mesh < 0 || mesh >= static_cast<int>(meshes.size())) {
        throw std::out_of_range("Scene::add_instance: no mesh " + std::to_string(mesh));
    }
    Instance instance;
    instance.mesh = mesh;
    instance.id = static_cast<int>(instances.size());
    instances.push_back(instance);
    animations.push_back(std::move(animation));
    return instance.id;
}

int Scene::add_material(const Material& material) {
    materials.push_back(material);
    return static_cast<int>(materials.size()) - 1;
}

void Scene::set_time(float time_s, float previous_time_s) {
    current_time_s = time_s;
    std::vector<Aabb> bounds(instances.size());
    for (size_t i = 0; i < instances.size(); ++i) {
        Instance& instance = instances[i];
        instance.object_to_world = animations[i](time_s);
        instance.world_to_object = affine_inverse(instance.object_to_world);
        instance.previous_object_to_world = animations[i](previous_time_s);
        bounds[i] = aabb_transform(mesh_bounds[static_cast<size_t>(instance.mesh)], instance.object_to_world);
    }
    Bvh top = bvh_build(bounds, 2);
    top_nodes = std::move(top.nodes);
    top_instances = std::move(top.order);
}

Aabb Scene::world_bounds() const {
    Aabb all;
    for (const Instance& instance : instances) {
        all.grow(aabb_transform(mesh_bounds[static_cast<size_t>(instance.mesh)], instance.object_to_world));
    }
    return all;
}

SceneView Scene::view() const {
    SceneView v;
    v.mesh_nodes = mesh_nodes.data();
    v.triangles = triangles.data();
    v.attributes = attributes.data();
    v.meshes = meshes.data();
    v.instances = instances.data();
    v.top_nodes = top_nodes.data();
    v.top_instances = top_instances.data();
    v.instance_count = static_cast<int>(instances.size());
    v.materials = materials.data();
    v.material_count = static_cast<int>(materials.size());
    v.textures = textures.data();
    v.texture_count = static_cast<int>(textures.size());
    v.texels = texels.data();
    v.lighting = lighting;
    v.time_s = current_time_s;
    return v;
}

}  // namespace swinup::render
