// swinup_generate_reactive_mask on the CUDA backend: one thread per render pixel runs
// src/frame/reactive_mask_pixel.h (the CPU's code, host/device) on the two colour images and
// writes the mask in its format, so the bytes are the CPU backend's.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "frame/input_image.h"
#include "frame/reactive_mask_pixel.h"
#include "swinup/swinup.h"

namespace swinup::cuda {

// Enqueues the mask of `width` x `height` pixels into `output` (device memory, rows of `pitch`
// bytes, `format` R8_UNORM, R16F or R32F) on `stream`; the images are device memory.
void launch_reactive_mask(const InputImage& opaque, const InputImage& final_color, const ReactiveMaskParams& params,
                          int width, int height, swinup_format format, uint8_t* output, size_t pitch,
                          cudaStream_t stream);

}  // namespace swinup::cuda
