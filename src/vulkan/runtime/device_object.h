// An object of a VkDevice, destroyed with `destroy` when its owner goes; a move leaves
// VK_NULL_HANDLE behind. Buffer, Image and ComputePipeline hold their Vulkan objects in these, so
// that tear-down (also when a constructor throws half-way) and moves are written once. An object
// made with the application's VkAllocationCallbacks (Device::allocator) is destroyed with them, as
// Vulkan requires.
#pragma once

#include <vulkan/vulkan.h>

#include <utility>

namespace swinup::vulkan {

template <class Handle, void(VKAPI_PTR* destroy)(VkDevice, Handle, const VkAllocationCallbacks*)>
class DeviceObject {
public:
    DeviceObject() = default;
    DeviceObject(VkDevice device, Handle handle, const VkAllocationCallbacks* allocator)
        : device_(device), handle_(handle), allocator_(allocator) {}
    ~DeviceObject() {
        if (handle_ != VK_NULL_HANDLE) destroy(device_, handle_, allocator_);
    }
    DeviceObject(DeviceObject&& other) noexcept
        : device_(other.device_), handle_(std::exchange(other.handle_, VK_NULL_HANDLE)), allocator_(other.allocator_) {}
    DeviceObject& operator=(DeviceObject other) noexcept {
        std::swap(device_, other.device_);
        std::swap(handle_, other.handle_);
        std::swap(allocator_, other.allocator_);
        return *this;
    }

    Handle get() const { return handle_; }

private:
    VkDevice device_ = VK_NULL_HANDLE;
    Handle handle_ = VK_NULL_HANDLE;
    const VkAllocationCallbacks* allocator_ = nullptr;
};

}  // namespace swinup::vulkan
