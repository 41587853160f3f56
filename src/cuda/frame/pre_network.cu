#include "cuda/frame/pre_network.cuh"

#include <stdexcept>

#include "frame/exposure.h"
#include "frame/input_image.h"
#include "frame/mask_pixel.h"
#include "frame/pixel_ops.h"
#include "frame/stage_pixel.h"
#include "model/model_spec.h"
#include "numeric/e4m3.h"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/device/device_math.cuh"
#include "swinup/swinup.h"

namespace swinup::cuda {
namespace {

// ---- exposure (frame/exposure.h) ------------------------------------------------------------
// One thread per row: the row's f64 sum in x order, exactly as cpu/input_planes.cpp.
__global__ void exposure_rows_kernel(const FrameParams* p, double* row_sums) {
    const int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= p->height) return;
    double sum = 0.0;
    for (int x = 0; x < p->width; ++x) {
        sum = __dadd_rn(sum, static_cast<double>(auto_exposure_log2_luminance(p->color, x, y, p->pre_exposure, p->srgb != 0)));
    }
    row_sums[y] = sum;
}

// One thread: auto (rows in order), the texture, or the value.
__global__ void exposure_resolve_kernel(const FrameParams* p, const double* row_sums, float* exposure) {
    float e;
    if (p->auto_exposure) {
        double total = 0.0;
        for (int y = 0; y < p->height; ++y) total = __dadd_rn(total, row_sums[y]);
        e = auto_exposure_of_sum(total, p->width, p->height);
    } else if (p->exposure_texture_object) {
        e = exposure_of_texel(tex2D<float>(p->exposure_texture_object, 0.5f, 0.5f));
    } else if (p->exposure_texture) {
        e = read_exposure_texture(p->exposure_texture);
    } else {
        e = p->exposure_value;
    }
    *exposure = e;
}

// ---- input planes ---------------------------------------------------------------------------
// Counts one repaired pixel (integer sums: the same whatever order the threads add in).
__device__ __forceinline__ void count(unsigned int* counts, int which, bool repaired) {
    if (repaired) atomicAdd(counts + which, 1u);
}

__global__ void input_planes_kernel(const FrameParams* pp, FramePlanes planes) {
    const FrameParams& p = *pp;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= p.width) return;
    const size_t i = static_cast<size_t>(y) * p.width + x;
    const float e = *planes.exposure;
    float* color = planes.color;
    float* motion = planes.motion;
    bool replaced, any = false;
    for (int c = 0; c < 3; ++c) {
        color[i * 3 + c] = px::stage_color(px::decode_colour(read_input(p.color, x, y, c), p.srgb != 0), e,
                                           p.pre_exposure, p.ldr != 0, &replaced);
        any = any || replaced;
    }
    count(planes.counts, kCountColor, any);
    p.z[i] = px::stage_depth(read_input(p.depth, x, y, 0), p.depth_inverted != 0, &replaced);
    count(planes.counts, kCountDepth, replaced);
    if (p.has_masks) {  // mask_pixel.h: clamp to [0, 1], NaN/Inf -> 0, both counted
        const InputImage* images[kMasks] = {&p.reactive_mask, &p.transparency_mask};
        for (int m = 0; m < kMasks; ++m) {
            bool nonfinite = false, out_of_range = false;
            planes.masks[i * kMasks + m] = staged_mask_pixel(*images[m], x, y, &nonfinite, &out_of_range);
            count(planes.counts, kCountReactiveNonfinite + m, nonfinite);
            count(planes.counts, kCountReactiveOutOfRange + m, out_of_range);
        }
    }
    int mx = x, my = y;
    float divide_x = 1.0f, divide_y = 1.0f;
    if (p.mv_display_res) {  // the display pixel holding the sample's display position
        const float dpy = exact::mul(exact::add(static_cast<float>(y) + 0.5f, p.jitter_y), p.scale_y);
        const float dpx = exact::mul(exact::add(static_cast<float>(x) + 0.5f, p.jitter_x), p.scale_x);
        my = px::clampi(px::floor_to_int(dpy), 0, p.display_height - 1);
        mx = px::clampi(px::floor_to_int(dpx), 0, p.display_width - 1);
        divide_x = p.scale_x;
        divide_y = p.scale_y;
    }
    bool replaced_y;
    const float vx = px::stage_motion(read_input(p.motion, mx, my, 0), p.mv_scale_x, divide_x, &replaced);
    const float vy = px::stage_motion(read_input(p.motion, mx, my, 1), p.mv_scale_y, divide_y, &replaced_y);
    count(planes.counts, kCountMotion, replaced || replaced_y);
    motion[i * 2 + 0] = exact::add(vx, p.motion_offset_x);
    motion[i * 2 + 1] = exact::add(vy, p.motion_offset_y);
}

// ---- the counters' hand-over -----------------------------------------------------------------
// The frame's counters into its slot of mapped pinned host memory, each cleared as it is read
// (atomicExch), by one thread of the staging kernel: staging runs after input_planes, the one
// kernel that counts, in both precisions and on every path (device or host pointers, imported
// images; with or without a graph), and before the next frame's input_planes (a context's frames
// run one after another: CudaBackend::last_frame_done). So the counters need no memset node and no
// copy of their own, and are zero whenever input_planes starts. The system-scope fence orders the
// host stores before the kernel's completion, which the host waits for (the frame's event) before
// it reads the slot.
__device__ __forceinline__ void publish_counts(const FrameParams& p, const FramePlanes& planes) {
    if (p.count_slot < 0 || planes.published_counts == nullptr) return;
    unsigned int* slot = planes.published_counts + static_cast<size_t>(p.count_slot) * kFrameCounts;
    for (int k = 0; k < kFrameCounts; ++k) slot[k] = atomicExch(planes.counts + k, 0u);
    __threadfence_system();
}

// ---- staging --------------------------------------------------------------------------------
// One thread per padded-grid pixel; padding pixels stage their clamped real pixel again (the same
// function of the same data, so the same slots as the CPU's copy). Its first thread also publishes
// the frame's input statistics (publish_counts).
__global__ void staging_kernel(const FrameParams* pp, FramePlanes planes) {
    const FrameParams& p = *pp;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x == 0 && y == 0) publish_counts(p, planes);
    if (x >= p.padded_width) return;
    StageCurrent cur;
    static_cast<FrameGeometry&>(cur) = p;
    cur.color = planes.color;
    cur.z = p.z;
    cur.motion = planes.motion;
    StagePrevious prev;
    prev.valid = p.history_valid != 0;
    prev.history = p.history_in;
    prev.z = p.z_prev;
    prev.recurrent = p.recurrent_in;
    prev.width = p.prev_width;
    prev.height = p.prev_height;
    const int sx = x < p.width ? x : p.width - 1;
    const int sy = y < p.height ? y : p.height - 1;
    float mv[2], slots[kSlots], tc[3];
    stage_dilated_motion(cur, sx, sy, mv);
    stage_slots<SlotRounding::kByEncoder>(cur, prev, sx, sy, mv, slots, tc);
    // The hardware encoder, two slots at a time (the same function as f32_to_e4m3: test_cuda_kernels);
    // it also does the slots' rounding, which stage_slots left to it.
    uint32_t words[4];
    for (int w = 0; w < 4; ++w)
        words[w] = static_cast<uint32_t>(e4m3x2(slots[w * 4], slots[w * 4 + 1])) |
                   (static_cast<uint32_t>(e4m3x2(slots[w * 4 + 2], slots[w * 4 + 3])) << 16);
    *reinterpret_cast<uint4*>(planes.staged + (static_cast<size_t>(y) * p.padded_width + x) * kSlots) =
        make_uint4(words[0], words[1], words[2], words[3]);
    if (p.mask_tokens != 0) {  // the network's mask rows (mask_pixel.h mask_network_value, as e4m3)
        const float* pair = planes.masks + (static_cast<size_t>(sy) * p.width + sx) * kMasks;
        uint8_t* row;
        if (p.mask_tokens == 1) {  // lite: level-1 token (x / 2, y / 2), quadrant (y & 1) * 2 + (x & 1)
            row = planes.mask_tokens + (static_cast<size_t>(y / 2) * (p.padded_width / 2) + x / 2) * kMaskTokenBytes +
                  ((y & 1) * 2 + (x & 1)) * kMasks;
        } else {  // full: the pixel's own row
            row = planes.mask_tokens + (static_cast<size_t>(y) * p.padded_width + x) * kMaskTokenBytes;
        }
        for (int k = 0; k < kMasks; ++k) row[k] = f32_to_e4m3(mask_network_value(pair[k]));
    }
    if (x == sx && y == sy) {
        const size_t i = static_cast<size_t>(y) * p.width + x;
        planes.dilated[i * 2 + 0] = mv[0];
        planes.dilated[i * 2 + 1] = mv[1];
        for (int c = 0; c < 3; ++c) planes.tc[i * 3 + c] = tc[c];
    }
}

}  // namespace

void launch_exposure(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                     cudaStream_t stream) {
    if (host.auto_exposure) {
        exposure_rows_kernel<<<(host.height + 63) / 64, 64, 0, stream>>>(params, planes.row_sums);
        SWINUP_CUDA_CHECK_LAUNCH();
    }
    exposure_resolve_kernel<<<1, 1, 0, stream>>>(params, planes.row_sums, planes.exposure);
    SWINUP_CUDA_CHECK_LAUNCH();
}

void launch_input_planes(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                         cudaStream_t stream) {
    input_planes_kernel<<<row_grid(host.width, host.height), kRowThreads, 0, stream>>>(params, planes);
    SWINUP_CUDA_CHECK_LAUNCH();
}

void launch_staging(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                    cudaStream_t stream) {
    staging_kernel<<<row_grid(host.padded_width, host.padded_height), kRowThreads, 0, stream>>>(params, planes);
    SWINUP_CUDA_CHECK_LAUNCH();
}

}  // namespace swinup::cuda
