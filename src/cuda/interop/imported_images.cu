#include "cuda/interop/imported_images.cuh"

#include <unistd.h>

#include <string>
#include <utility>

#include "cuda/interop/exported_fd.cuh"
#include "cuda/interop/interop_error.cuh"
#include "vulkan/runtime/vk_format_name.h"

namespace swinup::cuda {

namespace {

std::string cuda_message(cudaError_t status) {
    return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

// The CUDA element layout of a VkFormat the API accepts (vulkan_image_rules.h). The packed output
// formats are mapped as one 32-bit word per texel: the surface stores the words write_output_pixel
// made, and the array's layout depends only on the texel size.
bool channel_desc_of(VkFormat format, cudaChannelFormatDesc* out) {
    const auto f = cudaChannelFormatKindFloat;
    switch (format) {
        case VK_FORMAT_R16G16B16A16_SFLOAT: *out = cudaCreateChannelDesc(16, 16, 16, 16, f); return true;
        case VK_FORMAT_R32G32B32A32_SFLOAT: *out = cudaCreateChannelDesc(32, 32, 32, 32, f); return true;
        case VK_FORMAT_R32_SFLOAT: *out = cudaCreateChannelDesc(32, 0, 0, 0, f); return true;
        case VK_FORMAT_R16_SFLOAT: *out = cudaCreateChannelDesc(16, 0, 0, 0, f); return true;
        // A mask's UNORM8 codes, read as the integers they are (read_mask_input divides by 255 as
        // the CPU does; the texture unit's normalising read need not round the same way).
        case VK_FORMAT_R8_UNORM: *out = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned); return true;
        case VK_FORMAT_R16G16_SFLOAT: *out = cudaCreateChannelDesc(16, 16, 0, 0, f); return true;
        case VK_FORMAT_R32G32_SFLOAT: *out = cudaCreateChannelDesc(32, 32, 0, 0, f); return true;
        case VK_FORMAT_A2B10G10R10_UNORM_PACK32:
        case VK_FORMAT_R8G8B8A8_UNORM:
            *out = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindUnsigned);
            return true;
        default: return false;
    }
}

}  // namespace

ImportedImages::ImportedImages(VkDevice device, PFN_vkGetMemoryFdKHR get_memory_fd, std::function<void()> finish)
    : device_(device), get_memory_fd_(get_memory_fd), finish_(std::move(finish)) {}

ImportedImages::~ImportedImages() {
    for (auto& [key, image] : imports_) destroy(image);
}

ImportedImages::Key ImportedImages::key_of(const swinup_vulkan_image& i) {
    return Key{i.image,  i.memory, i.memory_offset, i.memory_size, static_cast<int>(i.format), i.width, i.height,
               i.mip_levels == 0 ? 1u : i.mip_levels, i.usage, i.dedicated};
}

const ImportedImage& ImportedImages::get(const swinup_vulkan_image& image, const char* name, Access access) {
    const Key key = key_of(image);
    auto it = imports_.find(key);
    if (it != imports_.end()) {
        make_view(&it->second, name, access);
        return it->second;
    }
    // The same image handle under another key is an image that was destroyed (a handle is bound to
    // one memory for its life): its old import goes before the new one is made.
    bool stale = false;
    for (const auto& [k, imported] : imports_) stale = stale || std::get<0>(k) == image.image;
    if (stale) release(image.image);
    ImportedImage imported = import(image, name);
    try {
        make_view(&imported, name, access);
    } catch (...) {
        destroy(imported);
        throw;
    }
    return imports_.emplace(key, imported).first->second;
}

ImportedImage ImportedImages::import(const swinup_vulkan_image& image, const char* name) {
    const std::string field = std::string("vulkan_dispatch.") + name;
    cudaChannelFormatDesc format{};
    if (!channel_desc_of(image.format, &format)) {
        throw InteropError(SWINUP_STATUS_INVALID_ARGUMENT,
                           field + ".format: " + vulkan::vk_format_name(image.format) +
                               " cannot be mapped by the CUDA import");
    }

    VkMemoryGetFdInfoKHR fd_info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    fd_info.memory = image.memory;
    fd_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    const int fd = exported_fd(get_memory_fd_, device_, fd_info, field + ".memory: vkGetMemoryFdKHR",
                               "the memory is not exportable as VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT "
                               "(allocate it with VkExportMemoryAllocateInfo)");

    ImportedImage out;
    cudaExternalMemoryHandleDesc memory_desc{};
    memory_desc.type = cudaExternalMemoryHandleTypeOpaqueFd;
    memory_desc.handle.fd = fd;
    memory_desc.size = image.memory_size;
    memory_desc.flags = image.dedicated ? cudaExternalMemoryDedicated : 0;
    cudaError_t status = cudaImportExternalMemory(&out.memory, &memory_desc);
    if (status != cudaSuccess) {
        cudaGetLastError();
        close(fd);  // CUDA owns the descriptor only once the import succeeded
        throw InteropError(SWINUP_STATUS_INVALID_ARGUMENT,
                           field + ".memory: cudaImportExternalMemory failed (" + cuda_message(status) +
                               "): is the memory of this device, of memory_size " + std::to_string(image.memory_size) +
                               " bytes, and dedicated as `dedicated` says?");
    }

    // The flags mirror the image's usage, so that CUDA lays the array out as the driver laid the image.
    cudaExternalMemoryMipmappedArrayDesc array_desc{};
    array_desc.offset = image.memory_offset;
    array_desc.formatDesc = format;
    array_desc.extent = make_cudaExtent(image.width, image.height, 0);
    array_desc.numLevels = image.mip_levels == 0 ? 1 : image.mip_levels;
    if ((image.usage & VK_IMAGE_USAGE_STORAGE_BIT) != 0) array_desc.flags |= cudaArraySurfaceLoadStore;
    if ((image.usage & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT) != 0) array_desc.flags |= cudaArrayColorAttachment;
    status = cudaExternalMemoryGetMappedMipmappedArray(&out.mipmapped, out.memory, &array_desc);
    if (status == cudaSuccess) status = cudaGetMipmappedArrayLevel(&out.level0, out.mipmapped, 0);
    if (status != cudaSuccess) {
        cudaGetLastError();
        destroy(out);
        throw InteropError(SWINUP_STATUS_INVALID_ARGUMENT,
                           field + ": cudaExternalMemoryGetMappedMipmappedArray failed (" + cuda_message(status) +
                               ") for a " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                               " image of " + std::to_string(array_desc.numLevels) + " mip level(s) at offset " +
                               std::to_string(image.memory_offset) + ": the import cannot map this image (format, "
                               "tiling, usage or extent as declared?)");
    }

    return out;
}

void ImportedImages::make_view(ImportedImage* image, const char* name, Access access) {
    if ((access == Access::kRead ? image->texture : image->surface) != 0) return;
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = image->level0;
    cudaError_t status;
    if (access == Access::kRead) {
        cudaTextureDesc texture{};
        texture.addressMode[0] = texture.addressMode[1] = cudaAddressModeClamp;
        texture.filterMode = cudaFilterModePoint;
        texture.readMode = cudaReadModeElementType;
        texture.normalizedCoords = 0;
        status = cudaCreateTextureObject(&image->texture, &resource, &texture, nullptr);
    } else {
        status = cudaCreateSurfaceObject(&image->surface, &resource);
    }
    if (status != cudaSuccess) {
        cudaGetLastError();
        throw InteropError(SWINUP_STATUS_INVALID_ARGUMENT,
                           std::string("vulkan_dispatch.") + name + ": " +
                               (access == Access::kRead ? "cudaCreateTextureObject" : "cudaCreateSurfaceObject") +
                               " failed (" + cuda_message(status) + ")" +
                               (access == Access::kWrite ? " (the image needs VK_IMAGE_USAGE_STORAGE_BIT)" : ""));
    }
}

void ImportedImages::destroy(const ImportedImage& image) {
    if (image.texture != 0) cudaDestroyTextureObject(image.texture);
    if (image.surface != 0) cudaDestroySurfaceObject(image.surface);
    if (image.mipmapped != nullptr) cudaFreeMipmappedArray(image.mipmapped);
    if (image.memory != nullptr) cudaDestroyExternalMemory(image.memory);
}

void ImportedImages::release(VkImage image) {
    bool any = false;
    for (const auto& [key, imported] : imports_) any = any || image == VK_NULL_HANDLE || std::get<0>(key) == image;
    if (!any) return;
    finish_();
    for (auto it = imports_.begin(); it != imports_.end();) {
        if (image == VK_NULL_HANDLE || std::get<0>(it->first) == image) {
            destroy(it->second);
            it = imports_.erase(it);
        } else {
            ++it;
        }
    }
}

}  // namespace swinup::cuda
