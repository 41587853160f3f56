// The application's VkBuffers imported into CUDA as device pointers, once each (swinup_vulkan.h,
// swinup_vulkan_buffer): the memory exported with vkGetMemoryFdKHR (opaque fd), imported with
// cudaImportExternalMemory and mapped with cudaExternalMemoryGetMappedBuffer over the whole buffer
// (memory_offset .. + size), so that every role in one buffer, at any offset, shares one import.
//
// Cached like the images (imported_images.cuh): keyed on (buffer, memory, memory offset, memory
// size, buffer size, dedicated); a buffer handle that comes back with another key had its old
// import released first, after `finish` (the context's CUDA work done) has run.
#pragma once

#include <cuda_runtime.h>
#include <vulkan/vulkan.h>

#include <functional>
#include <map>
#include <tuple>

#include "swinup/swinup_vulkan.h"

namespace swinup::cuda {

struct ImportedBuffer {
    cudaExternalMemory_t memory = nullptr;
    void* data = nullptr;  // the buffer's first byte (memory_offset into the imported memory)
};

class ImportedBuffers {
public:
    // `get_memory_fd` is the device's vkGetMemoryFdKHR. `finish` waits until no CUDA work of the
    // context reads or writes an import any more.
    ImportedBuffers(VkDevice device, PFN_vkGetMemoryFdKHR get_memory_fd, std::function<void()> finish);
    ~ImportedBuffers();  // releases every import (the caller made sure no work uses them)
    ImportedBuffers(const ImportedBuffers&) = delete;
    ImportedBuffers& operator=(const ImportedBuffers&) = delete;

    // The import of `buffer` (validated by validate_cuda_interop_desc), made on first use. Throws
    // InteropError naming "vulkan_dispatch.<name>" when Vulkan or CUDA refuses it.
    const ImportedBuffer& get(const swinup_vulkan_buffer& buffer, const char* name);
    // Releases the import(s) of `buffer` (VK_NULL_HANDLE: all) after `finish`.
    void release(VkBuffer buffer);
    size_t size() const { return imports_.size(); }

private:
    using Key = std::tuple<VkBuffer, VkDeviceMemory, VkDeviceSize, VkDeviceSize, VkDeviceSize, VkBool32>;
    static Key key_of(const swinup_vulkan_buffer& buffer);
    ImportedBuffer import(const swinup_vulkan_buffer& buffer, const char* name);
    static void destroy(const ImportedBuffer& buffer);

    VkDevice device_;
    PFN_vkGetMemoryFdKHR get_memory_fd_;
    std::function<void()> finish_;
    std::map<Key, ImportedBuffer> imports_;
};

}  // namespace swinup::cuda
