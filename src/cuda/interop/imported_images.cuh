// The application's VkImages imported into CUDA, once each (swinup_vulkan.h, "The CUDA backend"):
// the memory exported with vkGetMemoryFdKHR (opaque fd) and imported with
// cudaImportExternalMemory, mapped as a mipmapped array of the image's format and extent, level 0
// read through a texture object (inputs) or written through a surface object (the output).
//
// An import is keyed on everything that makes it what it is (image, memory, offset, size, format,
// extent, mip levels, usage, dedicated): a re-created image bound to new memory is a new key. When
// an image handle comes back with another key, the old import of that handle is released, after
// `finish` (the context's CUDA work done) has run.
#pragma once

#include <cuda_runtime.h>
#include <vulkan/vulkan.h>

#include <functional>
#include <map>
#include <tuple>

#include "swinup/swinup_vulkan.h"

namespace swinup::cuda {

struct ImportedImage {
    cudaExternalMemory_t memory = nullptr;
    cudaMipmappedArray_t mipmapped = nullptr;
    cudaArray_t level0 = nullptr;
    cudaTextureObject_t texture = 0;  // made when the image is first read
    cudaSurfaceObject_t surface = 0;  // made when the image is first written
};

class ImportedImages {
public:
    // `get_memory_fd` is the device's vkGetMemoryFdKHR. `finish` waits until no CUDA work of the
    // context reads or writes an import any more.
    ImportedImages(VkDevice device, PFN_vkGetMemoryFdKHR get_memory_fd, std::function<void()> finish);
    ~ImportedImages();  // releases every import (the caller made sure no work uses them)
    ImportedImages(const ImportedImages&) = delete;
    ImportedImages& operator=(const ImportedImages&) = delete;

    enum class Access { kRead, kWrite };
    // The import of `image` (validated by validate_cuda_interop_desc), made on first use. Throws
    // InteropError naming "vulkan_dispatch.<name>" when Vulkan or CUDA refuses it.
    const ImportedImage& get(const swinup_vulkan_image& image, const char* name, Access access);

    // Releases the import(s) of `image` (VK_NULL_HANDLE: all) after `finish`.
    void release(VkImage image);
    size_t size() const { return imports_.size(); }

private:
    using Key = std::tuple<VkImage, VkDeviceMemory, VkDeviceSize, VkDeviceSize, int, uint32_t, uint32_t, uint32_t,
                           VkImageUsageFlags, VkBool32>;
    static Key key_of(const swinup_vulkan_image& image);
    ImportedImage import(const swinup_vulkan_image& image, const char* name);
    static void make_view(ImportedImage* image, const char* name, Access access);
    static void destroy(const ImportedImage& image);

    VkDevice device_;
    PFN_vkGetMemoryFdKHR get_memory_fd_;
    std::function<void()> finish_;
    std::map<Key, ImportedImage> imports_;
};

}  // namespace swinup::cuda
