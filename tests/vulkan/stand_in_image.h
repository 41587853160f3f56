// Stand-in Vulkan handles for the validation tests that run without a device: numbers cast to
// handle types, compared by the checks but never passed to Vulkan.
#pragma once

#include <cstdint>

#include "swinup/swinup_vulkan.h"

namespace swinup::test {

template <typename Handle>
Handle fake(uintptr_t value) {
    return reinterpret_cast<Handle>(value);
}

// An image of stand-in handles (image id, view id + 1) with the given description.
inline swinup_vulkan_image stand_in_image(uintptr_t id, VkFormat format, uint32_t w, uint32_t h,
                                          VkImageLayout layout, VkImageUsageFlags usage) {
    swinup_vulkan_image i{};
    i.image = fake<VkImage>(id);
    i.view = fake<VkImageView>(id + 1);
    i.format = format;
    i.width = w;
    i.height = h;
    i.layout = layout;
    i.usage = usage;
    return i;
}

}  // namespace swinup::test
