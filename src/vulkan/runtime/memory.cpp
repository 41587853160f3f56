#include "vulkan/runtime/memory.h"

#include <cstring>
#include <string>
#include <utility>

#include "vulkan/runtime/device.h"
#include "vulkan/runtime/vulkan_error.h"

namespace swinup::vulkan {
namespace {

VkDeviceMemory allocate(Device& device, const VkMemoryRequirements& req, VkMemoryPropertyFlags required,
                        VkMemoryPropertyFlags preferred, uint32_t* type_out) {
    VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    info.allocationSize = req.size;
    info.memoryTypeIndex = device.memory_type(req.memoryTypeBits, required, preferred);
    VkDeviceMemory memory = VK_NULL_HANDLE;
    check(vkAllocateMemory(device.handle(), &info, nullptr, &memory),
          ("vkAllocateMemory (" + std::to_string(req.size) + " bytes)").c_str());
    if (type_out) *type_out = info.memoryTypeIndex;
    device.count_allocation(req.size);
    return memory;
}

}  // namespace

Buffer::Buffer(Device& device, VkDeviceSize size, MemoryUse use) : device_(device.handle()) {
    size_ = size ? (size + 3) / 4 * 4 : 4;
    if (size_ > device.capabilities().max_storage_buffer_range && device.capabilities().max_storage_buffer_range) {
        throw VulkanError(SWINUP_STATUS_UNSUPPORTED,
                          "a buffer of " + std::to_string(size_) + " bytes exceeds the device's maxStorageBufferRange (" +
                              std::to_string(device.capabilities().max_storage_buffer_range) + ")");
    }
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size_;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    check(vkCreateBuffer(device_, &info, nullptr, &buffer_), "vkCreateBuffer");
    try {
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device_, buffer_, &req);
        VkMemoryPropertyFlags required = 0, preferred = 0;
        switch (use) {
            case MemoryUse::DeviceLocal: preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT; break;
            case MemoryUse::Upload:
                required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
                preferred = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
                break;
            case MemoryUse::Readback:
                required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
                preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
                break;
        }
        uint32_t type = 0;
        memory_ = allocate(device, req, required, preferred, &type);
        owner_ = &device;
        allocated_ = req.size;
        check(vkBindBufferMemory(device_, buffer_, memory_, 0), "vkBindBufferMemory");
        if (use != MemoryUse::DeviceLocal) {
            coherent_ = device.memory_type_is_coherent(type);
            check(vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
        }
    } catch (...) {
        release();
        throw;
    }
}

void Buffer::write(const void* data, size_t bytes, size_t offset) {
    if (!mapped_ || offset + bytes > size_) {
        throw VulkanError(SWINUP_STATUS_INTERNAL, "Buffer::write outside a host-visible buffer");
    }
    std::memcpy(static_cast<char*>(mapped_) + offset, data, bytes);
    if (!coherent_) {
        VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, memory_, 0, VK_WHOLE_SIZE};
        check(vkFlushMappedMemoryRanges(device_, 1, &range), "vkFlushMappedMemoryRanges");
    }
}

void Buffer::flush() {
    if (!mapped_ || coherent_) return;
    VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, memory_, 0, VK_WHOLE_SIZE};
    check(vkFlushMappedMemoryRanges(device_, 1, &range), "vkFlushMappedMemoryRanges");
}

void Buffer::read(void* data, size_t bytes, size_t offset) const {
    if (!mapped_ || offset + bytes > size_) {
        throw VulkanError(SWINUP_STATUS_INTERNAL, "Buffer::read outside a host-visible buffer");
    }
    if (!coherent_) {
        VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, memory_, 0, VK_WHOLE_SIZE};
        check(vkInvalidateMappedMemoryRanges(device_, 1, &range), "vkInvalidateMappedMemoryRanges");
    }
    std::memcpy(data, static_cast<const char*>(mapped_) + offset, bytes);
}

void Buffer::release() {
    if (!device_) return;
    if (mapped_) vkUnmapMemory(device_, memory_);
    if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
    if (memory_) vkFreeMemory(device_, memory_, nullptr);
    if (owner_) owner_->count_free(allocated_);
    owner_ = nullptr;
    allocated_ = 0;
    buffer_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
    mapped_ = nullptr;
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& o) noexcept { *this = std::move(o); }

Buffer& Buffer::operator=(Buffer&& o) noexcept {
    if (this != &o) {
        release();
        owner_ = std::exchange(o.owner_, nullptr);
        allocated_ = std::exchange(o.allocated_, 0);
        device_ = std::exchange(o.device_, VK_NULL_HANDLE);
        buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
        memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
        size_ = std::exchange(o.size_, 0);
        mapped_ = std::exchange(o.mapped_, nullptr);
        coherent_ = o.coherent_;
    }
    return *this;
}

Image::Image(Device& device, uint32_t width, uint32_t height, VkFormat format, VkImageUsageFlags usage)
    : device_(device.handle()), format_(format), width_(width), height_(height) {
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = format;
    info.extent = {width, height, 1};
    info.mipLevels = 1;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    const VkResult created = vkCreateImage(device_, &info, nullptr, &image_);
    if (created == VK_ERROR_FORMAT_NOT_SUPPORTED) {
        throw VulkanError(SWINUP_STATUS_UNSUPPORTED, std::string("Vulkan device \"") + device.name() +
                                                         "\" cannot make a " + format_name(format) + " image with the usage swinup needs");
    }
    check(created, "vkCreateImage");
    try {
        VkMemoryRequirements req;
        vkGetImageMemoryRequirements(device_, image_, &req);
        memory_ = allocate(device, req, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, nullptr);
        owner_ = &device;
        allocated_ = req.size;
        check(vkBindImageMemory(device_, image_, memory_, 0), "vkBindImageMemory");
        VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        view.image = image_;
        view.viewType = VK_IMAGE_VIEW_TYPE_2D;
        view.format = format;
        view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        check(vkCreateImageView(device_, &view, nullptr, &view_), "vkCreateImageView");
    } catch (...) {
        release();
        throw;
    }
}

void Image::release() {
    if (!device_) return;
    if (view_) vkDestroyImageView(device_, view_, nullptr);
    if (image_) vkDestroyImage(device_, image_, nullptr);
    if (memory_) vkFreeMemory(device_, memory_, nullptr);
    if (owner_) owner_->count_free(allocated_);
    owner_ = nullptr;
    allocated_ = 0;
    view_ = VK_NULL_HANDLE;
    image_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
}

Image::~Image() { release(); }

Image::Image(Image&& o) noexcept { *this = std::move(o); }

Image& Image::operator=(Image&& o) noexcept {
    if (this != &o) {
        release();
        owner_ = std::exchange(o.owner_, nullptr);
        allocated_ = std::exchange(o.allocated_, 0);
        device_ = std::exchange(o.device_, VK_NULL_HANDLE);
        image_ = std::exchange(o.image_, VK_NULL_HANDLE);
        view_ = std::exchange(o.view_, VK_NULL_HANDLE);
        memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
        format_ = o.format_;
        width_ = o.width_;
        height_ = o.height_;
        layout = std::exchange(o.layout, VK_IMAGE_LAYOUT_UNDEFINED);
    }
    return *this;
}

uint32_t texel_bytes(VkFormat format) {
    switch (format) {
        case VK_FORMAT_R32_SFLOAT:
        case VK_FORMAT_R32_UINT:
        case VK_FORMAT_R8G8B8A8_UNORM:
        case VK_FORMAT_A2B10G10R10_UNORM_PACK32:
        case VK_FORMAT_R16G16_SFLOAT: return 4;
        case VK_FORMAT_R32G32_SFLOAT:
        case VK_FORMAT_R16G16B16A16_SFLOAT: return 8;
        case VK_FORMAT_R32G32B32A32_SFLOAT: return 16;
        default: return 0;
    }
}

const char* format_name(VkFormat format) {
    switch (format) {
        case VK_FORMAT_R32_SFLOAT: return "VK_FORMAT_R32_SFLOAT";
        case VK_FORMAT_R32_UINT: return "VK_FORMAT_R32_UINT";
        case VK_FORMAT_R8G8B8A8_UNORM: return "VK_FORMAT_R8G8B8A8_UNORM";
        case VK_FORMAT_A2B10G10R10_UNORM_PACK32: return "VK_FORMAT_A2B10G10R10_UNORM_PACK32";
        case VK_FORMAT_R16G16_SFLOAT: return "VK_FORMAT_R16G16_SFLOAT";
        case VK_FORMAT_R32G32_SFLOAT: return "VK_FORMAT_R32G32_SFLOAT";
        case VK_FORMAT_R16G16B16A16_SFLOAT: return "VK_FORMAT_R16G16B16A16_SFLOAT";
        case VK_FORMAT_R32G32B32A32_SFLOAT: return "VK_FORMAT_R32G32B32A32_SFLOAT";
        default: return "a VkFormat swinup does not use";
    }
}

}  // namespace swinup::vulkan
