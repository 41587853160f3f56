// What the Vulkan-facing API (include/swinup/swinup_vulkan.h) accepts for each of a frame's
// images: the VkFormats that carry each swinup_format, the usage bit the shaders need and the
// layouts they may read or write the image in. The header's table and docs/integration.md state the
// same rules; validation (vulkan_dispatch_validation.cpp) enforces them and names them in its
// messages, so this is the one place they are written in code.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "swinup/swinup.h"

namespace swinup::vulkan_api {

// The name of a VkFormat as the Vulkan headers spell it ("VK_FORMAT_R32_SFLOAT"; vulkan/runtime/
// vk_format_name.h), and of a VkImageLayout, for the values this API speaks of; any other value is
// "VkFormat <number>" / "VkImageLayout <number>". They take the value as an integer
// (api/raw_enum.h): a caller's field may hold a number no enumerator has, which must be named, not
// converted to the enum type (undefined behaviour for a value outside the enum's range).
std::string vk_format_name(int64_t format);
std::string vk_layout_name(int64_t layout);

// The swinup_format a VkFormat carries (SWINUP_FORMAT_UNKNOWN for one this API does not read or
// write). D32_SFLOAT is a depth buffer read through its depth aspect: R32F; D24_UNORM_S8_UINT and
// D32_SFLOAT_S8_UINT, read through theirs, carry D24_UNORM_S8 and D32F_S8.
swinup_format swinup_format_of(VkFormat format);

struct ImageRule {
    const char* name;               // "color", "depth", ...
    VkFormat formats[4];            // accepted formats (VK_FORMAT_UNDEFINED ends a shorter list)
    VkImageUsageFlagBits usage;     // the bit the shaders need
    const char* usage_reason;       // why, for the message
    VkImageLayout layouts[4];       // accepted layouts (VK_IMAGE_LAYOUT_UNDEFINED ends the list)
};

// The rules of the inputs and of the output in the context's output format.
const ImageRule& color_rule();
const ImageRule& depth_rule();
const ImageRule& motion_vectors_rule();
const ImageRule& exposure_rule();
// The reactive and transparency masks (name "reactive_mask" / "transparency_mask").
const ImageRule& reactive_mask_rule();
const ImageRule& transparency_mask_rule();
// swinup_vulkan_record_reactive_mask's images: the two colours (the colour rule's float formats
// under their own name, "opaque_color" / "final_color") and the mask it writes (R8_UNORM, R16_SFLOAT or
// R32_SFLOAT; STORAGE; GENERAL).
ImageRule reactive_colour_rule(const char* name);
const ImageRule& reactive_output_rule();
// output_format is one of the context's output formats (validated at creation).
ImageRule output_rule(swinup_format output_format);

// "A, B or C" for a rule's formats / layouts.
std::string format_list(const ImageRule& rule);
std::string layout_list(const ImageRule& rule);

}  // namespace swinup::vulkan_api
