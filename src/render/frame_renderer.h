// Rendering one frame's images (render-res colour, depth, motion; optional display-res motion;
// optional display-res ground truth) on the CPU (oneTBB over rows) or on the GPU.
#pragma once

#include <memory>

#include "render/frame_pixels.h"
#include "render/scene.h"
#include "sequence/sequence.h"

namespace swinup::render {

struct FrameRequest {
    FrameParams params;
    bool mv_display = false;
    bool ground_truth = true;
};

Frame render_frame_cpu(const SceneView& scene, const FrameRequest& request);

// The same tracer in CUDA kernels (render_cuda.cu). The scene's static arrays are uploaded once;
// instances and the top-level BVH each frame.
class CudaFrameRenderer {
public:
    explicit CudaFrameRenderer(const Scene& scene);  // throws RenderError without a usable GPU
    ~CudaFrameRenderer();
    CudaFrameRenderer(const CudaFrameRenderer&) = delete;
    CudaFrameRenderer& operator=(const CudaFrameRenderer&) = delete;

    // Uploads the scene's per-frame state (after Scene::set_time) and renders.
    Frame render(const Scene& scene, const FrameRequest& request);

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

// True when this build has the CUDA renderer and a GPU is present.
bool cuda_renderer_available();

}  // namespace swinup::render
