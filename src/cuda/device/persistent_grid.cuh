// The grid of a persistent kernel: as many CTAs as fit on the device at once (occupancy x SMs),
// never more than there is work for. Each CTA's warps then stride over the work items (windows,
// row tiles; persistent_tile_loop.cuh), so the launch shape is set by the device, not by the
// image size. The fused kernels (attention_fused, mlp_fused, lite_tail_fused, head_fused) all
// launch this way; the opt-in to more than 48 KiB of shared memory is raised first, as the
// occupancy query needs it.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "cuda/backend/cuda_check.cuh"
#include "cuda/device/device_limits.cuh"
#include "cuda/device/dynamic_smem.cuh"

namespace swinup::cuda {

// work_items: the items the kernel's warps take in turn; warps: warps per CTA (one item each at a
// time). `who` names the kernel in the error when not even one CTA fits on an SM.
template <class Kernel>
int persistent_blocks(Kernel* kernel, int warps, size_t smem, long long work_items, const char* who) {
    raise_dynamic_smem(kernel, smem);
    int per_sm = 0;
    SWINUP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, warps * 32, smem));
    if (per_sm <= 0) throw std::invalid_argument(std::string(who) + ": no CTA fits on an SM");
    const long long needed = (work_items + warps - 1) / warps;
    return static_cast<int>(std::max(1LL, std::min<long long>(static_cast<long long>(device_limits().sms) * per_sm, needed)));
}

}  // namespace swinup::cuda
