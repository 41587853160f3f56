// The application's timeline semaphores imported into CUDA, once each: exported with
// vkGetSemaphoreFdKHR (opaque fd) and imported with cudaImportExternalSemaphore as a timeline
// semaphore, which the context's stream waits on and signals (cudaWait/SignalExternalSemaphoresAsync).
#pragma once

#include <cuda_runtime.h>
#include <vulkan/vulkan.h>

#include <functional>
#include <map>

namespace swinup::cuda {

class ImportedSemaphores {
public:
    ImportedSemaphores(VkDevice device, PFN_vkGetSemaphoreFdKHR get_semaphore_fd, std::function<void()> finish);
    ~ImportedSemaphores();
    ImportedSemaphores(const ImportedSemaphores&) = delete;
    ImportedSemaphores& operator=(const ImportedSemaphores&) = delete;

    // The import of `semaphore`, made on first use. Throws InteropError naming
    // "vulkan_dispatch.<name>" when Vulkan or CUDA refuses it.
    cudaExternalSemaphore_t get(VkSemaphore semaphore, const char* name);
    // Releases the import of `semaphore` (VK_NULL_HANDLE: all) after `finish`.
    void release(VkSemaphore semaphore);

private:
    VkDevice device_;
    PFN_vkGetSemaphoreFdKHR get_semaphore_fd_;
    std::function<void()> finish_;
    std::map<VkSemaphore, cudaExternalSemaphore_t> imports_;
};

}  // namespace swinup::cuda
