#include "vulkan/frame/reactive_mask_pass.h"

#include <string>

#include "vulkan/runtime/vk_format_name.h"
#include "vulkan/runtime/vulkan_error.h"
#include "vulkan_shaders.h"

namespace swinup::vulkan {
namespace {

using K = BindingKind;

PipelineDesc to_buffer_pipeline() {
    return {&shaders::frame_reactive_mask_to_buffer, {K::SampledImage, K::SampledImage, K::StorageBuffer},
            sizeof(ReactiveMaskPush), {}};
}

// The shader writing a mask image of `format`, or nullptr for a format it does not write.
const SpirvCode* to_image_shader(VkFormat format) {
    switch (format) {
        case VK_FORMAT_R8_UNORM: return &shaders::frame_reactive_mask_to_r8;
        case VK_FORMAT_R16_SFLOAT: return &shaders::frame_reactive_mask_to_r16f;
        case VK_FORMAT_R32_SFLOAT: return &shaders::frame_reactive_mask_to_r32f;
        default: return nullptr;
    }
}

PipelineDesc to_image_pipeline(const SpirvCode* code) {
    return {code, {K::SampledImage, K::SampledImage, K::StorageImage}, sizeof(ReactiveMaskPush), {}};
}

Groups groups_of(const ReactiveMaskPush& push) {
    return {div_up(static_cast<uint32_t>(push.width), 8), div_up(static_cast<uint32_t>(push.height), 8), 1};
}

}  // namespace

ReactiveMaskPush reactive_mask_push(const swinup_reactive_mask_desc& d) {
    return {static_cast<int32_t>(d.render_width), static_cast<int32_t>(d.render_height), d.scale, d.threshold,
            d.binary_value, d.flags};
}

void record_reactive_mask_values(Device& device, Recorder& rec, const ReactiveMaskPush& push, const InputView& opaque,
                                 const InputView& final_color, const Buffer& values) {
    rec.dispatch(device.pipeline(to_buffer_pipeline()),
                 {Bind::sampled_image(opaque.view, opaque.layout), Bind::sampled_image(final_color.view, final_color.layout),
                  Bind::buffer(values)},
                 push, groups_of(push));
}

void record_reactive_mask_image(Device& device, Recorder& rec, const ReactiveMaskPush& push, const InputView& opaque,
                                const InputView& final_color, VkImageView output, VkFormat format) {
    const SpirvCode* code = to_image_shader(format);
    if (code == nullptr) {
        throw VulkanError(SWINUP_STATUS_INVALID_ARGUMENT,
                          std::string("the reactive mask is written as R8_UNORM, R16_SFLOAT or R32_SFLOAT, not ") +
                              vk_format_name(format));
    }
    if (!device.format_supports(format, VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)) {
        throw VulkanError(SWINUP_STATUS_UNSUPPORTED, std::string("Vulkan device \"") + device.name() + "\" cannot write " +
                                                         vk_format_name(format) + " as a storage image (the mask output)");
    }
    rec.dispatch(device.pipeline(to_image_pipeline(code)),
                 {Bind::sampled_image(opaque.view, opaque.layout), Bind::sampled_image(final_color.view, final_color.layout),
                  Bind::storage_image(output)},
                 push, groups_of(push));
}

void build_reactive_mask_pipelines(Device& device) {
    device.pipeline(to_buffer_pipeline());
    for (VkFormat format : {VK_FORMAT_R8_UNORM, VK_FORMAT_R16_SFLOAT, VK_FORMAT_R32_SFLOAT}) {
        if (device.format_supports(format, VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)) {
            device.pipeline(to_image_pipeline(to_image_shader(format)));
        }
    }
}

}  // namespace swinup::vulkan
