// The limits of the current CUDA device that the host-side kernel shapes depend on (SM count,
// opt-in shared memory per block), queried once per device, on first use there. Per device, not
// per process: contexts on two GPUs of different kinds (swinup_context_desc.device_index) each
// get their own device's shapes. Guarded, as contexts may launch from several host threads.
#pragma once

#include <cuda_runtime.h>

#include <map>
#include <mutex>

#include "cuda/backend/cuda_check.cuh"

namespace swinup::cuda {

struct DeviceLimits {
    int sms = 0;         // streaming multiprocessors
    int smem_optin = 0;  // bytes of shared memory a block may opt in to
};

inline DeviceLimits device_limits() {
    int device = 0;
    SWINUP_CUDA_CHECK(cudaGetDevice(&device));
    static std::mutex mutex;
    static std::map<int, DeviceLimits> known;
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = known.find(device);
    if (found != known.end()) return found->second;
    DeviceLimits d;
    SWINUP_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, device));
    SWINUP_CUDA_CHECK(cudaDeviceGetAttribute(&d.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    known.emplace(device, d);
    return d;
}

}  // namespace swinup::cuda
