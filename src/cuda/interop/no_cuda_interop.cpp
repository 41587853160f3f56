// A build with Vulkan but without CUDA: SWINUP_BACKEND_CUDA on Vulkan images is refused at creation.
#include "vulkan/api/cuda_interop_backend.h"

namespace swinup::vulkan_api {

std::unique_ptr<CudaInteropBackend> make_cuda_interop_backend(const swinup_context_desc&,
                                                              std::shared_ptr<const Weights>,
                                                              const swinup_vulkan_device_desc&,
                                                              swinup_status* status, std::string* message) {
    *status = SWINUP_STATUS_UNSUPPORTED;
    *message = "swinup_vulkan_context_create: context_desc.backend: SWINUP_BACKEND_CUDA: this build has no CUDA "
               "backend (configure with -DSWINUP_CUDA=ON)";
    return nullptr;
}

}  // namespace swinup::vulkan_api
