// The per-pixel passes after the network on the GPU, thin kernels over the shared host/device
// functions of src/frame (output_pixel.h, pixel_ops.h), as cpu/output_pass.cpp runs them:
//   output:    the output pass per display pixel (history f16 and the output format); fast mode
//              first gathers, once per render pixel, what the display pixels read of it;
//   recurrent: tanh(head 0..3) kept for the next frame.
#pragma once

#include <cuda_runtime.h>

#include "cuda/backend/frame_params.cuh"
#include "cuda/frame/frame_planes.cuh"
#include "swinup/swinup.h"

namespace swinup::cuda {

// Fast mode's per-render-pixel pre-pass (each render pixel's kernel, alpha, colour in t and
// motion, once instead of per display pixel); nothing in exact mode. Before launch_output.
void launch_output_prepass(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                           swinup_precision precision, cudaStream_t stream);
void launch_output(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                   swinup_precision precision, cudaStream_t stream);
void launch_recurrent(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                      cudaStream_t stream);

}  // namespace swinup::cuda
