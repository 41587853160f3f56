// The per-pixel passes after the network on the GPU, thin kernels over the shared host/device
// functions of src/frame (output_pixel.h, pixel_ops.h), as cpu/output_pass.cpp runs them:
//   output:    the output pass per display pixel (history f16 and the output format); a pre-pass
//              first gathers, once per render pixel, what the display pixels read of it, and
//              writes the recurrent state;
//   recurrent: tanh(head 0..3) kept for the next frame (exact mode without its pre-pass).
#pragma once

#include <cuda_runtime.h>

#include "cuda/backend/frame_params.cuh"
#include "cuda/frame/frame_planes.cuh"
#include "cuda/frame/output_kernels.h"
#include "swinup/swinup.h"

namespace swinup::cuda {

// The per-render-pixel pre-pass, before launch_output: fast mode's (each render pixel's kernel,
// alpha, colour in t and motion, and the display's axes) and, with kernels.exact_table, exact
// mode's (each render pixel's PixelKernel); nothing in exact mode without it. `kernels` picks the
// output pass's kernels (output_kernels.h; the same bytes either way), the same in both calls.
void launch_output_prepass(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                           swinup_precision precision, const OutputKernels& kernels, cudaStream_t stream);
void launch_output(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                   swinup_precision precision, const OutputKernels& kernels, cudaStream_t stream);
// Whether launch_output_prepass writes the recurrent state (FrameParams::recurrent_out, where set);
// where it does not, launch_recurrent does.
bool output_prepass_writes_recurrent(swinup_precision precision, const OutputKernels& kernels);
void launch_recurrent(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                      cudaStream_t stream);

}  // namespace swinup::cuda
