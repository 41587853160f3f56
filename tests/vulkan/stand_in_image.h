// Stand-in Vulkan handles for the validation tests that run without a device: numbers cast to
// handle types, compared by the checks but never passed to Vulkan; and the frame those tests
// start from (64x48 -> 128x96).
#pragma once

#include <cstdint>

#include "swinup/swinup_vulkan.h"
#include "vulkan_app.h"

namespace swinup::test {

template <typename Handle>
Handle fake(uintptr_t value) {
    return reinterpret_cast<Handle>(value);
}

// An image of stand-in handles (image id, view id + 1) with the given description.
inline swinup_vulkan_image stand_in_image(uintptr_t id, VkFormat format, uint32_t w, uint32_t h,
                                          VkImageLayout layout, VkImageUsageFlags usage) {
    return vulkan_app::image_desc(fake<VkImage>(id), fake<VkImageView>(id + 1), format, w, h, layout, usage);
}

// The layout and usage of the stand-in input images: sampled, read-only.
constexpr VkImageLayout kStandInRead = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
constexpr VkImageUsageFlags kStandInSampled = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;

// The dispatch both device-free validation tests start from, for a context of
// sized_context_desc(64, 48, 128, 96) (RGBA16F output): render size 64x48, colour RGBA16F (id
// 0x100), depth R32F (0x200) and motion RG16F (0x300), sampled and read-only, and the output
// RGBA16F (0x400) for storage in the general layout, each made by `image` (a stand_in_image with
// what the test adds).
template <typename MakeImage>
swinup_vulkan_dispatch_desc stand_in_dispatch(MakeImage image) {
    swinup_vulkan_dispatch_desc desc;
    swinup_vulkan_dispatch_desc_init(&desc);
    desc.frame.render_width = 64;
    desc.frame.render_height = 48;
    desc.color = image(0x100, VK_FORMAT_R16G16B16A16_SFLOAT, 64, 48, kStandInRead, kStandInSampled);
    desc.depth = image(0x200, VK_FORMAT_R32_SFLOAT, 64, 48, kStandInRead, kStandInSampled);
    desc.motion_vectors = image(0x300, VK_FORMAT_R16G16_SFLOAT, 64, 48, kStandInRead, kStandInSampled);
    desc.output = image(0x400, VK_FORMAT_R16G16B16A16_SFLOAT, 128, 96, VK_IMAGE_LAYOUT_GENERAL,
                        VK_IMAGE_USAGE_STORAGE_BIT);
    return desc;
}

}  // namespace swinup::test
