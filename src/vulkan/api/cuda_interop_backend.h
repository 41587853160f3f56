// The backend behind a context made by swinup_vulkan_context_create with SWINUP_BACKEND_CUDA
// (include/swinup/swinup_vulkan.h, "The CUDA backend"): the CUDA backend running the frame on the
// application's VkImages imported into CUDA (cuda/interop/), ordered by its timeline semaphores.
// Built with CUDA and Vulkan; a build without CUDA has a maker that refuses (no_cuda_interop.cpp).
#pragma once

#include <memory>
#include <string>

#include "api/backend.h"
#include "swinup/swinup_vulkan.h"

namespace swinup::vulkan_api {

class CudaInteropBackend : public Backend {
public:
    // Runs one frame (desc validated by validate_vulkan_dispatch_desc and validate_cuda_interop_desc;
    // `exposure_image` says whether desc.exposure is read). On failure nothing was enqueued that
    // writes the output or the temporal state, and *error names the resource.
    virtual swinup_status run(const swinup_vulkan_dispatch_desc& desc, bool exposure_image, uint64_t frame_index,
                              std::string* error) = 0;
    // Releases the imports of one image / buffer / semaphore, or all with VK_NULL_HANDLE, after the
    // context's CUDA work has finished.
    virtual swinup_status release_image(VkImage image, std::string* error) = 0;
    virtual swinup_status release_buffer(VkBuffer buffer, std::string* error) = 0;
    virtual swinup_status release_semaphore(VkSemaphore semaphore, std::string* error) = 0;
    virtual swinup_vulkan_device_desc device() const = 0;
};

// `device` is the application's device (validated, non-null). Returns nullptr with *status and
// *message set on failure.
std::unique_ptr<CudaInteropBackend> make_cuda_interop_backend(const swinup_context_desc& desc,
                                                              std::shared_ptr<const Weights> weights,
                                                              const swinup_vulkan_device_desc& device,
                                                              swinup_status* status, std::string* message);

}  // namespace swinup::vulkan_api
