// The CUDA backend's device buffers around the network: the temporal state (double-buffered like
// the CPU backend's: slot `current` is what the next frame reads), the frame's scratch planes,
// and the buffers host-pointer resources are copied through. Sized once, here, for a context's
// largest sizes; cuda_memory_estimate counts the same constructor under a DeviceTally.
#pragma once

#include <algorithm>

#include "cuda/backend/device_buffer.cuh"
#include "cuda/frame/frame_planes.cuh"
#include "model/model_spec.h"
#include "swinup/swinup.h"

namespace swinup::cuda {

struct FrameBuffers {
    DeviceBuffer history[2], depth[2], recurrent[2];
    DeviceBuffer color, motion, dilated, tc, staged, head, row_sums, exposure, params;
    DeviceBuffer out_color, out_kernel, out_motion, out_axes;  // fast mode only
    DeviceBuffer out_pixel_kernel;                             // exact mode only
    DeviceBuffer host_color, host_depth, host_motion, host_output;
    DeviceBuffer masks, mask_tokens, counts;  // FramePlanes::masks, mask_tokens, counts
    DeviceBuffer host_masks[2];               // host masks' packed copies (R32F at most)

    FrameBuffers() = default;
    // `params_bytes`: sizeof(FrameParams), the per-frame parameter block. `host_staging`: allocate
    // the host resources' copies now (a context on the application's Vulkan images makes them only
    // when a host-pointer frame first needs them: allocate_host_staging).
    FrameBuffers(const swinup_context_desc& desc, size_t params_bytes, bool host_staging = true) {
        const int max_w = static_cast<int>(desc.max_render_width), max_h = static_cast<int>(desc.max_render_height);
        const size_t render = size_t(max_w) * max_h, padded = size_t(pad_to_grid(max_w)) * pad_to_grid(max_h);
        const size_t display = size_t(desc.display_width) * desc.display_height;
        for (int i = 0; i < 2; ++i) {
            history[i] = DeviceBuffer(display * 4 * 2);
            depth[i] = DeviceBuffer(render * 4);
            recurrent[i] = DeviceBuffer(render * 4 * 2);
        }
        color = DeviceBuffer(render * 3 * 4);
        motion = DeviceBuffer(render * 2 * 4);
        dilated = DeviceBuffer(render * 2 * 4);
        tc = DeviceBuffer(render * 3 * 4);
        staged = DeviceBuffer(padded * kSlots);
        head = DeviceBuffer(padded * kHeadOutputs * 4);
        row_sums = DeviceBuffer(size_t(max_h) * 8);
        exposure = DeviceBuffer(4);
        params = DeviceBuffer(params_bytes);
        if (host_staging) allocate_host_staging(desc);
        masks = DeviceBuffer(render * 2 * 4);
        mask_tokens = DeviceBuffer(padded * kMaskTokenBytes);  // full's count; lite uses a quarter
        counts = DeviceBuffer(kFrameCounts * 4);
        if (desc.precision == SWINUP_PRECISION_FAST) {  // the fast output pass's per-render-pixel planes
            out_color = DeviceBuffer(render * sizeof(float4));
            out_kernel = DeviceBuffer(render * sizeof(float4));
            out_motion = DeviceBuffer(render * sizeof(float2));
            out_axes = DeviceBuffer((size_t(desc.display_width) + desc.display_height) * sizeof(OutputAxis));
        } else {  // the exact output pass's table of render pixel kernels (OutputKernels::exact_table)
            out_pixel_kernel = DeviceBuffer(render * sizeof(PixelKernel));
        }
    }

    bool has_host_staging() const { return host_output.bytes() != 0; }
    // Host resources are copied through these (the largest formats: RGBA32F, RG32F at display res):
    // about 190 MB at 1920x1080 -> 3840x2160.
    void allocate_host_staging(const swinup_context_desc& desc) {
        const size_t render = size_t(desc.max_render_width) * desc.max_render_height;
        const size_t display = size_t(desc.display_width) * desc.display_height;
        for (DeviceBuffer& b : host_masks) b = DeviceBuffer(render * 4);
        // The largest formats: RGBA32F, D32F_S8, RG32F at display res; the packed formats are read
        // there by frame/input_image.h as on the CPU.
        host_color = DeviceBuffer(render * 16);
        host_depth = DeviceBuffer(render * 8);
        host_motion = DeviceBuffer(std::max(render, display) * 8);
        host_output = DeviceBuffer(display * 8);  // last: has_host_staging() says all of them are made
    }
};

}  // namespace swinup::cuda
