// The output pass of a whole frame on the CPU (docs/model-spec.md, "Output pass"), per pixel by
// frame/output_pixel.h: writes the new history (f16) and the caller's output resource, and keeps
// the recurrent features for the next frame.
#pragma once

#include <cstdint>

#include "frame/output_pixel.h"
#include "swinup/swinup.h"

namespace swinup::cpu {

struct OutputTarget {
    const swinup_resource* resource = nullptr;  // the caller's output (host, validated)
    // The output is written in the input's units: out / exposure * pre_exposure (RGBA16F), then
    // clamped to [0, 1] for the UNORM formats.
    float exposure = 1.0f, pre_exposure = 1.0f;
    // swinup_dispatch_desc.sharpness (frame/sharpen_pixel.h): 0 writes each pixel as it is made;
    // otherwise the values go to `presharpen` (display w * h * 3) and a second pass sharpens them.
    float sharpness = 0.0f;
    float* presharpen = nullptr;
};

// Every real render pixel's PixelKernel (pixel_kernel() of its head outputs and dilated motion),
// current.width * current.height.
void pixel_kernels(const OutputCurrent& current, PixelKernel* kernels);

// Computes every display pixel, writes `new_history` (display w * h * 4 f16) and the output.
// `kernel_scratch` (at least current.width * current.height entries) receives pixel_kernels() of
// current.head first, so that each render pixel's kernel is evaluated once rather than once for
// each display pixel that reads it; the output is the same bits as output_pixel()'s.
void output_frame(const OutputCurrent& current, const OutputPrevious& previous, PixelKernel* kernel_scratch,
                  uint16_t* new_history, const OutputTarget& target);

// The recurrent features (frame/recurrent_features.h) of every real render pixel (width * height * 4).
void keep_recurrent_features(const float* head, int head_stride, int width, int height,
                             uint16_t* recurrent);

}  // namespace swinup::cpu
