// The name of a VkFormat in messages, as the Vulkan headers spell it ("VK_FORMAT_R32_SFLOAT"): a
// person reading "got VkFormat 122" has to look the number up; every message that speaks of a
// format (validation, unsupported device formats, the CUDA import) names it through this.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

namespace swinup::vulkan {

// Named: every format swinup_vulkan.h accepts, those swinup's own images use, and the colour,
// depth and packed formats an engine may pass by mistake; any other value is "VkFormat <number>".
std::string vk_format_name(VkFormat format);

}  // namespace swinup::vulkan
