// The per-pixel passes before the network on the GPU, each a thin kernel over the shared
// host/device functions of src/frame (input_image.h, exposure.h, pixel_ops.h, stage_pixel.h), so
// that the CPU and CUDA backends run one definition:
//   exposure:     the exposure staging uses (auto: the CPU's row-then-total f64 log-luminance sum,
//                 in the same order, so the value is bit-identical);
//   input_planes: colour / depth / motion sanitised into f32 planes, the masks staged
//                 (mask_pixel.h), the repaired pixels counted (FrameCount) into FramePlanes::counts,
//                 which must be zero when it starts;
//   staging:      dilated motion and the 16 e4m3 slots of every padded-grid pixel, t(colour), and
//                 the mask rows the network's mask_embed reads; one thread publishes the counters
//                 into FrameParams::count_slot of FramePlanes::published_counts and clears them.
#pragma once

#include <cuda_runtime.h>

#include "cuda/backend/frame_params.cuh"
#include "cuda/frame/frame_planes.cuh"

namespace swinup::cuda {

// The launches read sizes from the host copy `host` (grid shapes) and everything else from the
// device copy `params`.
void launch_exposure(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                     cudaStream_t stream);
void launch_input_planes(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                         cudaStream_t stream);
void launch_staging(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                    cudaStream_t stream);
}  // namespace swinup::cuda
