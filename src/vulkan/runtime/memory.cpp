#include "vulkan/runtime/memory.h"

#include <cstring>
#include <string>

#include "vulkan/runtime/device.h"
#include "vulkan/runtime/vk_format_name.h"
#include "vulkan/runtime/vulkan_error.h"

namespace swinup::vulkan {
namespace {

DeviceAllocation allocate(Device& device, const VkMemoryRequirements& req, VkMemoryPropertyFlags required,
                          VkMemoryPropertyFlags preferred) {
    VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    info.allocationSize = req.size;
    info.memoryTypeIndex = device.memory_type(req.memoryTypeBits, required, preferred);
    VkDeviceMemory memory = VK_NULL_HANDLE;
    check(vkAllocateMemory(device.handle(), &info, device.allocator(), &memory),
          ("vkAllocateMemory (" + std::to_string(req.size) + " bytes)").c_str());
    DeviceAllocation allocation;
    allocation.memory = DeviceObject<VkDeviceMemory, vkFreeMemory>(device.handle(), memory, device.allocator());
    device.count_allocation(req.size);
    allocation.counted = std::unique_ptr<Device, CountedFree>(&device, CountedFree{req.size});
    allocation.type = info.memoryTypeIndex;
    return allocation;
}

}  // namespace

void CountedFree::operator()(Device* device) const { device->count_free(bytes); }

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
    VkBuffer buffer = VK_NULL_HANDLE;
    check(vkCreateBuffer(device_, &info, device.allocator(), &buffer), "vkCreateBuffer");
    buffer_ = DeviceObject<VkBuffer, vkDestroyBuffer>(device_, buffer, device.allocator());
    // A throw from here on destroys what is made so far (the members).
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, buffer, &req);
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
    allocation_ = allocate(device, req, required, preferred);
    const VkDeviceMemory memory = allocation_.memory.get();
    check(vkBindBufferMemory(device_, buffer, memory, 0), "vkBindBufferMemory");
    if (use != MemoryUse::DeviceLocal) {
        coherent_ = device.memory_type_is_coherent(allocation_.type);
        void* mapped = nullptr;
        check(vkMapMemory(device_, memory, 0, VK_WHOLE_SIZE, 0, &mapped), "vkMapMemory");
        mapped_ = std::unique_ptr<void, Unmap>(mapped, Unmap{device_, memory});
    }
}

void Buffer::write(const void* data, size_t bytes, size_t offset) {
    if (!mapped_ || offset + bytes > size_) {
        throw VulkanError(SWINUP_STATUS_INTERNAL, "Buffer::write outside a host-visible buffer");
    }
    std::memcpy(static_cast<char*>(mapped_.get()) + offset, data, bytes);
    flush();
}

void Buffer::flush() {
    if (!mapped_ || coherent_) return;
    VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, allocation_.memory.get(), 0, VK_WHOLE_SIZE};
    check(vkFlushMappedMemoryRanges(device_, 1, &range), "vkFlushMappedMemoryRanges");
}

void Buffer::read(void* data, size_t bytes, size_t offset) const {
    if (!mapped_ || offset + bytes > size_) {
        throw VulkanError(SWINUP_STATUS_INTERNAL, "Buffer::read outside a host-visible buffer");
    }
    if (!coherent_) {
        VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, allocation_.memory.get(), 0, VK_WHOLE_SIZE};
        check(vkInvalidateMappedMemoryRanges(device_, 1, &range), "vkInvalidateMappedMemoryRanges");
    }
    std::memcpy(data, static_cast<const char*>(mapped_.get()) + offset, bytes);
}

Image::Image(Device& device, uint32_t width, uint32_t height, VkFormat format, VkImageUsageFlags usage)
    : format_(format), width_(width), height_(height) {
    const VkDevice vk = device.handle();
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
    VkImage image = VK_NULL_HANDLE;
    const VkResult created = vkCreateImage(vk, &info, device.allocator(), &image);
    if (created == VK_ERROR_FORMAT_NOT_SUPPORTED) {
        throw VulkanError(SWINUP_STATUS_UNSUPPORTED, std::string("Vulkan device \"") + device.name() +
                                                         "\" cannot make a " + vk_format_name(format) + " image with the usage swinup needs");
    }
    check(created, "vkCreateImage");
    image_ = DeviceObject<VkImage, vkDestroyImage>(vk, image, device.allocator());
    // A throw from here on destroys what is made so far (the members).
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(vk, image, &req);
    allocation_ = allocate(device, req, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    check(vkBindImageMemory(vk, image, allocation_.memory.get(), 0), "vkBindImageMemory");
    VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view_info.image = image;
    view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view_info.format = format;
    view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkImageView view = VK_NULL_HANDLE;
    check(vkCreateImageView(vk, &view_info, device.allocator(), &view), "vkCreateImageView");
    view_ = DeviceObject<VkImageView, vkDestroyImageView>(vk, view, device.allocator());
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

}  // namespace swinup::vulkan
