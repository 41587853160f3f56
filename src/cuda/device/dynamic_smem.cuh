// A kernel's opt-in to more than 48 KiB of dynamic shared memory
// (cudaFuncAttributeMaxDynamicSharedMemorySize), raised before the launch that needs it. The
// attribute belongs to the kernel in the current device's context: a process with contexts on
// two GPUs (swinup_context_desc.device_index) must raise it on each. Until 2026-12-03
// (aa233e1) every launcher kept one static flag per kernel, so only the first device was raised and
// a second device's first fused launch would fail (no opt-in there). Recorded per (kernel,
// device), under a lock: contexts may launch from several host threads at once.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

#include "cuda/backend/cuda_check.cuh"

namespace swinup::cuda {

inline void raise_dynamic_smem(const void* kernel, size_t bytes) {
    constexpr size_t kDefaultLimit = 48 * 1024;  // what a launch may use without opting in
    if (bytes <= kDefaultLimit) return;
    int device = 0;
    SWINUP_CUDA_CHECK(cudaGetDevice(&device));
    static std::mutex mutex;
    static std::map<std::pair<const void*, int>, size_t> raised;  // (kernel, device) -> bytes
    const std::lock_guard<std::mutex> lock(mutex);
    size_t& limit = raised[{kernel, device}];
    if (bytes <= limit) return;
    SWINUP_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
    limit = bytes;  // only once the call succeeded
}

template <class Kernel>
void raise_dynamic_smem(Kernel* kernel, size_t bytes) {
    raise_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes);
}

}  // namespace swinup::cuda
