// The automatic reactive mask as one compute pass (shaders/frame/reactive_mask.comp): the same
// recording serves swinup_generate_reactive_mask on host pointers (swinup's images, the values into
// a buffer the host encodes) and swinup_vulkan_record_reactive_mask (the application's images, the
// values into its storage image).
#pragma once

#include <cstdint>

#include "swinup/swinup.h"
#include "vulkan/frame/frame_passes.h"
#include "vulkan/runtime/device.h"
#include "vulkan/runtime/memory.h"
#include "vulkan/runtime/recorder.h"

namespace swinup::vulkan {

// The push constants of reactive_mask.comp (same order and size).
struct ReactiveMaskPush {
    int32_t width, height;
    float scale, threshold, binary_value;
    uint32_t flags;  // swinup_reactive_mask_flags
};
static_assert(sizeof(ReactiveMaskPush) == 24, "ReactiveMaskPush must match shaders/frame/reactive_mask.comp");

// The push constants of a (validated) descriptor.
ReactiveMaskPush reactive_mask_push(const swinup_reactive_mask_desc& desc);

// Records the mask of the two sampled colour images into `values` (width * height f32, packed).
void record_reactive_mask_values(Device& device, Recorder& rec, const ReactiveMaskPush& push, const InputView& opaque,
                                 const InputView& final_color, const Buffer& values);

// Records the mask into `output`, a storage image view of `format` (R8_UNORM, R16_SFLOAT or
// R32_SFLOAT) in GENERAL layout. Throws VulkanError(UNSUPPORTED) naming the format when the
// device cannot store it.
void record_reactive_mask_image(Device& device, Recorder& rec, const ReactiveMaskPush& push, const InputView& opaque,
                                const InputView& final_color, VkImageView output, VkFormat format);

// Makes the pipelines of both recordings (the buffer, and each mask format the device can store),
// so that no recording makes one.
void build_reactive_mask_pipelines(Device& device);

}  // namespace swinup::vulkan
