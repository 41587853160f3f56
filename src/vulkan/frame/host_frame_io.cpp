#include "vulkan/frame/host_frame_io.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "frame/formats.h"
#include "frame/input_image.h"
#include "vulkan/runtime/vk_format_name.h"
#include "vulkan/runtime/vulkan_error.h"

namespace swinup::vulkan {
namespace {

enum Role { kColor = 0, kDepth = 1, kMotion = 2, kReactive = 3, kTransparency = 4, kRoles = 5 };
// The automatic reactive mask's two colour images (record_upload_colours): images of their own.
enum MaskRole { kOpaque = kRoles, kFinal = kRoles + 1 };

// The image format a host input is copied into. The packed formats are decoded on the host by
// frame/input_image.h (the CPU backend's reader) into f32 images, so the host-pointer path reads
// the values the CPU reads.
VkFormat input_vk_format(swinup_format f) {
    switch (f) {
        case SWINUP_FORMAT_R10G10B10A2: case SWINUP_FORMAT_B10G11R11F: return VK_FORMAT_R32G32B32A32_SFLOAT;
        case SWINUP_FORMAT_D24_UNORM_S8: case SWINUP_FORMAT_D32F_S8: return VK_FORMAT_R32_SFLOAT;
        case SWINUP_FORMAT_RGBA16F: case SWINUP_FORMAT_RGB16F: return VK_FORMAT_R16G16B16A16_SFLOAT;
        case SWINUP_FORMAT_RGBA32F: case SWINUP_FORMAT_RGB32F: return VK_FORMAT_R32G32B32A32_SFLOAT;
        case SWINUP_FORMAT_R32F: return VK_FORMAT_R32_SFLOAT;
        case SWINUP_FORMAT_RG16F: return VK_FORMAT_R16G16_SFLOAT;
        case SWINUP_FORMAT_RG32F: return VK_FORMAT_R32G32_SFLOAT;
        case SWINUP_FORMAT_R8_UNORM: return VK_FORMAT_R8_UNORM;
        case SWINUP_FORMAT_R16F: return VK_FORMAT_R16_SFLOAT;
        default: return VK_FORMAT_UNDEFINED;
    }
}

size_t align16(size_t n) { return (n + 15) / 16 * 16; }

// Copies a host resource's rows, packed, into dst in the image's texel layout (3 channels widened
// to 4, the fourth set to 1; packed formats decoded into f32, colour as RGB and 1).
void pack_rows(const swinup_resource& r, uint8_t* dst) {
    if (format_packing(r.format) != kPackedNone) {
        const InputImage image = input_image(r);
        const bool colour = r.format == SWINUP_FORMAT_R10G10B10A2 || r.format == SWINUP_FORMAT_B10G11R11F;
        auto* out = reinterpret_cast<float*>(dst);  // the upload buffer's offsets are 16-byte aligned
        for (int y = 0; y < image.height; ++y) {
            for (int x = 0; x < image.width; ++x) {
                if (colour) {
                    for (int c = 0; c < 3; ++c) *out++ = read_input(image, x, y, c);
                    *out++ = 1.0f;
                } else {
                    *out++ = read_input(image, x, y, 0);
                }
            }
        }
        return;
    }
    const size_t pitch = resource_row_pitch(r);
    const size_t element = format_element_bytes(r.format);
    const int channels = format_channels(r.format);
    const auto* src = static_cast<const uint8_t*>(r.data);
    if (channels != 3) {
        const size_t row_bytes = static_cast<size_t>(r.width) * format_pixel_bytes(r.format);
        for (uint32_t y = 0; y < r.height; ++y) std::memcpy(dst + y * row_bytes, src + y * pitch, row_bytes);
        return;
    }
    const uint16_t half_one = 0x3c00;
    const float float_one = 1.0f;
    for (uint32_t y = 0; y < r.height; ++y) {
        const uint8_t* row = src + y * pitch;
        for (uint32_t x = 0; x < r.width; ++x) {
            uint8_t* texel = dst + (static_cast<size_t>(y) * r.width + x) * element * 4;
            std::memcpy(texel, row + static_cast<size_t>(x) * element * 3, element * 3);
            std::memcpy(texel + element * 3, element == 2 ? static_cast<const void*>(&half_one)
                                                          : static_cast<const void*>(&float_one), element);
        }
    }
}

}  // namespace

void check_output_format_storable(const Device& device, swinup_format output_format) {
    const VkFormat format = output_vk_format(output_format);
    if (format == VK_FORMAT_UNDEFINED) {
        throw VulkanError(SWINUP_STATUS_INVALID_ARGUMENT, "the output format must be RGBA16F, R10G10B10A2, RGBA8 or B10G11R11F");
    }
    if (!device.format_supports(format, VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)) {
        throw VulkanError(SWINUP_STATUS_UNSUPPORTED, std::string("Vulkan device \"") + device.name() +
                                                         "\" cannot write " + vk_format_name(format) +
                                                         " as a storage image (the output format)");
    }
}

HostFrameIo::HostFrameIo(Device& device, const swinup_context_desc& context)
    : device_(device), context_(context) {
    const size_t render = static_cast<size_t>(context.max_render_width) * context.max_render_height;
    const size_t display = static_cast<size_t>(context.display_width) * context.display_height;
    check_output_format_storable(device, context.output_format);
    const VkFormat format = output_vk_format(context.output_format);
    // Colour (at most 16 bytes a texel), depth (4), motion (8, at display size at most), two masks (4).
    upload_ = Buffer(device, align16(render * 16) + align16(render * 4) + align16(std::max(render, display) * 8) +
                                 2 * align16(render * 4),
                     MemoryUse::Upload);
    readback_ = Buffer(device, display * 8, MemoryUse::Readback);
    output_ = Image(device, context.display_width, context.display_height, format,
                    VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
}

Image& HostFrameIo::input_image(int role, VkFormat format, uint32_t width, uint32_t height) {
    auto key = std::make_pair(role, format);
    auto it = inputs_.find(key);
    if (it == inputs_.end()) {
        if (!device_.format_supports(format, VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)) {
            throw VulkanError(SWINUP_STATUS_UNSUPPORTED, std::string("Vulkan device \"") + device_.name() +
                                                             "\" cannot sample " + vk_format_name(format));
        }
        it = inputs_.emplace(key, Image(device_, width, height, format,
                                        VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT)).first;
    }
    return it->second;
}

void HostFrameIo::record_prepare(Recorder& rec) {
    if (!output_ready_) {
        rec.transition(output_, VK_IMAGE_LAYOUT_GENERAL);
        transitioned_.push_back(&output_);
        output_ready_ = true;
    }
}

void HostFrameIo::frame_not_run() {
    for (Image* image : transitioned_) image->layout = VK_IMAGE_LAYOUT_UNDEFINED;
    if (output_.layout == VK_IMAGE_LAYOUT_UNDEFINED) output_ready_ = false;
    transitioned_.clear();
}

FrameInputViews HostFrameIo::record_upload(Recorder& rec, const swinup_dispatch_desc& desc) {
    transitioned_.clear();
    record_prepare(rec);
    const size_t render = static_cast<size_t>(context_.max_render_width) * context_.max_render_height;
    const size_t display = static_cast<size_t>(context_.display_width) * context_.display_height;
    const size_t motion_end = align16(render * 16) + align16(render * 4) + align16(std::max(render, display) * 8);
    const size_t offsets[kRoles] = {0, align16(render * 16), align16(render * 16) + align16(render * 4), motion_end,
                                    motion_end + align16(render * 4)};
    // An absent mask (data NULL) has no image: the passes read it as 0.
    const swinup_resource* resources[kRoles] = {
        &desc.color, &desc.depth, &desc.motion_vectors, desc.reactive_mask.data ? &desc.reactive_mask : nullptr,
        desc.transparency_mask.data ? &desc.transparency_mask : nullptr};
    // Image sizes: the largest the context allows for each role (motion may be display-sized).
    const bool mv_display = (context_.flags & SWINUP_FLAG_MV_DISPLAY_RES) != 0;
    const uint32_t rw = context_.max_render_width, rh = context_.max_render_height;
    const uint32_t widths[kRoles] = {rw, rw, mv_display ? context_.display_width : rw, rw, rw};
    const uint32_t heights[kRoles] = {rh, rh, mv_display ? context_.display_height : rh, rh, rh};
    FrameInputViews views;
    InputView* out[kRoles] = {&views.color, &views.depth, &views.motion, &views.reactive, &views.transparency};
    views.reactive_unorm8 = resources[kReactive] && resources[kReactive]->format == SWINUP_FORMAT_R8_UNORM;
    views.transparency_unorm8 =
        resources[kTransparency] && resources[kTransparency]->format == SWINUP_FORMAT_R8_UNORM;
    for (int role = 0; role < kRoles; ++role) {
        if (resources[role] == nullptr) continue;
        *out[role] = upload(rec, role, *resources[role], offsets[role], widths[role], heights[role]);
    }
    upload_.flush();
    return views;
}

InputView HostFrameIo::upload(Recorder& rec, int role, const swinup_resource& r, size_t offset, uint32_t width,
                              uint32_t height) {
    const VkFormat format = input_vk_format(r.format);
    if (format == VK_FORMAT_UNDEFINED) {
        throw VulkanError(SWINUP_STATUS_INVALID_ARGUMENT, "an input has a format the Vulkan backend does not read");
    }
    Image& image = input_image(role, format, width, height);
    if (image.layout != VK_IMAGE_LAYOUT_GENERAL) {
        rec.transition(image, VK_IMAGE_LAYOUT_GENERAL);
        transitioned_.push_back(&image);
    }
    pack_rows(r, static_cast<uint8_t*>(upload_.mapped()) + offset);
    rec.copy_buffer_to_image(upload_, offset, image, r.width, r.height);
    return {image.view(), VK_IMAGE_LAYOUT_GENERAL};
}

std::pair<InputView, InputView> HostFrameIo::record_upload_colours(Recorder& rec, const swinup_resource& opaque,
                                                                   const swinup_resource& final_color) {
    transitioned_.clear();
    // Both colours (at most 16 bytes a texel) fit where a frame's inputs go: the upload buffer holds
    // a colour, a depth, a motion (at least render-sized, 8 bytes a texel) and two masks.
    const size_t render = static_cast<size_t>(context_.max_render_width) * context_.max_render_height;
    const size_t second = align16(render * 16);
    if (second + render * 16 > upload_.size()) {
        throw VulkanError(SWINUP_STATUS_INTERNAL, "the upload buffer cannot hold two colour images");
    }
    const uint32_t rw = context_.max_render_width, rh = context_.max_render_height;
    const InputView a = upload(rec, kOpaque, opaque, 0, rw, rh);
    const InputView b = upload(rec, kFinal, final_color, second, rw, rh);
    upload_.flush();
    return {a, b};
}

void HostFrameIo::record_readback(Recorder& rec) { rec.copy_image_to_buffer(output_, readback_, 0); }

void HostFrameIo::write_output(const swinup_dispatch_desc& desc) const {
    const swinup_resource& r = desc.output;
    const size_t row_bytes = static_cast<size_t>(r.width) * format_pixel_bytes(r.format);
    const size_t pitch = resource_row_pitch(r);
    auto* dst = static_cast<uint8_t*>(r.data_mut);
    for (uint32_t y = 0; y < r.height; ++y) readback_.read(dst + y * pitch, row_bytes, y * row_bytes);
}

}  // namespace swinup::vulkan
