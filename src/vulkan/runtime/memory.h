// Buffers and images swinup allocates on a Device (one VkDeviceMemory each; the network's
// tensors can share one Buffer through offset ranges). Move-only (their members are); destroyed
// with their owner.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "vulkan/runtime/device_object.h"

namespace swinup::vulkan {

class Device;

// Takes an allocation's bytes off its Device's count (Device::allocated_bytes) when it is freed.
struct CountedFree {
    VkDeviceSize bytes = 0;
    void operator()(Device* device) const;
};

// One vkAllocateMemory, counted on its Device while it lives (freed before the count drops).
struct DeviceAllocation {
    std::unique_ptr<Device, CountedFree> counted;
    DeviceObject<VkDeviceMemory, vkFreeMemory> memory;
    uint32_t type = 0;  // the memory type index
};

// Unmaps a host-visible allocation when its Buffer goes.
struct Unmap {
    VkDevice device = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void operator()(void*) const { vkUnmapMemory(device, memory); }
};

enum class MemoryUse {
    DeviceLocal,  // read and written by shaders only (host access impossible or slow)
    Upload,       // host-visible; the host writes, shaders and copies read
    Readback,     // host-visible, cached when possible; copies write, the host reads
};

class Buffer {
public:
    Buffer() = default;
    // usage: always STORAGE_BUFFER | TRANSFER_SRC | TRANSFER_DST. A size of 0 is rounded up to 4.
    Buffer(Device& device, VkDeviceSize size, MemoryUse use);

    VkBuffer handle() const { return buffer_.get(); }
    VkDeviceSize size() const { return size_; }
    bool valid() const { return handle() != VK_NULL_HANDLE; }
    // Host access (Upload/Readback only): write flushes, read invalidates non-coherent memory.
    void write(const void* data, size_t bytes, size_t offset = 0);
    void read(void* data, size_t bytes, size_t offset = 0) const;
    // Makes host writes through mapped() visible to the device (non-coherent memory only).
    void flush();
    void* mapped() const { return mapped_.get(); }

private:
    // Destroyed in reverse: the buffer, the mapping, then the memory.
    DeviceAllocation allocation_;
    std::unique_ptr<void, Unmap> mapped_;
    DeviceObject<VkBuffer, vkDestroyBuffer> buffer_;
    VkDevice device_ = VK_NULL_HANDLE;
    VkDeviceSize size_ = 0;
    bool coherent_ = true;
};

// A 2D image with one mip level and one layer, device-local, with a view of all of it.
// `layout` is the layout the recorder last transitioned it to (starts UNDEFINED).
class Image {
public:
    Image() = default;
    Image(Device& device, uint32_t width, uint32_t height, VkFormat format, VkImageUsageFlags usage);

    VkImage handle() const { return image_.get(); }
    VkImageView view() const { return view_.get(); }
    VkFormat format() const { return format_; }
    uint32_t width() const { return width_; }
    uint32_t height() const { return height_; }
    bool valid() const { return handle() != VK_NULL_HANDLE; }
    VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;

private:
    // Destroyed in reverse: the view, the image, then the memory.
    DeviceAllocation allocation_;
    DeviceObject<VkImage, vkDestroyImage> image_;
    DeviceObject<VkImageView, vkDestroyImageView> view_;
    VkFormat format_ = VK_FORMAT_UNDEFINED;
    uint32_t width_ = 0;
    uint32_t height_ = 0;
};

// Bytes per texel of the formats swinup's images use (0 for any other).
uint32_t texel_bytes(VkFormat format);

}  // namespace swinup::vulkan
