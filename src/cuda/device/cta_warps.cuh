// Warps per CTA of a fused block kernel (attention_fused.cu, mlp_fused.cu, block_fused.cu) whose shared memory is
// one region shared by all its warps (the weights: Layout::kCtaBytes) plus one region per warp
// (its token rows: Layout::kWarpBytes): as many warps as the per-block shared memory holds, up to
// kMaxCtaWarps; and the kernel's persistent launch with that many.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuda/backend/cuda_check.cuh"
#include "cuda/device/device_limits.cuh"
#include "cuda/device/persistent_grid.cuh"

namespace swinup::cuda {

constexpr int kMaxCtaWarps = 16;

// The most warps such a CTA can have on any supported device (sm_90's 227 KiB per block, the
// largest): the kernel's launch bound, so that the layouts with fewer warps may use more than 128
// registers a thread instead of spilling.
constexpr int max_cta_warps_any_device(int cta_bytes, int warp_bytes) {
    return (227 * 1024 - cta_bytes) / warp_bytes < kMaxCtaWarps ? (227 * 1024 - cta_bytes) / warp_bytes : kMaxCtaWarps;
}

// The most warps such a CTA can have on the current device (0 when not even the shared region
// fits). Layout has kCtaBytes, kWarpBytes and kMaxWarpsAnyDevice.
template <class Layout>
int cta_warps_for_device() {
    const long long room = static_cast<long long>(device_limits().smem_optin) - Layout::kCtaBytes;
    return static_cast<int>(std::min<long long>(Layout::kMaxWarpsAnyDevice, room > 0 ? room / Layout::kWarpBytes : 0));
}

// Launches kernel(p) with cta_warps_for_device warps per CTA, persistent over work_items items
// (persistent_grid.cuh). Fewer than min_warps: std::invalid_argument "<who>: the weights do not
// fit in shared memory".
template <class Layout, class Args>
void launch_cta_warps(void (*kernel)(Args), const Args& p, int min_warps, long long work_items, const char* who,
                      cudaStream_t stream) {
    const int warps = cta_warps_for_device<Layout>();
    if (warps < min_warps) throw std::invalid_argument(std::string(who) + ": the weights do not fit in shared memory");
    const int smem = Layout::kCtaBytes + warps * Layout::kWarpBytes;
    const int blocks = persistent_blocks(kernel, warps, smem, work_items, who);
    kernel<<<blocks, warps * 32, smem, stream>>>(p);
    SWINUP_CUDA_CHECK_LAUNCH();
}

}  // namespace swinup::cuda
