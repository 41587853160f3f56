#include "vulkan/api/cuda_interop_validation.h"

#include <cstring>
#include <string>
#include <utility>

#include "api/raw_enum.h"
#include "frame/formats.h"
#include "frame/input_image.h"
#include "vulkan/api/vulkan_image_rules.h"

namespace swinup::vulkan_api {

namespace {

Validation invalid(std::string message) { return {SWINUP_STATUS_INVALID_ARGUMENT, std::move(message)}; }

const char* handle_type_name(int64_t type) {
    switch (type) {
        case VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT: return "VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT";
        case VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_BIT: return "VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_BIT";
        case VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_KMT_BIT:
            return "VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_KMT_BIT";
        case VK_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_TEXTURE_BIT: return "VK_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_TEXTURE_BIT";
        case VK_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE_BIT: return "VK_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE_BIT";
        case VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT: return "VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT";
        default: return nullptr;
    }
}

bool is_windows_type(int64_t type) {
    return type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_BIT ||
           type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_KMT_BIT ||
           type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_TEXTURE_BIT ||
           type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_TEXTURE_KMT_BIT ||
           type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP_BIT ||
           type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE_BIT;
}

// The memory fields an image and a buffer both carry, and what the messages call them.
struct ExportedMemory {
    VkExternalMemoryHandleTypeFlagBits handle_type;
    VkDeviceMemory memory;
    VkDeviceSize offset, size;
    VkBool32 dedicated;
    const char* kind;         // "image", "buffer"
    const char* create_info;  // "VkExternalMemoryImageCreateInfo", ...
};

Validation check_exported_memory(const ExportedMemory& m, const std::string& prefix) {
    const auto field = [&](const char* member) { return prefix + "." + member; };
    const int64_t type = raw_enum(m.handle_type);
    if (type == 0) {
        const char* article = std::string(m.kind) == "image" ? "an " : "a ";
        return invalid(field("memory_handle_type") + ": is 0, " + article + m.kind +
                       " without exportable memory; the CUDA backend imports the " + m.kind +
                       "'s memory (allocate it with VkExportMemoryAllocateInfo and create the " + m.kind + " with " +
                       m.create_info + ", both VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT)");
    }
    if (type != VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT) {
        const char* known = handle_type_name(type);
        const std::string got = known != nullptr ? known : "handle type " + std::to_string(type);
        if (is_windows_type(type)) {
            return {SWINUP_STATUS_UNSUPPORTED,
                    field("memory_handle_type") + ": " + got +
                        ": the Windows handle types are not supported by this version (untested); the CUDA "
                        "backend imports VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT"};
        }
        return invalid(field("memory_handle_type") + ": expected VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, got " +
                       got);
    }
    if (m.memory == VK_NULL_HANDLE) {
        return invalid(field("memory") + ": is VK_NULL_HANDLE (the CUDA backend imports the memory the " + m.kind +
                       " is bound to)");
    }
    if (m.size == 0) {
        return invalid(field("memory_size") + ": is 0 (the memory's VkMemoryAllocateInfo.allocationSize)");
    }
    if (m.offset >= m.size) {
        return invalid(field("memory_offset") + ": " + std::to_string(m.offset) +
                       " is not inside the memory of memory_size " + std::to_string(m.size));
    }
    if (m.dedicated != VK_FALSE && m.dedicated != VK_TRUE) {
        return invalid(field("dedicated") + ": expected VK_TRUE or VK_FALSE, got " + std::to_string(m.dedicated));
    }
    return {};
}

Validation check_memory(const swinup_vulkan_image& image, const char* name) {
    const std::string prefix = std::string("vulkan_dispatch.") + name;
    const auto field = [&](const char* member) { return prefix + "." + member; };
    const Validation v = check_exported_memory({image.memory_handle_type, image.memory, image.memory_offset,
                                                image.memory_size, VK_FALSE, "image", "VkExternalMemoryImageCreateInfo"},
                                               prefix);
    if (!v.ok()) return v;
    const int64_t tiling = raw_enum(image.tiling);
    if (tiling != VK_IMAGE_TILING_OPTIMAL) {
        return invalid(field("tiling") + ": expected VK_IMAGE_TILING_OPTIMAL, got " +
                       (tiling == VK_IMAGE_TILING_LINEAR ? std::string("VK_IMAGE_TILING_LINEAR")
                                                         : "VkImageTiling " + std::to_string(tiling)) +
                       " (the CUDA backend maps images as CUDA arrays, whose layout is the optimal tiling's)");
    }
    if (image.dedicated != VK_FALSE && image.dedicated != VK_TRUE) {
        return invalid(field("dedicated") + ": expected VK_TRUE or VK_FALSE, got " + std::to_string(image.dedicated));
    }
    return {};
}

// A role given as a buffer: its memory as an image's, then its rows by swinup_dispatch's rules for
// device pointers (format, exact size, pitch), the offset aligned and the rows inside the buffer,
// the buffer inside its memory.
Validation check_buffer(const swinup_vulkan_buffer& b, FrameRole role, const char* name,
                        const swinup_vulkan_dispatch_desc& d, const swinup_context_desc& c) {
    const std::string prefix = std::string("vulkan_dispatch.") + name;
    const auto field = [&](const char* member) { return prefix + "." + member; };
    Validation v = check_exported_memory({b.memory_handle_type, b.memory, b.memory_offset, b.memory_size, b.dedicated,
                                          "buffer", "VkExternalMemoryBufferCreateInfo"},
                                         prefix);
    if (!v.ok()) return v;
    if (b.size == 0) return invalid(field("size") + ": is 0 (the buffer's VkBufferCreateInfo.size)");
    if (b.size > b.memory_size - b.memory_offset) {
        return invalid(field("size") + ": " + std::to_string(b.size) + " bytes at memory_offset " +
                       std::to_string(b.memory_offset) + " run past the memory's memory_size " +
                       std::to_string(b.memory_size));
    }
    // The rows as a device pointer would be checked; a stand-in address, aligned like the mapping
    // (CUDA maps a buffer at an address aligned to far more than an element), so that only the
    // format, size and pitch are judged here, and the offset below.
    swinup_resource rows{};
    rows.memory = SWINUP_MEMORY_CUDA;
    // The caller's format copied as bytes: validate_frame_resource checks its range as a raw value
    // (api/raw_enum.h), before anything loads it as a swinup_format.
    std::memcpy(&rows.format, &b.format, sizeof rows.format);
    rows.width = b.width;
    rows.height = b.height;
    rows.row_pitch = b.row_pitch;
    void* const stand_in = reinterpret_cast<void*>(uintptr_t{1} << 20);
    if (role == FrameRole::kOutput) {
        rows.data_mut = stand_in;
    } else {
        rows.data = stand_in;
    }
    if (!(v = validate_frame_resource(rows, role, d.frame, c, "vulkan_dispatch", name)).ok()) {
        if (role == FrameRole::kOutput && v.message.rfind(prefix + ".format", 0) == 0) {
            v.message += " (the context's output_format)";
        }
        return v;
    }
    const size_t element = format_element_bytes(b.format);
    if (b.offset % element != 0) {
        return invalid(field("offset") + ": " + std::to_string(b.offset) + " is not a multiple of " +
                       std::to_string(element) + " bytes (the element size of " + format_name(b.format) + ")");
    }
    const uint64_t span = buffer_span(b);
    if (b.offset > b.size || span > b.size - b.offset) {
        return invalid(field("offset") + ": " + std::to_string(b.offset) + " plus the rows' " + std::to_string(span) +
                       " bytes (" + std::to_string(b.height) + " rows of pitch " +
                       std::to_string(resource_row_pitch(rows)) + ") run past the buffer's size " +
                       std::to_string(b.size));
    }
    return {};
}

bool has_extension(const swinup_vulkan_device_desc& d, const char* name) {
    for (uint32_t i = 0; i < d.enabled_extension_count; ++i)
        if (std::strcmp(d.enabled_extensions[i], name) == 0) return true;
    return false;
}

}  // namespace

uint64_t buffer_span(const swinup_vulkan_buffer& b) {
    swinup_resource rows{};
    rows.format = b.format;
    rows.width = b.width;
    rows.row_pitch = b.row_pitch;
    return b.height == 0 ? 0
                         : (uint64_t(b.height) - 1) * resource_row_pitch(rows) +
                               uint64_t(b.width) * format_pixel_bytes(b.format);
}

Validation validate_cuda_interop_desc(const swinup_vulkan_dispatch_desc& d, const swinup_context_desc& context,
                                      bool exposure_image) {
    const auto buffered = [](const swinup_vulkan_buffer& b) { return b.buffer != VK_NULL_HANDLE; };
    // A role given as a buffer has no image (validate_vulkan_dispatch_desc made sure).
    const struct {
        const char* name;
        const swinup_vulkan_image* image;
    } images[7] = {{"color", buffered(d.color_buffer) ? nullptr : &d.color},
                   {"depth", buffered(d.depth_buffer) ? nullptr : &d.depth},
                   {"motion_vectors", buffered(d.motion_vectors_buffer) ? nullptr : &d.motion_vectors},
                   {"output", buffered(d.output_buffer) ? nullptr : &d.output},
                   {"exposure", exposure_image ? &d.exposure : nullptr},
                   {"reactive_mask", d.reactive_mask.image != VK_NULL_HANDLE ? &d.reactive_mask : nullptr},
                   {"transparency_mask", d.transparency_mask.image != VK_NULL_HANDLE ? &d.transparency_mask : nullptr}};
    for (const auto& i : images) {
        if (i.image == nullptr) continue;
        Validation v = check_memory(*i.image, i.name);
        if (!v.ok()) return v;
    }
    if (d.frame.sharpness > 0.0f) {
        return {SWINUP_STATUS_UNSUPPORTED, "vulkan_dispatch.frame.sharpness: the CUDA backend does not sharpen the "
                                           "output in this version (0 turns it off; the Vulkan backend sharpens)"};
    }
    // The packed and depth-stencil formats: CUDA maps none of them to an array format its textures
    // and surfaces read per channel, so the imports would read words, not values.
    const struct {
        const char* name;
        const swinup_vulkan_image& image;
        const char* instead;
    } packed[3] = {{"color", d.color, "pass the colour as VK_FORMAT_R16G16B16A16_SFLOAT"},
                   {"depth", d.depth, "pass the depth as VK_FORMAT_R32_SFLOAT"},
                   {"output", d.output, "make the context with another output_format"}};
    for (const auto& p : packed) {
        const int64_t f = raw_enum(p.image.format);
        if (f == VK_FORMAT_B10G11R11_UFLOAT_PACK32 || (f == VK_FORMAT_A2B10G10R10_UNORM_PACK32 && &p.image != &d.output) ||
            f == VK_FORMAT_D24_UNORM_S8_UINT || f == VK_FORMAT_D32_SFLOAT_S8_UINT) {
            return {SWINUP_STATUS_UNSUPPORTED,
                    std::string("vulkan_dispatch.") + p.name + ".format: " + vk_format_name(static_cast<VkFormat>(f)) +
                        " is not read or written by the CUDA backend on Vulkan images in this version (the Vulkan "
                        "backend takes it; on CUDA " + p.instead + ")"};
        }
    }
    const struct {
        const char* name;
        const swinup_vulkan_buffer& buffer;
        FrameRole role;
    } buffers[6] = {{"color_buffer", d.color_buffer, FrameRole::kColor},
                    {"depth_buffer", d.depth_buffer, FrameRole::kDepth},
                    {"motion_vectors_buffer", d.motion_vectors_buffer, FrameRole::kMotionVectors},
                    {"reactive_mask_buffer", d.reactive_mask_buffer, FrameRole::kReactiveMask},
                    {"transparency_mask_buffer", d.transparency_mask_buffer, FrameRole::kTransparencyMask},
                    {"output_buffer", d.output_buffer, FrameRole::kOutput}};
    for (const auto& b : buffers) {
        if (!buffered(b.buffer)) continue;
        Validation v = check_buffer(b.buffer, b.role, b.name, d, context);
        if (!v.ok()) return v;
    }
    // The output is written while the inputs may still be read: in a buffer an input is in too,
    // their bytes must not overlap.
    const swinup_vulkan_buffer& out = d.output_buffer;
    for (size_t i = 0; buffered(out) && i < 5; ++i) {
        const swinup_vulkan_buffer& in = buffers[i].buffer;
        if (in.buffer != out.buffer) continue;
        if (in.offset < out.offset + buffer_span(out) && out.offset < in.offset + buffer_span(in)) {
            return invalid(std::string("vulkan_dispatch.output_buffer.offset: the output's bytes overlap "
                                       "vulkan_dispatch.") +
                           buffers[i].name + "'s in the same buffer (the output must be separate)");
        }
    }
    if (!buffered(d.depth_buffer) && raw_enum(d.depth.format) == VK_FORMAT_D32_SFLOAT) {
        return invalid("vulkan_dispatch.depth.format: VK_FORMAT_D32_SFLOAT cannot be read by the CUDA backend (CUDA "
                       "maps no depth format); pass the depth as a VK_FORMAT_R32_SFLOAT image");
    }
    if (d.wait_semaphore == VK_NULL_HANDLE && d.wait_value != 0) {
        return invalid("vulkan_dispatch.wait_value: is " + std::to_string(d.wait_value) +
                       " but wait_semaphore is VK_NULL_HANDLE");
    }
    if (d.signal_semaphore == VK_NULL_HANDLE && d.signal_value != 0) {
        return invalid("vulkan_dispatch.signal_value: is " + std::to_string(d.signal_value) +
                       " but signal_semaphore is VK_NULL_HANDLE");
    }
    if (d.signal_semaphore != VK_NULL_HANDLE && d.signal_semaphore == d.wait_semaphore &&
        d.signal_value <= d.wait_value) {
        return invalid("vulkan_dispatch.signal_value: " + std::to_string(d.signal_value) +
                       " is not above wait_value " + std::to_string(d.wait_value) +
                       " of the same semaphore (a timeline semaphore's value only grows)");
    }
    return {};
}

Validation validate_cuda_interop_device(const swinup_vulkan_device_desc& device) {
    for (const char* name : {"VK_KHR_external_memory_fd", "VK_KHR_external_semaphore_fd"}) {
        if (!has_extension(device, name)) {
            return {SWINUP_STATUS_UNSUPPORTED,
                    std::string("vulkan_device.enabled_extensions: lacks ") + name +
                        ", which SWINUP_BACKEND_CUDA needs to import the application's images and semaphores"};
        }
    }
    // 0 means 1.1 (swinup_vulkan.h), which has no timeline semaphores of its own.
    const uint32_t api_version = device.api_version == 0 ? VK_API_VERSION_1_1 : device.api_version;
    if (api_version < VK_API_VERSION_1_2 && !has_extension(device, "VK_KHR_timeline_semaphore")) {
        return {SWINUP_STATUS_UNSUPPORTED,
                "vulkan_device.api_version: below 1.2 and VK_KHR_timeline_semaphore not enabled: SWINUP_BACKEND_CUDA "
                "orders its work with timeline semaphores"};
    }
    return {};
}

}  // namespace swinup::vulkan_api
