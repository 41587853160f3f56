// The opaque file descriptor of a Vulkan object exported for CUDA's import (vkGetMemoryFdKHR for an
// image's memory, vkGetSemaphoreFdKHR for a timeline semaphore), or an InteropError naming the
// object when Vulkan refuses the export.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

#include "cuda/interop/interop_error.cuh"
#include "vulkan/runtime/vulkan_error.h"

namespace swinup::cuda {

// `get` on `info`; on failure the message is "<call> failed (<VkResult>): <why>", `call` naming
// the field and the Vulkan function ("vulkan_dispatch.color.memory: vkGetMemoryFdKHR").
template <typename GetFd, typename Info>
int exported_fd(GetFd get, VkDevice device, const Info& info, const std::string& call, const char* why) {
    int fd = -1;
    const VkResult got = get(device, &info, &fd);
    if (got != VK_SUCCESS || fd < 0) {
        throw InteropError(SWINUP_STATUS_INVALID_ARGUMENT,
                           call + " failed (" + vulkan::vk_result_name(got) + "): " + why);
    }
    return fd;
}

}  // namespace swinup::cuda
