#include "vulkan/api/vulkan_dispatch_validation.h"

#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include "api/raw_enum.h"
#include "frame/formats.h"
#include "vulkan/api/vulkan_image_rules.h"
#include "vulkan/runtime/vk_format_name.h"

namespace swinup::vulkan_api {

namespace {

Validation invalid(std::string message) { return {SWINUP_STATUS_INVALID_ARGUMENT, std::move(message)}; }

std::string number(uint64_t v) { return std::to_string(v); }

// Whether the caller's raw enum value (api/raw_enum.h) is one of `list`'s enumerators. The value is
// compared as an integer and never converted to the enum type: a number outside the enum's range
// would be undefined behaviour there.
template <typename List>
bool contains_raw(const List& list, int64_t raw) {
    for (const auto x : list)
        if (static_cast<int64_t>(x) == raw) return true;
    return false;
}

// The size swinup reads (or writes) of an image and where that size comes from.
struct Extent {
    uint32_t width, height;
    const char* origin;
};

// `prefix` names the descriptor in messages ("vulkan_dispatch", "vulkan_reactive_mask").
Validation check_image(const swinup_vulkan_image& image, const ImageRule& rule, const Extent& needed,
                       const char* prefix = "vulkan_dispatch") {
    // Messages are built only on failure.
    const auto field = [&](const char* member) { return std::string(prefix) + "." + rule.name + "." + member; };
    if (image.image == VK_NULL_HANDLE) return invalid(field("image") + ": is VK_NULL_HANDLE");
    if (image.view == VK_NULL_HANDLE) {
        return invalid(field("view") + ": is VK_NULL_HANDLE (swinup reads and writes images through the "
                                       "application's views: a 2D view of mip 0, layer 0)");
    }
    const int64_t format = raw_enum(image.format);
    if (!contains_raw(rule.formats, format) || format == VK_FORMAT_UNDEFINED) {
        const swinup_format carried = swinup_format_of(rule.formats[0]);
        return invalid(field("format") + ": expected " + format_list(rule) + " (" + format_name(carried) +
                       "), got " + vk_format_name(format));
    }
    if ((image.usage & rule.usage) == 0) {
        const char* bit = rule.usage == VK_IMAGE_USAGE_STORAGE_BIT ? "VK_IMAGE_USAGE_STORAGE_BIT"
                                                                   : "VK_IMAGE_USAGE_SAMPLED_BIT";
        return invalid(field("usage") + ": lacks " + bit + " (" + rule.usage_reason + ")");
    }
    const int64_t layout = raw_enum(image.layout);
    if (!contains_raw(rule.layouts, layout) || layout == VK_IMAGE_LAYOUT_UNDEFINED) {
        return invalid(field("layout") + ": expected " + layout_list(rule) + ", got " +
                       vk_layout_name(layout) +
                       " (swinup records no layout transition: the application's barrier puts the image in "
                       "one of these)");
    }
    if (image.width < needed.width || image.height < needed.height) {
        const bool width = image.width < needed.width;
        return invalid(field(width ? "width" : "height") + ": the image is " + number(image.width) + "x" +
                       number(image.height) + ", smaller than the " + number(needed.width) + "x" +
                       number(needed.height) + " texels swinup " +
                       (rule.usage == VK_IMAGE_USAGE_STORAGE_BIT ? "writes" : "reads") + " (" + needed.origin + ")");
    }
    return {};
}

// The layouts swinup_vulkan_dispatch_desc has had: its size and the size of its member frame (a
// swinup_dispatch_desc of the same header); the fields after frame follow it without padding. V4
// (the buffers) kept V3's frame: it only appended fields. V5 has the frame of
// SWINUP_DISPATCH_DESC_SIZE_V4 (sharpness) and V4's fields after it.
struct Layout {
    uint32_t size, frame_size;
    const char *name, *frame_name;
};
constexpr int kLayouts = 5;
const Layout* layouts() {
    static const Layout list[kLayouts] = {
        {SWINUP_VULKAN_DISPATCH_DESC_SIZE_V1, SWINUP_DISPATCH_DESC_SIZE_V1, "SWINUP_VULKAN_DISPATCH_DESC_SIZE_V1",
         "SWINUP_DISPATCH_DESC_SIZE_V1"},
        {SWINUP_VULKAN_DISPATCH_DESC_SIZE_V2, SWINUP_DISPATCH_DESC_SIZE_V2, "SWINUP_VULKAN_DISPATCH_DESC_SIZE_V2",
         "SWINUP_DISPATCH_DESC_SIZE_V2"},
        {SWINUP_VULKAN_DISPATCH_DESC_SIZE_V3, SWINUP_DISPATCH_DESC_SIZE_V3, "SWINUP_VULKAN_DISPATCH_DESC_SIZE_V3",
         "SWINUP_DISPATCH_DESC_SIZE_V3"},
        {SWINUP_VULKAN_DISPATCH_DESC_SIZE_V4, SWINUP_DISPATCH_DESC_SIZE_V3, "SWINUP_VULKAN_DISPATCH_DESC_SIZE_V4",
         "SWINUP_DISPATCH_DESC_SIZE_V3"},
        {SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5, SWINUP_DISPATCH_DESC_SIZE_V4, "SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5",
         "SWINUP_DISPATCH_DESC_SIZE_V4"},
    };
    return list;
}

// The layout of an outer struct_size; null when it is none of them.
const Layout* layout_of(uint32_t size) {
    for (int i = 0; i < kLayouts; ++i)
        if (layouts()[i].size == size) return &layouts()[i];
    return nullptr;
}

// Both sizes, the outer one first: the frame's struct_size is read only once the caller's struct
// is known to be large enough to hold it (frame.struct_size lies within every layout).
Validation check_sizes(const swinup_vulkan_dispatch_desc* d) {
    const Layout* layout = layout_of(d->struct_size);
    if (layout == nullptr) {
        std::string accepted;
        for (int i = 0; i < kLayouts; ++i) {
            accepted += (i == 0 ? "" : i + 1 == kLayouts ? " or " : ", ") + number(layouts()[i].size) + " (" +
                        layouts()[i].name + (i + 1 == kLayouts ? "; call swinup_vulkan_dispatch_desc_init)" : ")");
        }
        return invalid("vulkan_dispatch.struct_size: swinup_vulkan_dispatch_desc accepts " + accepted + ", got " +
                       number(d->struct_size));
    }
    // The frame is a member: its size is the one the caller's header was compiled with.
    if (d->frame.struct_size != layout->frame_size) {
        return invalid(std::string("vulkan_dispatch.frame.struct_size: swinup_dispatch_desc as a member of a "
                                   "swinup_vulkan_dispatch_desc of ") +
                       layout->name + " must be " + number(layout->frame_size) + " (" + layout->frame_name +
                       "; call swinup_vulkan_dispatch_desc_init), got " + number(d->frame.struct_size));
    }
    return {};
}

}  // namespace

Validation read_vulkan_dispatch_desc(const swinup_vulkan_dispatch_desc* in, swinup_vulkan_dispatch_desc* out) {
    Validation v = check_sizes(in);
    if (!v.ok()) return v;
    const Layout& layout = *layout_of(in->struct_size);
    // Any layout: struct_size and its frame, then the fields from color on, as far as it has them;
    // the fields it lacks (the frame's newer ones, the mask images, the buffers) keep their defaults.
    static_assert(offsetof(swinup_vulkan_dispatch_desc, color) ==
                      offsetof(swinup_vulkan_dispatch_desc, frame) + sizeof(swinup_dispatch_desc),
                  "color follows frame without padding, as it did in every layout");
    static_assert(offsetof(swinup_vulkan_dispatch_desc, color_buffer) ==
                      offsetof(swinup_vulkan_dispatch_desc, transparency_mask) + sizeof(swinup_vulkan_image),
                  "the buffers follow the masks without padding, so V3's size is where they begin");
    const size_t frame_end = offsetof(swinup_vulkan_dispatch_desc, frame) + layout.frame_size;
    swinup_vulkan_dispatch_desc_init(out);
    const auto* bytes = reinterpret_cast<const unsigned char*>(in);
    std::memcpy(static_cast<void*>(out), bytes, frame_end);
    std::memcpy(reinterpret_cast<unsigned char*>(out) + offsetof(swinup_vulkan_dispatch_desc, color),
                bytes + frame_end, layout.size - frame_end);
    out->struct_size = SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5;
    out->frame.struct_size = SWINUP_DISPATCH_DESC_SIZE_V4;
    return {};
}

Validation validate_vulkan_dispatch_desc(const swinup_vulkan_dispatch_desc& d, const swinup_context_desc& c) {
    Validation v = check_sizes(&d);
    if (!v.ok()) return v;
    if (d.struct_size != SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5) {
        return {SWINUP_STATUS_INTERNAL, "vulkan_dispatch.struct_size: not read into the newest layout"};
    }
    // A role given as a buffer (the CUDA backend's; its fields are checked by
    // validate_cuda_interop_desc) has no image: the image's checks are skipped for it.
    const struct {
        const char* name;
        const swinup_vulkan_image& image;
        const swinup_vulkan_buffer& buffer;
    } buffered[6] = {{"color", d.color, d.color_buffer},
                     {"depth", d.depth, d.depth_buffer},
                     {"motion_vectors", d.motion_vectors, d.motion_vectors_buffer},
                     {"output", d.output, d.output_buffer},
                     {"reactive_mask", d.reactive_mask, d.reactive_mask_buffer},
                     {"transparency_mask", d.transparency_mask, d.transparency_mask_buffer}};
    for (const auto& role : buffered) {
        if (role.buffer.buffer != VK_NULL_HANDLE && role.image.image != VK_NULL_HANDLE) {
            return invalid(std::string("vulkan_dispatch.") + role.name + "_buffer.buffer: is set, and so is "
                           "vulkan_dispatch." + role.name + ".image (give the " + role.name +
                           " as an image or as a buffer, not both)");
        }
    }
    const auto is_buffer = [](const swinup_vulkan_buffer& b) { return b.buffer != VK_NULL_HANDLE; };
    // Both backends read the signal point (the CUDA backend signals it; the Vulkan backend reuses the
    // frame's descriptor sets once the application's submit has signalled it): 0 would be reached
    // before anything ran.
    if (d.signal_semaphore != VK_NULL_HANDLE && d.signal_value == 0) {
        return invalid("vulkan_dispatch.signal_value: is 0, but signal_semaphore is set (a timeline semaphore starts "
                       "at 0 and is signalled to values above it)");
    }
    if (!(v = validate_dispatch_scalars(d.frame, c, "vulkan_dispatch.frame")).ok()) return v;

    const Extent render{d.frame.render_width, d.frame.render_height, "frame.render_width x frame.render_height"};
    const bool mv_display = (c.flags & SWINUP_FLAG_MV_DISPLAY_RES) != 0;
    const Extent motion = mv_display ? Extent{c.display_width, c.display_height,
                                              "the display size: the context has SWINUP_FLAG_MV_DISPLAY_RES"}
                                     : render;
    const Extent display{c.display_width, c.display_height, "the context's display size"};
    if (!is_buffer(d.color_buffer) && !(v = check_image(d.color, color_rule(), render)).ok()) return v;
    if (!is_buffer(d.depth_buffer) && !(v = check_image(d.depth, depth_rule(), render)).ok()) return v;
    if (!is_buffer(d.motion_vectors_buffer) && !(v = check_image(d.motion_vectors, motion_vectors_rule(), motion)).ok())
        return v;
    const bool exposure_image = d.exposure.image != VK_NULL_HANDLE && (c.flags & SWINUP_FLAG_AUTO_EXPOSURE) == 0;
    if (exposure_image && !(v = check_image(d.exposure, exposure_rule(), Extent{1, 1, "one texel"})).ok()) return v;
    if (!is_buffer(d.output_buffer) && !(v = check_image(d.output, output_rule(c.output_format), display)).ok()) {
        if (v.message.rfind("vulkan_dispatch.output.format", 0) == 0) v.message += " (the context's output_format)";
        return v;
    }
    const bool reactive = d.reactive_mask.image != VK_NULL_HANDLE;
    const bool transparency = d.transparency_mask.image != VK_NULL_HANDLE;
    if (reactive && !(v = check_image(d.reactive_mask, reactive_mask_rule(), render)).ok()) return v;
    if (transparency && !(v = check_image(d.transparency_mask, transparency_mask_rule(), render)).ok()) return v;

    // Every role is an image of its own: the output is written while the inputs may still be read,
    // and the CUDA backend imports one texture per role and image (one VkImage in two roles would be
    // imported twice, with two formats, and the first import released while the frame uses it).
    const struct {
        const char* name;
        const swinup_vulkan_image* image;
    } roles[7] = {{"color", &d.color}, {"depth", &d.depth}, {"motion_vectors", &d.motion_vectors},
                  {"exposure", exposure_image ? &d.exposure : nullptr},
                  {"reactive_mask", reactive ? &d.reactive_mask : nullptr},
                  {"transparency_mask", transparency ? &d.transparency_mask : nullptr}, {"output", &d.output}};
    for (size_t later = 1; later < 7; ++later) {
        // (A role given as a buffer has no image.)
        if (roles[later].image == nullptr || roles[later].image->image == VK_NULL_HANDLE) continue;
        for (size_t earlier = 0; earlier < later; ++earlier) {
            if (roles[earlier].image == nullptr || roles[earlier].image->image != roles[later].image->image) continue;
            return invalid(std::string("vulkan_dispatch.") + roles[later].name + ".image: is also vulkan_dispatch." +
                           roles[earlier].name + ".image (" +
                           (later == 6 ? "the output must be an image of its own"
                                       : "each input must be an image of its own") +
                           ")");
        }
    }
    return {};
}

Validation validate_vulkan_reactive_mask_desc(const swinup_vulkan_reactive_mask_desc& d,
                                              const swinup_context_desc& c) {
    if (d.struct_size != SWINUP_VULKAN_REACTIVE_MASK_DESC_SIZE_V1) {
        return invalid("vulkan_reactive_mask.struct_size: swinup_vulkan_reactive_mask_desc accepts " +
                       number(SWINUP_VULKAN_REACTIVE_MASK_DESC_SIZE_V1) +
                       " (SWINUP_VULKAN_REACTIVE_MASK_DESC_SIZE_V1; call swinup_vulkan_reactive_mask_desc_init), got " +
                       number(d.struct_size));
    }
    if (d.mask.struct_size != SWINUP_REACTIVE_MASK_DESC_SIZE_V1) {
        return invalid("vulkan_reactive_mask.mask.struct_size: must be " + number(SWINUP_REACTIVE_MASK_DESC_SIZE_V1) +
                       " (SWINUP_REACTIVE_MASK_DESC_SIZE_V1; call swinup_vulkan_reactive_mask_desc_init), got " +
                       number(d.mask.struct_size));
    }
    Validation v = validate_reactive_mask_params(d.mask, c, "vulkan_reactive_mask.mask");
    if (!v.ok()) return v;
    const Extent render{d.mask.render_width, d.mask.render_height, "mask.render_width x mask.render_height"};
    const char* prefix = "vulkan_reactive_mask";
    if (!(v = check_image(d.opaque_color, reactive_colour_rule("opaque_color"), render, prefix)).ok()) return v;
    if (!(v = check_image(d.final_color, reactive_colour_rule("final_color"), render, prefix)).ok()) return v;
    if (!(v = check_image(d.output, reactive_output_rule(), render, prefix)).ok()) return v;
    for (const auto& [name, image] : {std::pair{"opaque_color", &d.opaque_color}, std::pair{"final_color", &d.final_color}}) {
        if (image->image == d.output.image) {
            return invalid(std::string("vulkan_reactive_mask.output.image: is also vulkan_reactive_mask.") + name +
                           ".image (the mask must be an image of its own)");
        }
    }
    return {};
}

namespace {

bool device_desc_size_accepted(uint32_t size) {
    return size == SWINUP_VULKAN_DEVICE_DESC_SIZE_V1 || size == SWINUP_VULKAN_DEVICE_DESC_SIZE_V2;
}

Validation device_desc_size_refused(const char* field, uint32_t size) {
    return invalid(std::string(field) + ": swinup_vulkan_device_desc accepts " +
                   number(SWINUP_VULKAN_DEVICE_DESC_SIZE_V1) + " (SWINUP_VULKAN_DEVICE_DESC_SIZE_V1) or " +
                   number(SWINUP_VULKAN_DEVICE_DESC_SIZE_V2) +
                   " (SWINUP_VULKAN_DEVICE_DESC_SIZE_V2; call swinup_vulkan_device_desc_init), got " + number(size));
}

}  // namespace

Validation read_vulkan_device_desc(const swinup_vulkan_device_desc* in, swinup_vulkan_device_desc* out) {
    uint32_t size = 0;
    std::memcpy(&size, in, sizeof size);  // only struct_size until the size is known
    if (!device_desc_size_accepted(size)) return device_desc_size_refused("vulkan_device.struct_size", size);
    swinup_vulkan_device_desc_init(out);
    std::memcpy(out, in, size);  // a V1 caller's fields; the V2 ones keep their defaults
    return {};
}

Validation device_desc_size_check_for_output(uint32_t size) {
    if (device_desc_size_accepted(size)) return {};
    return device_desc_size_refused("swinup_vulkan_context_get_device: out->struct_size", size);
}

Validation validate_vulkan_device_desc(const swinup_vulkan_device_desc& d) {
    if (!device_desc_size_accepted(d.struct_size)) return device_desc_size_refused("vulkan_device.struct_size", d.struct_size);
    if (d.instance == VK_NULL_HANDLE) return invalid("vulkan_device.instance: is VK_NULL_HANDLE");
    if (d.physical_device == VK_NULL_HANDLE) return invalid("vulkan_device.physical_device: is VK_NULL_HANDLE");
    if (d.device == VK_NULL_HANDLE) return invalid("vulkan_device.device: is VK_NULL_HANDLE");
    if (d.enabled_extension_count != 0 && d.enabled_extensions == nullptr) {
        return invalid("vulkan_device.enabled_extensions: is NULL, but enabled_extension_count is " +
                       number(d.enabled_extension_count));
    }
    for (uint32_t i = 0; i < d.enabled_extension_count; ++i) {
        if (d.enabled_extensions[i] == nullptr) {
            return invalid("vulkan_device.enabled_extensions[" + number(i) + "]: is NULL");
        }
    }
    if (d.api_version != 0 && d.api_version < VK_API_VERSION_1_1) {
        return {SWINUP_STATUS_UNSUPPORTED,
                "vulkan_device.api_version: " + number(VK_API_VERSION_MAJOR(d.api_version)) + "." +
                    number(VK_API_VERSION_MINOR(d.api_version)) + ": swinup needs Vulkan 1.1 or newer"};
    }
    if (const VkAllocationCallbacks* a = d.allocation_callbacks) {
        // Vulkan's rules for VkAllocationCallbacks (a driver would call a NULL function).
        if (a->pfnAllocation == nullptr) return invalid("vulkan_device.allocation_callbacks->pfnAllocation: is NULL");
        if (a->pfnReallocation == nullptr) return invalid("vulkan_device.allocation_callbacks->pfnReallocation: is NULL");
        if (a->pfnFree == nullptr) return invalid("vulkan_device.allocation_callbacks->pfnFree: is NULL");
        if ((a->pfnInternalAllocation == nullptr) != (a->pfnInternalFree == nullptr)) {
            return invalid("vulkan_device.allocation_callbacks->pfnInternalAllocation: must be given together with "
                           "pfnInternalFree (both or neither)");
        }
    }
    return {};
}

}  // namespace swinup::vulkan_api
