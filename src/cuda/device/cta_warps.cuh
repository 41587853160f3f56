// Warps per CTA of a fused block kernel (attention_fused.cu, mlp_fused.cu) whose shared memory is
// one region shared by all its warps (the weights: Layout::kCtaBytes) plus one region per warp
// (its token rows: Layout::kWarpBytes): as many warps as the per-block shared memory holds, up to
// kMaxCtaWarps.
#pragma once

#include <algorithm>

#include "cuda/device/device_limits.cuh"

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

}  // namespace swinup::cuda
