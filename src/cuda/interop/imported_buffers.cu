#include "cuda/interop/imported_buffers.cuh"

#include <unistd.h>

#include <string>
#include <utility>

#include "cuda/interop/exported_fd.cuh"
#include "cuda/interop/interop_error.cuh"

namespace swinup::cuda {

ImportedBuffers::ImportedBuffers(VkDevice device, PFN_vkGetMemoryFdKHR get_memory_fd, std::function<void()> finish)
    : device_(device), get_memory_fd_(get_memory_fd), finish_(std::move(finish)) {}

ImportedBuffers::~ImportedBuffers() {
    for (auto& [key, buffer] : imports_) destroy(buffer);
}

ImportedBuffers::Key ImportedBuffers::key_of(const swinup_vulkan_buffer& b) {
    return Key{b.buffer, b.memory, b.memory_offset, b.memory_size, b.size, b.dedicated};
}

const ImportedBuffer& ImportedBuffers::get(const swinup_vulkan_buffer& buffer, const char* name) {
    const Key key = key_of(buffer);
    auto it = imports_.find(key);
    if (it != imports_.end()) return it->second;
    // The same handle under another key is a buffer that was destroyed (a handle is bound to one
    // memory for its life): its old import goes before the new one is made.
    bool stale = false;
    for (const auto& [k, imported] : imports_) stale = stale || std::get<0>(k) == buffer.buffer;
    if (stale) release(buffer.buffer);
    return imports_.emplace(key, import(buffer, name)).first->second;
}

ImportedBuffer ImportedBuffers::import(const swinup_vulkan_buffer& buffer, const char* name) {
    const std::string field = std::string("vulkan_dispatch.") + name;
    VkMemoryGetFdInfoKHR fd_info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    fd_info.memory = buffer.memory;
    fd_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    const int fd = exported_fd(get_memory_fd_, device_, fd_info, field + ".memory: vkGetMemoryFdKHR",
                               "the memory is not exportable as VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT "
                               "(allocate it with VkExportMemoryAllocateInfo)");

    ImportedBuffer out;
    cudaExternalMemoryHandleDesc memory_desc{};
    memory_desc.type = cudaExternalMemoryHandleTypeOpaqueFd;
    memory_desc.handle.fd = fd;
    memory_desc.size = buffer.memory_size;
    memory_desc.flags = buffer.dedicated ? cudaExternalMemoryDedicated : 0;
    cudaError_t status = cudaImportExternalMemory(&out.memory, &memory_desc);
    if (status != cudaSuccess) {
        cudaGetLastError();
        close(fd);  // CUDA owns the descriptor only once the import succeeded
        throw InteropError(SWINUP_STATUS_INVALID_ARGUMENT,
                           field + ".memory: cudaImportExternalMemory failed (" + cudaGetErrorName(status) + ": " +
                               cudaGetErrorString(status) + "): is the memory of this device, of memory_size " +
                               std::to_string(buffer.memory_size) + " bytes, and dedicated as `dedicated` says?");
    }
    cudaExternalMemoryBufferDesc buffer_desc{};
    buffer_desc.offset = buffer.memory_offset;
    buffer_desc.size = buffer.size;
    status = cudaExternalMemoryGetMappedBuffer(&out.data, out.memory, &buffer_desc);
    if (status != cudaSuccess) {
        cudaGetLastError();
        destroy(out);
        throw InteropError(SWINUP_STATUS_INVALID_ARGUMENT,
                           field + ": cudaExternalMemoryGetMappedBuffer failed (" + cudaGetErrorName(status) + ": " +
                               cudaGetErrorString(status) + ") for " + std::to_string(buffer.size) +
                               " bytes at memory_offset " + std::to_string(buffer.memory_offset));
    }
    return out;
}

void ImportedBuffers::destroy(const ImportedBuffer& buffer) {
    // The mapped pointer is freed with cudaFree before its memory goes (CUDA's rule for mappings).
    if (buffer.data != nullptr) cudaFree(buffer.data);
    if (buffer.memory != nullptr) cudaDestroyExternalMemory(buffer.memory);
}

void ImportedBuffers::release(VkBuffer buffer) {
    bool any = false;
    for (const auto& [key, imported] : imports_) any = any || buffer == VK_NULL_HANDLE || std::get<0>(key) == buffer;
    if (!any) return;
    finish_();
    for (auto it = imports_.begin(); it != imports_.end();) {
        if (buffer == VK_NULL_HANDLE || std::get<0>(it->first) == buffer) {
            destroy(it->second);
            it = imports_.erase(it);
        } else {
            ++it;
        }
    }
}

}  // namespace swinup::cuda
