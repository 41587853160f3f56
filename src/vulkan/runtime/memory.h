// Buffers and images swinup allocates on a Device (one VkDeviceMemory each; the network's
// tensors can share one Buffer through offset ranges). Move-only; destroyed with their owner.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>

namespace swinup::vulkan {

class Device;

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
    ~Buffer();
    Buffer(Buffer&& other) noexcept;
    Buffer& operator=(Buffer&& other) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    VkBuffer handle() const { return buffer_; }
    VkDeviceSize size() const { return size_; }
    bool valid() const { return buffer_ != VK_NULL_HANDLE; }
    // Host access (Upload/Readback only): write flushes, read invalidates non-coherent memory.
    void write(const void* data, size_t bytes, size_t offset = 0);
    void read(void* data, size_t bytes, size_t offset = 0) const;
    // Makes host writes through mapped() visible to the device (non-coherent memory only).
    void flush();
    void* mapped() const { return mapped_; }

private:
    void release();
    Device* owner_ = nullptr;         // counts the allocation (Device::allocated_bytes)
    VkDeviceSize allocated_ = 0;      // the vkAllocateMemory size
    VkDevice device_ = VK_NULL_HANDLE;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkDeviceSize size_ = 0;
    void* mapped_ = nullptr;
    bool coherent_ = true;
};

// A 2D image with one mip level and one layer, device-local, with a view of all of it.
// `layout` is the layout the recorder last transitioned it to (starts UNDEFINED).
class Image {
public:
    Image() = default;
    Image(Device& device, uint32_t width, uint32_t height, VkFormat format, VkImageUsageFlags usage);
    ~Image();
    Image(Image&& other) noexcept;
    Image& operator=(Image&& other) noexcept;
    Image(const Image&) = delete;
    Image& operator=(const Image&) = delete;

    VkImage handle() const { return image_; }
    VkImageView view() const { return view_; }
    VkFormat format() const { return format_; }
    uint32_t width() const { return width_; }
    uint32_t height() const { return height_; }
    bool valid() const { return image_ != VK_NULL_HANDLE; }
    VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;

private:
    void release();
    Device* owner_ = nullptr;         // counts the allocation (Device::allocated_bytes)
    VkDeviceSize allocated_ = 0;      // the vkAllocateMemory size
    VkDevice device_ = VK_NULL_HANDLE;
    VkImage image_ = VK_NULL_HANDLE;
    VkImageView view_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkFormat format_ = VK_FORMAT_UNDEFINED;
    uint32_t width_ = 0;
    uint32_t height_ = 0;
};

// Bytes per texel of the formats swinup's images use (0 for any other).
uint32_t texel_bytes(VkFormat format);
const char* format_name(VkFormat format);

}  // namespace swinup::vulkan
