#include "cuda/interop/imported_semaphores.cuh"

#include <unistd.h>

#include <string>
#include <utility>

#include "cuda/interop/exported_fd.cuh"
#include "cuda/interop/interop_error.cuh"

namespace swinup::cuda {

ImportedSemaphores::ImportedSemaphores(VkDevice device, PFN_vkGetSemaphoreFdKHR get_semaphore_fd,
                                       std::function<void()> finish)
    : device_(device), get_semaphore_fd_(get_semaphore_fd), finish_(std::move(finish)) {}

ImportedSemaphores::~ImportedSemaphores() {
    for (auto& [handle, imported] : imports_) cudaDestroyExternalSemaphore(imported);
}

cudaExternalSemaphore_t ImportedSemaphores::get(VkSemaphore semaphore, const char* name) {
    auto it = imports_.find(semaphore);
    if (it != imports_.end()) return it->second;
    const std::string field = std::string("vulkan_dispatch.") + name;
    VkSemaphoreGetFdInfoKHR fd_info{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    fd_info.semaphore = semaphore;
    fd_info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    const int fd = exported_fd(get_semaphore_fd_, device_, fd_info, field + ": vkGetSemaphoreFdKHR",
                               "the semaphore is not exportable as VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT "
                               "(create it with VkExportSemaphoreCreateInfo and VkSemaphoreTypeCreateInfo "
                               "VK_SEMAPHORE_TYPE_TIMELINE)");
    cudaExternalSemaphoreHandleDesc desc{};
    desc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
    desc.handle.fd = fd;
    cudaExternalSemaphore_t imported = nullptr;
    const cudaError_t status = cudaImportExternalSemaphore(&imported, &desc);
    if (status != cudaSuccess) {
        cudaGetLastError();
        close(fd);  // CUDA owns the descriptor only once the import succeeded
        throw InteropError(SWINUP_STATUS_INVALID_ARGUMENT,
                           field + ": cudaImportExternalSemaphore failed (" + cudaGetErrorName(status) + ": " +
                               cudaGetErrorString(status) +
                               "): is it a timeline semaphore of this device (VK_SEMAPHORE_TYPE_TIMELINE)?");
    }
    imports_.emplace(semaphore, imported);
    return imported;
}

void ImportedSemaphores::release(VkSemaphore semaphore) {
    if (imports_.empty() || (semaphore != VK_NULL_HANDLE && imports_.count(semaphore) == 0)) return;
    finish_();
    for (auto it = imports_.begin(); it != imports_.end();) {
        if (semaphore == VK_NULL_HANDLE || it->first == semaphore) {
            cudaDestroyExternalSemaphore(it->second);
            it = imports_.erase(it);
        } else {
            ++it;
        }
    }
}

}  // namespace swinup::cuda
