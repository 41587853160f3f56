// The Vulkan backend's entry point in a build without it (SWINUP_VULKAN=OFF).
#include "api/backend.h"

namespace swinup {

bool vulkan_backend_available() { return false; }

bool vulkan_memory_estimate(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights, BackendMemory*,
                            swinup_status* status, std::string* error) {
    return make_vulkan_backend(desc, std::move(weights), error, status) != nullptr;  // refuses, as below
}

std::unique_ptr<Backend> make_vulkan_backend(const swinup_context_desc&, std::shared_ptr<const Weights>,
                                             std::string* error, swinup_status* status) {
    *error = "context_desc.backend: SWINUP_BACKEND_VULKAN: this build has no Vulkan backend "
             "(configure with -DSWINUP_VULKAN=ON; needs libvulkan-dev and glslang-tools)";
    *status = SWINUP_STATUS_UNSUPPORTED;
    return nullptr;
}

}  // namespace swinup
