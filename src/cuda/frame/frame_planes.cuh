// The device scratch of one frame that the passes before and after the network share, and the
// row-per-block launch shape they use.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/backend/frame_params.cuh"
#include "frame/output_pixel.h"
#include "frame/frame_counts.h"
#include "swinup/swinup.h"

namespace swinup::cuda {

// Fast mode's output pass: what a display pixel's taps depend on along one axis alone (its column
// x, or its row y), computed once a frame by the pre-pass with the exact mode's functions
// (output_pixel.h): the continuous position, the nearest render pixel, the three tap pixels around
// it (clamped) and their samples' offsets from the position. Read from a table instead of
// recomputed per display pixel: that work was about 60 of the display kernel's 855 PTX
// instructions, two IEEE divisions among them. The values are the same bits either way.
struct alignas(16) OutputAxis {
    float c;     // output_position(o, s): r + 0.5 in render pixels
    int n;       // nearest_render_pixel(c, size)
    int q[3];    // n - 1, n, n + 1, clamped to the image
    float d[3];  // render_sample_position(q[k], jitter) - c
};
static_assert(sizeof(OutputAxis) == 32, "two 16-byte loads");

struct FramePlanes {      // device scratch of one frame, sized for the maximum render size
    float* color = nullptr;    // w * h * 3
    float* motion = nullptr;   // w * h * 2, undilated
    float* dilated = nullptr;  // w * h * 2
    float* tc = nullptr;       // w * h * 3
    uint8_t* staged = nullptr; // padded w * h * 16 e4m3
    float* head = nullptr;     // padded w * h * 16
    double* row_sums = nullptr;  // h (auto exposure)
    float* exposure = nullptr;   // 1: the exposure this frame used
    // Fast-mode output pass only (null in exact mode): per render pixel, w * h each.
    float4* out_color = nullptr;   // t(colour) rgb, and the blend alpha sigmoid(head 7) in .w
    float4* out_kernel = nullptr;  // sqrt(log2e / 2) / sigma_major, .. / sigma_minor, sin, cos
    float2* out_motion = nullptr;  // dilated motion * s: the history offset in display pixels
    OutputAxis* out_axes = nullptr;  // display w + h: the columns' axes, then the rows'
    // Exact-mode output pass only (null in fast mode): w * h, each render pixel's kernel and history
    // weight (output_pixel.h pixel_kernel), the table the CPU's output pass reads (KernelFromTable).
    PixelKernel* out_pixel_kernel = nullptr;
    float* linear_out = nullptr;   // tests: display w * h * 3, the output before encoding; or null
    // The masks: w * h * 2 staged (reactive, transparency) (read when FrameParams::has_masks), and
    // the network's mask rows, kMaskTokenBytes each (FrameParams::mask_tokens: lite, one per
    // level-1 token, its 2x2 pixels' pairs in quadrant order, 8 e4m3; full, one per padded pixel,
    // its pair), the bytes after those always 0.
    float* masks = nullptr;
    uint8_t* mask_tokens = nullptr;
    // kFrameCounts u32: the frame's repaired input pixels (FrameCount), counted by input_planes'
    // atomics. Zero at the start of every frame: cleared once at context creation, then by the
    // staging kernel of each frame as it publishes them (FrameParams::count_slot).
    unsigned int* counts = nullptr;
    // Where staging publishes them: slots of kFrameCounts u32 in mapped pinned host memory (the
    // device's address of it), one slot per frame in flight; the host reads a slot once the frame's
    // event has completed. Null (tests of single kernels): nothing published.
    unsigned int* published_counts = nullptr;
};

// The mask rows' stride: the GEMM reads rows of a multiple of 16 bytes.
constexpr int kMaskTokenBytes = 16;


// The per-pixel passes' launch shape: a block of kRowThreads pixels of one row.
constexpr int kRowThreads = 128;
inline dim3 row_grid(int width, int height) { return dim3((width + kRowThreads - 1) / kRowThreads, height); }

}  // namespace swinup::cuda
