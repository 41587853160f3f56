// Errors of the Vulkan backend: thrown inside src/vulkan, caught at the backend's boundary
// (VulkanBackend, the Vulkan-facing API) and turned into a swinup_status and its message.
#pragma once

#include <vulkan/vulkan.h>

#include <stdexcept>
#include <string>

#include "swinup/swinup.h"

namespace swinup::vulkan {

class VulkanError : public std::runtime_error {
public:
    VulkanError(swinup_status status, const std::string& message)
        : std::runtime_error(message), status_(status) {}
    swinup_status status() const { return status_; }

private:
    swinup_status status_;
};

// "VK_ERROR_DEVICE_LOST" etc.
const char* vk_result_name(VkResult result);

// The status a failed VkResult maps to: out-of-memory results -> SWINUP_STATUS_OUT_OF_MEMORY,
// everything else -> SWINUP_STATUS_DEVICE_ERROR.
swinup_status status_of(VkResult result);

// Throws VulkanError "<what> failed: VK_ERROR_..." unless result is VK_SUCCESS.
void check(VkResult result, const char* what);

}  // namespace swinup::vulkan
