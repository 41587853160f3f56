// The CUDA renderer: the same per-pixel functions as the CPU (frame_pixels.h), one thread per
// pixel. Static scene arrays are uploaded once; instances and the top-level BVH every frame.
// Built with --fmad=false (src/CMakeLists.txt) so that the arithmetic matches the CPU build's
// -ffp-contract=off; what still differs is the last bits of powf/log2f/expf, which can move a
// texture level or a highlight by an ulp (tests/render/test_render_cuda.cpp states the bound).
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "render/frame_renderer.h"
#include "render/render_sequence.h"

namespace swinup::render {

namespace {

void cuda_check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        throw RenderError(std::string("CUDA renderer: ") + what + ": " + cudaGetErrorString(status));
    }
}

// A device buffer that grows as needed and is freed with its owner.
template <class T>
struct DeviceArray {
    T* ptr = nullptr;
    size_t capacity = 0;

    DeviceArray() = default;
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    ~DeviceArray() { if (ptr) cudaFree(ptr); }

    void reserve(size_t count) {
        if (count <= capacity) return;
        if (ptr) cudaFree(ptr);
        ptr = nullptr;
        cuda_check(cudaMalloc(&ptr, count * sizeof(T)), "cudaMalloc");
        capacity = count;
    }
    void upload(const std::vector<T>& host) {
        reserve(host.empty() ? 1 : host.size());
        if (!host.empty()) cuda_check(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
    }
    void download(std::vector<T>& host, size_t count) const {
        host.resize(count);
        if (count) cuda_check(cudaMemcpy(host.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost), "download");
    }
};

__global__ void render_kernel(SceneView scene, FrameParams p, float* color, float* depth, float* mv, float* masks) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= p.render_width || y >= p.render_height) return;
    const size_t i = static_cast<size_t>(y) * p.render_width + x;
    render_pixel(scene, p, x, y, color + 4 * i, depth + i, mv + 2 * i, masks + 2 * i);
}

__global__ void display_motion_kernel(SceneView scene, FrameParams p, float* mv) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= p.display_width || y >= p.display_height) return;
    display_motion_pixel(scene, p, x, y, mv + 2 * (static_cast<size_t>(y) * p.display_width + x));
}

__global__ void ground_truth_kernel(SceneView scene, FrameParams p, float* color) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= p.display_width || y >= p.display_height) return;
    ground_truth_pixel(scene, p, x, y, color + 4 * (static_cast<size_t>(y) * p.display_width + x));
}

dim3 grid_for(int w, int h, dim3 block) {
    return dim3((static_cast<unsigned>(w) + block.x - 1) / block.x, (static_cast<unsigned>(h) + block.y - 1) / block.y);
}

Image download_image(const DeviceArray<float>& buffer, int w, int h, int channels) {
    Image img(w, h, channels);
    cuda_check(cudaMemcpy(img.data.data(), buffer.ptr, img.data.size() * sizeof(float), cudaMemcpyDeviceToHost), "download");
    return img;
}

}  // namespace

struct CudaFrameRenderer::Impl {
    DeviceArray<BvhNode> mesh_nodes, top_nodes;
    DeviceArray<Triangle> triangles;
    DeviceArray<TriangleAttributes> attributes;
    DeviceArray<Mesh> meshes;
    DeviceArray<Instance> instances;
    DeviceArray<int> top_instances;
    DeviceArray<Material> materials;
    DeviceArray<TextureInfo> textures;
    DeviceArray<Rgba> texels;
    DeviceArray<float> color, depth, mv, masks, mv_display, gt;
};

bool cuda_renderer_available() {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

CudaFrameRenderer::CudaFrameRenderer(const Scene& scene) : impl_(std::make_unique<Impl>()) {
    if (!cuda_renderer_available()) throw RenderError("CUDA renderer: no CUDA device");
    // Deep traversals in two nested BVH loops keep ~1 KiB of stack per thread.
    cuda_check(cudaDeviceSetLimit(cudaLimitStackSize, 4096), "cudaDeviceSetLimit");
    impl_->mesh_nodes.upload(scene.mesh_nodes);
    impl_->triangles.upload(scene.triangles);
    impl_->attributes.upload(scene.attributes);
    impl_->meshes.upload(scene.meshes);
    impl_->materials.upload(scene.materials);
    impl_->textures.upload(scene.textures);
    impl_->texels.upload(scene.texels);
}

CudaFrameRenderer::~CudaFrameRenderer() = default;

Frame CudaFrameRenderer::render(const Scene& scene, const FrameRequest& request) {
    Impl& d = *impl_;
    d.instances.upload(scene.instances);
    d.top_nodes.upload(scene.top_nodes);
    d.top_instances.upload(scene.top_instances);
    SceneView view = scene.view();
    view.mesh_nodes = d.mesh_nodes.ptr;
    view.triangles = d.triangles.ptr;
    view.attributes = d.attributes.ptr;
    view.meshes = d.meshes.ptr;
    view.instances = d.instances.ptr;
    view.top_nodes = d.top_nodes.ptr;
    view.top_instances = d.top_instances.ptr;
    view.materials = d.materials.ptr;
    view.textures = d.textures.ptr;
    view.texels = d.texels.ptr;

    const FrameParams& p = request.params;
    const size_t render_pixels = static_cast<size_t>(p.render_width) * p.render_height;
    const size_t display_pixels = static_cast<size_t>(p.display_width) * p.display_height;
    const dim3 block(16, 8);
    d.color.reserve(4 * render_pixels);
    d.depth.reserve(render_pixels);
    d.mv.reserve(2 * render_pixels);
    d.masks.reserve(2 * render_pixels);
    render_kernel<<<grid_for(p.render_width, p.render_height, block), block>>>(view, p, d.color.ptr, d.depth.ptr, d.mv.ptr,
                                                                               d.masks.ptr);
    cuda_check(cudaGetLastError(), "render kernel launch");
    if (request.mv_display) {
        d.mv_display.reserve(2 * display_pixels);
        display_motion_kernel<<<grid_for(p.display_width, p.display_height, block), block>>>(view, p, d.mv_display.ptr);
        cuda_check(cudaGetLastError(), "display motion kernel launch");
    }
    if (request.ground_truth) {
        d.gt.reserve(4 * display_pixels);
        ground_truth_kernel<<<grid_for(p.display_width, p.display_height, block), block>>>(view, p, d.gt.ptr);
        cuda_check(cudaGetLastError(), "ground truth kernel launch");
    }
    cuda_check(cudaDeviceSynchronize(), "render kernels");
    Frame frame;
    frame.color = download_image(d.color, p.render_width, p.render_height, 4);
    frame.depth = download_image(d.depth, p.render_width, p.render_height, 1);
    frame.mv = download_image(d.mv, p.render_width, p.render_height, 2);
    frame.masks = download_image(d.masks, p.render_width, p.render_height, 2);
    if (request.mv_display) frame.mv_display = download_image(d.mv_display, p.display_width, p.display_height, 2);
    if (request.ground_truth) frame.gt = download_image(d.gt, p.display_width, p.display_height, 4);
    return frame;
}

}  // namespace swinup::render
