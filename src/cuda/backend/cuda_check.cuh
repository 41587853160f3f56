// Error handling for CUDA runtime calls inside the CUDA backend. A failed call throws CudaError;
// the backend's entry points catch it and return SWINUP_STATUS_DEVICE_ERROR with its message, so
// no exception ever crosses the C API.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace swinup::cuda {

struct CudaError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline void check_cuda(cudaError_t status, const char* what, const char* file, int line) {
    if (status != cudaSuccess) {
        throw CudaError(std::string("CUDA error in ") + what + " (" + file + ":" + std::to_string(line) +
                        "): " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
    }
}

}  // namespace swinup::cuda

#define SWINUP_CUDA_CHECK(call) ::swinup::cuda::check_cuda((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch-configuration errors surface here, not at the next sync.
#define SWINUP_CUDA_CHECK_LAUNCH() ::swinup::cuda::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
