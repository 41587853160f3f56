// Builds without the CUDA renderer: the GPU entry points say so.
#include "render/frame_renderer.h"
#include "render/render_sequence.h"

#ifndef SWINUP_RENDER_HAVE_CUDA

namespace swinup::render {

struct CudaFrameRenderer::Impl {};

CudaFrameRenderer::CudaFrameRenderer(const Scene&) {
    throw RenderError("this build has no CUDA renderer (configure with -DSWINUP_CUDA=ON)");
}
CudaFrameRenderer::~CudaFrameRenderer() = default;
Frame CudaFrameRenderer::render(const Scene&, const FrameRequest&) {
    throw RenderError("this build has no CUDA renderer");
}
bool cuda_renderer_available() { return false; }

}  // namespace swinup::render

#endif
