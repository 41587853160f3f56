// Which output-pass kernels the CUDA backend runs (plain C++: the GPU tests and `swinup bench`
// choose them through cuda_tools.h without CUDA headers). Each choice is meant to give the same
// bytes as the per-display-pixel kernels it replaces; tests/cuda/test_cuda_output.cpp checks that
// byte for byte (docs/cuda-kernels.md, "Output pass").
//
// Both are candidates, off by default: they have not run on a GPU yet, and a kernel becomes the
// default only once a GPU run has passed its byte-identity tests and timed it faster
// (scripts/device_cuda_speed_check.sh; `swinup bench --with output` turns them on).
#pragma once

namespace swinup::cuda {

struct OutputKernels {
    // Exact mode: a pre-pass fills each render pixel's kernel and history weight once a frame
    // (frame/output_pixel.h PixelKernel, as the CPU's output pass does) and writes the recurrent
    // state; the display kernel runs output_pixel_with() on that table (KernelFromTable). Off: the
    // display kernel evaluates them per display pixel from the head (output_pixel()), and a pass
    // of its own writes the recurrent state.
    bool exact_table = false;
    // Fast mode: one thread per 2 or 3 horizontally adjacent display pixels, sharing their
    // history taps' loads and f16 conversions, and their nearest render pixel's reads where it is
    // the same. Off: one thread per display pixel.
    bool fast_tuples = false;
};

}  // namespace swinup::cuda
