// The limits of the current CUDA device that the host-side kernel shapes depend on (SM count,
// opt-in shared memory per block), queried once, on first use, for the device current then.
#pragma once

#include <cuda_runtime.h>

#include "cuda/cuda_check.cuh"

namespace swinup::cuda {

struct DeviceLimits {
    int sms = 0;         // streaming multiprocessors
    int smem_optin = 0;  // bytes of shared memory a block may opt in to
};

inline const DeviceLimits& device_limits() {
    static const DeviceLimits limits = [] {
        DeviceLimits d;
        int device = 0;
        SWINUP_CUDA_CHECK(cudaGetDevice(&device));
        SWINUP_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, device));
        SWINUP_CUDA_CHECK(cudaDeviceGetAttribute(&d.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        return d;
    }();
    return limits;
}

}  // namespace swinup::cuda
