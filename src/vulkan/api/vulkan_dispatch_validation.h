// Validation of a swinup_vulkan_dispatch_desc (include/swinup/swinup_vulkan.h) before anything is
// recorded: the frame's scalars with swinup_dispatch's checks (api/validation.h), then each image's
// handles, format, declared usage, declared layout and extent against vulkan_image_rules.h. Every
// message names the image and what is wrong, e.g. "vulkan_dispatch.depth.format: expected
// VK_FORMAT_R32_SFLOAT or VK_FORMAT_D32_SFLOAT (SWINUP_FORMAT_R32F), got VK_FORMAT_R16G16_SFLOAT".
// Nothing here touches a context's state.
#pragma once

#include "api/validation.h"
#include "swinup/swinup_vulkan.h"

namespace swinup::vulkan_api {

Validation validate_vulkan_dispatch_desc(const swinup_vulkan_dispatch_desc& desc,
                                         const swinup_context_desc& context);

Validation validate_vulkan_device_desc(const swinup_vulkan_device_desc& desc);

}  // namespace swinup::vulkan_api
