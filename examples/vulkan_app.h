// The application side of a Vulkan engine that hands its frames to swinup, reduced to what
// examples/vulkan_upscale.cpp, the CUDA-on-Vulkan GPU tests and the interop bench need: an instance
// and a device (with the external-fd extensions and timeline semaphores when the CUDA backend is to
// import its images), images in GENERAL layout (exportable when asked: VkExternalMemoryImageCreateInfo
// and a dedicated VkExportMemoryAllocateInfo allocation, opaque fd), host-visible buffers, and the
// swinup_vulkan_image that describes an image. Header-only: an example program's code.
#pragma once

#include <vulkan/vulkan.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "swinup/swinup.h"
#include "swinup/swinup_vulkan.h"

namespace vulkan_app {

// No device fit for the request on this machine (the caller reports "skipped").
struct Unavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline void check(VkResult result, const char* what) {
    if (result != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed: VkResult " + std::to_string(result));
}
#define VULKAN_APP_CHECK(call) ::vulkan_app::check((call), #call)

inline swinup_format output_format_of(const std::string& name) {
    if (name == "rgba16f") return SWINUP_FORMAT_RGBA16F;
    if (name == "r10g10b10a2") return SWINUP_FORMAT_R10G10B10A2;
    if (name == "rgba8") return SWINUP_FORMAT_RGBA8;
    throw std::runtime_error("--format: rgba16f, r10g10b10a2 or rgba8");
}

inline VkFormat vk_output_format(swinup_format f) {
    return f == SWINUP_FORMAT_RGBA16F       ? VK_FORMAT_R16G16B16A16_SFLOAT
           : f == SWINUP_FORMAT_R10G10B10A2 ? VK_FORMAT_A2B10G10R10_UNORM_PACK32
                                             : VK_FORMAT_R8G8B8A8_UNORM;
}

inline bool has_extension(VkPhysicalDevice physical, const char* name) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> list(n);
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, list.data());
    for (const auto& e : list)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

inline const char* const kExternalExtensions[] = {"VK_KHR_external_memory_fd", "VK_KHR_external_semaphore_fd"};

inline std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The application's Vulkan objects: instance, device, one queue, a command pool.
struct Gpu {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    uint32_t family = 0;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    uint32_t api_version = VK_API_VERSION_1_2;
    std::vector<const char*> extensions;
    // The feature chain the device was created with (swinup reads it).
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};

    explicit Gpu(bool external) {
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.pApplicationName = "vulkan_upscale";
        app.apiVersion = VK_API_VERSION_1_3;  // what the device offers up to 1.3 is used
        VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        info.pApplicationInfo = &app;
        if (vkCreateInstance(&info, nullptr, &instance) != VK_SUCCESS) throw Unavailable("no Vulkan instance (no loader or ICD)");
        choose_physical(external);
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(physical, &props);
        if (props.apiVersion < VK_API_VERSION_1_2) throw Unavailable(std::string(props.deviceName) + " has no Vulkan 1.2");
        const bool v13 = props.apiVersion >= VK_API_VERSION_1_3;
        api_version = v13 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;
        choose_family();
        // The optional features swinup's own device would enable, and timeline semaphores.
        VkPhysicalDeviceFeatures2 available{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
        VkPhysicalDeviceVulkan11Features a11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
        VkPhysicalDeviceVulkan12Features a12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        available.pNext = &a11;
        VkPhysicalDeviceVulkan13Features a13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
        a11.pNext = &a12;
        if (v13) a12.pNext = &a13;
        vkGetPhysicalDeviceFeatures2(physical, &available);
        if (!a12.timelineSemaphore) throw Unavailable(std::string(props.deviceName) + " has no timeline semaphores");
        features.features.shaderInt64 = available.features.shaderInt64;
        features.features.shaderFloat64 = available.features.shaderFloat64;
        features.pNext = &f11;
        f11.pNext = &f12;
        if (v13) {
            f12.pNext = &f13;
            f13.subgroupSizeControl = a13.subgroupSizeControl;
            f13.computeFullSubgroups = a13.computeFullSubgroups;
        }
        f11.storageBuffer16BitAccess = a11.storageBuffer16BitAccess;
        f12.shaderFloat16 = a12.shaderFloat16;
        f12.shaderInt8 = a12.shaderInt8;
        f12.storageBuffer8BitAccess = a12.storageBuffer8BitAccess;
        f12.timelineSemaphore = VK_TRUE;
        if (external) extensions.assign(std::begin(kExternalExtensions), std::end(kExternalExtensions));

        const float priority = 1.0f;
        VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        queue_info.queueFamilyIndex = family;
        queue_info.queueCount = 1;
        queue_info.pQueuePriorities = &priority;
        VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
        device_info.pNext = &features;
        device_info.queueCreateInfoCount = 1;
        device_info.pQueueCreateInfos = &queue_info;
        device_info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
        device_info.ppEnabledExtensionNames = extensions.data();
        VULKAN_APP_CHECK(vkCreateDevice(physical, &device_info, nullptr, &device));
        vkGetDeviceQueue(device, family, 0, &queue);
        VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pool_info.queueFamilyIndex = family;
        VULKAN_APP_CHECK(vkCreateCommandPool(device, &pool_info, nullptr, &pool));
    }

    Gpu(const Gpu&) = delete;  // the feature chain points into the object
    Gpu& operator=(const Gpu&) = delete;

    ~Gpu() {
        if (device != VK_NULL_HANDLE) {
            vkDeviceWaitIdle(device);
            vkDestroyCommandPool(device, pool, nullptr);
            vkDestroyDevice(device, nullptr);
        }
        vkDestroyInstance(instance, nullptr);
    }

    void choose_physical(bool external) {
        uint32_t n = 0;
        vkEnumeratePhysicalDevices(instance, &n, nullptr);
        std::vector<VkPhysicalDevice> devices(n);
        vkEnumeratePhysicalDevices(instance, &n, devices.data());
        const char* env = std::getenv("SWINUP_VULKAN_DEVICE");
        const std::string wanted = env != nullptr ? env : "";
        for (uint32_t i = 0; i < n; ++i) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(devices[i], &p);
            bool match;
            if (!wanted.empty()) {
                const bool index = wanted.find_first_not_of("0123456789") == std::string::npos;
                match = index ? std::to_string(i) == wanted : lower(p.deviceName).find(lower(wanted)) != std::string::npos;
            } else {
                match = !external || p.vendorID == 0x10DE;
            }
            if (match && external) {
                for (const char* e : kExternalExtensions) match = match && has_extension(devices[i], e);
            }
            if (match) {
                physical = devices[i];
                return;
            }
        }
        throw Unavailable(external ? "no NVIDIA Vulkan device with VK_KHR_external_memory_fd and VK_KHR_external_semaphore_fd"
                            : "no Vulkan device" + (wanted.empty() ? std::string() : " matching " + wanted));
    }

    void choose_family() {
        uint32_t n = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &n, nullptr);
        std::vector<VkQueueFamilyProperties> families(n);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &n, families.data());
        for (uint32_t i = 0; i < n; ++i) {
            if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
                family = i;
                return;
            }
        }
        throw Unavailable("the device has no compute queue");
    }

    uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags wanted) const {
        VkPhysicalDeviceMemoryProperties props;
        vkGetPhysicalDeviceMemoryProperties(physical, &props);
        for (uint32_t i = 0; i < props.memoryTypeCount; ++i)
            if ((bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
        throw std::runtime_error("no suitable memory type");
    }
};

// One of the application's images. Exportable (for the CUDA backend): created with
// VkExternalMemoryImageCreateInfo and bound to a dedicated allocation made with
// VkExportMemoryAllocateInfo, both of the opaque fd handle type.
struct AppImage {
    const Gpu* gpu = nullptr;
    VkImage image = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkDeviceSize memory_size = 0;
    VkFormat format = VK_FORMAT_UNDEFINED;
    uint32_t width = 0, height = 0;
    VkImageUsageFlags usage = 0;
    bool exportable = false;

    AppImage(const Gpu& g, VkFormat f, uint32_t w, uint32_t h, VkImageUsageFlags u, bool external)
        : gpu(&g), format(f), width(w), height(h), usage(u), exportable(external) {
        VkExternalMemoryImageCreateInfo external_info{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
        external_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
        VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
        info.pNext = external ? &external_info : nullptr;
        info.imageType = VK_IMAGE_TYPE_2D;
        info.format = f;
        info.extent = {w, h, 1};
        info.mipLevels = 1;
        info.arrayLayers = 1;
        info.samples = VK_SAMPLE_COUNT_1_BIT;
        info.tiling = VK_IMAGE_TILING_OPTIMAL;
        info.usage = u;
        info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        VULKAN_APP_CHECK(vkCreateImage(g.device, &info, nullptr, &image));
        VkMemoryRequirements req;
        vkGetImageMemoryRequirements(g.device, image, &req);
        VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
        dedicated.image = image;
        VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
        export_info.pNext = &dedicated;
        export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
        VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        alloc.pNext = external ? &export_info : nullptr;
        alloc.allocationSize = req.size;
        alloc.memoryTypeIndex = g.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        VULKAN_APP_CHECK(vkAllocateMemory(g.device, &alloc, nullptr, &memory));
        memory_size = req.size;
        VULKAN_APP_CHECK(vkBindImageMemory(g.device, image, memory, 0));
        VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        view_info.image = image;
        view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
        view_info.format = f;
        view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        VULKAN_APP_CHECK(vkCreateImageView(g.device, &view_info, nullptr, &view));
    }
    AppImage(const AppImage&) = delete;
    AppImage& operator=(const AppImage&) = delete;
    ~AppImage() {
        vkDestroyImageView(gpu->device, view, nullptr);
        vkDestroyImage(gpu->device, image, nullptr);
        vkFreeMemory(gpu->device, memory, nullptr);
    }

    // As swinup_vulkan.h describes it: always in GENERAL here (one layout for copies and swinup).
    swinup_vulkan_image desc() const {
        swinup_vulkan_image d{};
        d.image = image;
        d.view = view;
        d.format = format;
        d.width = width;
        d.height = height;
        d.layout = VK_IMAGE_LAYOUT_GENERAL;
        d.usage = usage;
        d.memory = memory;
        d.memory_offset = 0;
        d.memory_size = memory_size;
        d.memory_handle_type =
            exportable ? VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT : static_cast<VkExternalMemoryHandleTypeFlagBits>(0);
        d.dedicated = exportable ? VK_TRUE : VK_FALSE;
        d.tiling = VK_IMAGE_TILING_OPTIMAL;
        d.mip_levels = 1;
        return d;
    }
};

// A host-visible buffer the uploads are written to and the output is read back from.
struct HostBuffer {
    const Gpu* gpu;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* mapped = nullptr;
    VkDeviceSize size;

    HostBuffer(const Gpu& g, VkDeviceSize bytes, VkBufferUsageFlags usage) : gpu(&g), size(bytes) {
        VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        info.size = bytes;
        info.usage = usage;
        VULKAN_APP_CHECK(vkCreateBuffer(g.device, &info, nullptr, &buffer));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(g.device, buffer, &req);
        VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        alloc.allocationSize = req.size;
        alloc.memoryTypeIndex = g.memory_type(
            req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        VULKAN_APP_CHECK(vkAllocateMemory(g.device, &alloc, nullptr, &memory));
        VULKAN_APP_CHECK(vkBindBufferMemory(g.device, buffer, memory, 0));
        VULKAN_APP_CHECK(vkMapMemory(g.device, memory, 0, VK_WHOLE_SIZE, 0, &mapped));
    }
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    ~HostBuffer() {
        vkDestroyBuffer(gpu->device, buffer, nullptr);
        vkFreeMemory(gpu->device, memory, nullptr);
    }
};

inline void copy_buffer_to_image(VkCommandBuffer cmd, const HostBuffer& buffer, const AppImage& image) {
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {image.width, image.height, 1};
    vkCmdCopyBufferToImage(cmd, buffer.buffer, image.image, VK_IMAGE_LAYOUT_GENERAL, 1, &region);
}

inline void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src, VkPipelineStageFlags dst_stage,
                    VkAccessFlags dst) {
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = src;
    barrier.dstAccessMask = dst;
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

// The first use of the images: from UNDEFINED into GENERAL, where they stay.
inline void to_general(VkCommandBuffer cmd, const std::vector<const AppImage*>& images) {
    std::vector<VkImageMemoryBarrier> barriers;
    for (const AppImage* i : images) {
        VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
        b.srcAccessMask = 0;
        b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
        b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        b.image = i->image;
        b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        barriers.push_back(b);
    }
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr, 0, nullptr,
                         static_cast<uint32_t>(barriers.size()), barriers.data());
}

inline swinup_vulkan_device_desc device_desc(const Gpu& gpu) {
    swinup_vulkan_device_desc device;
    swinup_vulkan_device_desc_init(&device);
    device.instance = gpu.instance;
    device.physical_device = gpu.physical;
    device.device = gpu.device;
    device.queue_family_index = gpu.family;
    device.api_version = gpu.api_version;
    device.get_instance_proc_addr = vkGetInstanceProcAddr;
    device.get_device_proc_addr = vkGetDeviceProcAddr;
    device.enabled_extension_count = static_cast<uint32_t>(gpu.extensions.size());
    device.enabled_extensions = gpu.extensions.data();
    device.enabled_features = &gpu.features;
    return device;
}

}  // namespace vulkan_app
