// The application side of a Vulkan engine that hands its frames to swinup, reduced to what
// examples/vulkan_upscale.cpp, the Vulkan tests and the interop bench need: an instance and a
// device (with the external-fd extensions and timeline semaphores when the CUDA backend is to
// import its images), images (exportable when asked: VkExternalMemoryImageCreateInfo and a dedicated
// VkExportMemoryAllocateInfo allocation, opaque fd), host-visible buffers, command buffers, timeline
// semaphores and their submits, and the swinup_vulkan_image that describes an image. Header-only:
// an example program's code; the tests' device (tests/vulkan/vulkan_test_device.h) is built from
// the same pieces.
#pragma once

#include <vulkan/vulkan.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
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

// Calls a vkCreate* function with `args` (the allocator null) and returns the handle it made.
template <typename Handle, typename Create, typename... Args>
Handle created(const char* what, Create create, Args... args) {
    Handle handle = VK_NULL_HANDLE;
    check(create(args..., nullptr, &handle), what);
    return handle;
}

// Calls on_option(argument, value) for each command-line argument; value() takes the next
// argument as the option's value (an error names the option when there is none).
template <typename OnOption>
void parse_arguments(int argc, char** argv, OnOption on_option) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
            return argv[++i];
        };
        on_option(a, value);
    }
}

// A program's main: `run()`'s exit status; 77 when no device fits (the tests report "skipped");
// 1 with the message on any other failure.
template <typename Run>
int run_program(const char* program, Run run) {
    try {
        return run();
    } catch (const Unavailable& e) {
        std::fprintf(stderr, "%s: skipped: %s\n", program, e.what());
        return 77;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", program, e.what());
        return 1;
    }
}

inline swinup_format output_format_of(const std::string& name) {
    if (name == "rgba16f") return SWINUP_FORMAT_RGBA16F;
    if (name == "r10g10b10a2") return SWINUP_FORMAT_R10G10B10A2;
    if (name == "rgba8") return SWINUP_FORMAT_RGBA8;
    if (name == "b10g11r11f") return SWINUP_FORMAT_B10G11R11F;
    throw std::runtime_error("--format: rgba16f, r10g10b10a2, rgba8 or b10g11r11f");
}

inline VkFormat vk_output_format(swinup_format f) {
    return f == SWINUP_FORMAT_RGBA16F       ? VK_FORMAT_R16G16B16A16_SFLOAT
           : f == SWINUP_FORMAT_R10G10B10A2 ? VK_FORMAT_A2B10G10R10_UNORM_PACK32
           : f == SWINUP_FORMAT_B10G11R11F  ? VK_FORMAT_B10G11R11_UFLOAT_PACK32
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

// The device SWINUP_VULKAN_DEVICE names (an index or a name substring, any case) when it is set;
// else the first device (`external`: the first NVIDIA device). `external` also asks for both
// external-fd extensions.
inline VkPhysicalDevice choose_physical(VkInstance instance, bool external) {
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
        if (match) return devices[i];
    }
    throw Unavailable(external ? "no NVIDIA Vulkan device with VK_KHR_external_memory_fd and VK_KHR_external_semaphore_fd"
                        : "no Vulkan device" + (wanted.empty() ? std::string() : " matching " + wanted));
}

// The first queue family with compute.
inline uint32_t compute_family(VkPhysicalDevice physical) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &n, families.data());
    for (uint32_t i = 0; i < n; ++i)
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return i;
    throw Unavailable("the device has no compute queue");
}

inline uint32_t memory_type(VkPhysicalDevice physical, uint32_t bits, VkMemoryPropertyFlags wanted) {
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(physical, &props);
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
    throw std::runtime_error("no suitable memory type");
}

// A device with one queue of `family`, the feature chain `features` (VkPhysicalDeviceFeatures2)
// and the extensions enabled.
inline VkDevice create_device(VkPhysicalDevice physical, uint32_t family, const void* features,
                              const std::vector<const char*>& extensions) {
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueFamilyIndex = family;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    device_info.pNext = features;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    device_info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    device_info.ppEnabledExtensionNames = extensions.data();
    return created<VkDevice>("vkCreateDevice", vkCreateDevice, physical, &device_info);
}

// A pool whose command buffers can be reset one by one.
inline VkCommandPool create_command_pool(VkDevice device, uint32_t family) {
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool_info.queueFamilyIndex = family;
    return created<VkCommandPool>("vkCreateCommandPool", vkCreateCommandPool, device, &pool_info);
}

// VK_KHR_cooperative_matrix (Vulkan headers 1.3.255 and later; declared here for older ones such
// as Debian 12's): enabling it lets swinup run fast mode's GEMM on the matrix units.
#ifndef VK_KHR_cooperative_matrix
#define VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME "VK_KHR_cooperative_matrix"
constexpr VkStructureType kStructureTypeCooperativeMatrixFeatures = VkStructureType(1000506000);
struct VkPhysicalDeviceCooperativeMatrixFeaturesKHR {
    VkStructureType sType;
    void* pNext;
    VkBool32 cooperativeMatrix;
    VkBool32 cooperativeMatrixRobustBufferAccess;
};
#else
constexpr VkStructureType kStructureTypeCooperativeMatrixFeatures =
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR;
#endif

inline bool has_device_extension(VkPhysicalDevice physical, const char* name) {
    uint32_t count = 0;
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> all(count);
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, all.data());
    for (const VkExtensionProperties& e : all)
        if (std::string(e.extensionName) == name) return true;
    return false;
}

// The feature structures a device is queried and created with: core -> v11 -> v12 (-> v13 once
// link(true)). Not copyable: the chain points into the object.
struct FeatureChain {
    VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR matrix{kStructureTypeCooperativeMatrixFeatures};

    FeatureChain() { link(false); }
    FeatureChain(const FeatureChain&) = delete;
    FeatureChain& operator=(const FeatureChain&) = delete;

    // with_13: the Vulkan 1.3 structure is in the chain (a 1.3 device); with_matrix: the
    // cooperative-matrix one too (the device has VK_KHR_cooperative_matrix).
    void link(bool with_13, bool with_matrix = false) {
        core.pNext = &v11;
        v11.pNext = &v12;
        v12.pNext = with_13 ? &v13 : nullptr;
        v13.pNext = with_13 && with_matrix ? &matrix : nullptr;
    }
};

// An application's Vulkan objects: instance, device, one queue of `family`, a command pool.
struct DeviceHandles {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    uint32_t family = 0;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
};

// The application's device: the optional features swinup would enable, timeline semaphores, and
// (`external`) the external-fd extensions.
struct Gpu : DeviceHandles {
    uint32_t api_version = VK_API_VERSION_1_2;
    std::vector<const char*> extensions;
    FeatureChain enabled;  // the features the device was created with (swinup reads them)

    explicit Gpu(bool external) {
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.pApplicationName = "vulkan_upscale";
        app.apiVersion = VK_API_VERSION_1_3;  // what the device offers up to 1.3 is used
        VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        info.pApplicationInfo = &app;
        if (vkCreateInstance(&info, nullptr, &instance) != VK_SUCCESS) throw Unavailable("no Vulkan instance (no loader or ICD)");
        physical = choose_physical(instance, external);
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(physical, &props);
        if (props.apiVersion < VK_API_VERSION_1_2) throw Unavailable(std::string(props.deviceName) + " has no Vulkan 1.2");
        const bool v13 = props.apiVersion >= VK_API_VERSION_1_3;
        api_version = v13 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;
        family = compute_family(physical);
        // The optional features swinup's own device would enable, and timeline semaphores.
        const bool matrix = v13 && has_device_extension(physical, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
        FeatureChain available;
        available.link(v13, matrix);
        vkGetPhysicalDeviceFeatures2(physical, &available.core);
        if (!available.v12.timelineSemaphore) throw Unavailable(std::string(props.deviceName) + " has no timeline semaphores");
        enabled.link(v13, matrix);
        enabled.core.features.shaderInt64 = available.core.features.shaderInt64;
        enabled.core.features.shaderFloat64 = available.core.features.shaderFloat64;
        enabled.v11.storageBuffer16BitAccess = available.v11.storageBuffer16BitAccess;
        enabled.v12.shaderFloat16 = available.v12.shaderFloat16;
        enabled.v12.shaderInt8 = available.v12.shaderInt8;
        enabled.v12.storageBuffer8BitAccess = available.v12.storageBuffer8BitAccess;
        enabled.v12.timelineSemaphore = VK_TRUE;
        enabled.v13.subgroupSizeControl = available.v13.subgroupSizeControl;  // zero without 1.3
        enabled.v13.computeFullSubgroups = available.v13.computeFullSubgroups;
        if (external) extensions.assign(std::begin(kExternalExtensions), std::end(kExternalExtensions));
        // The matrix path (swinup_vulkan.h): the extension and its feature, with the f16
        // arithmetic, memory model and LocalSizeId its shaders use.
        if (matrix && available.matrix.cooperativeMatrix && available.v12.shaderFloat16 &&
            available.v12.vulkanMemoryModel && available.v12.vulkanMemoryModelDeviceScope &&
            available.v13.maintenance4) {
            enabled.matrix.cooperativeMatrix = VK_TRUE;
            enabled.v12.vulkanMemoryModel = VK_TRUE;
            enabled.v12.vulkanMemoryModelDeviceScope = VK_TRUE;
            enabled.v13.maintenance4 = VK_TRUE;
            extensions.push_back(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
        }

        device = create_device(physical, family, &enabled.core, extensions);
        vkGetDeviceQueue(device, family, 0, &queue);
        pool = create_command_pool(device, family);
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

    uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags wanted) const {
        return vulkan_app::memory_type(physical, bits, wanted);
    }
};

// An image as swinup_vulkan.h describes it: handles, format, size, the layout it is in when
// swinup's work runs, and its usage; the memory fields (read by the CUDA backend's import) zero.
inline swinup_vulkan_image image_desc(VkImage image, VkImageView view, VkFormat format, uint32_t width,
                                      uint32_t height, VkImageLayout layout, VkImageUsageFlags usage) {
    swinup_vulkan_image d{};
    d.image = image;
    d.view = view;
    d.format = format;
    d.width = width;
    d.height = height;
    d.layout = layout;
    d.usage = usage;
    return d;
}

// The aspect a view of the image and a copy into it use: the depth aspect of a depth format (the
// only one swinup reads of a depth-stencil buffer).
inline VkImageAspectFlags aspect_of(VkFormat format) {
    switch (format) {
        case VK_FORMAT_D32_SFLOAT: case VK_FORMAT_D24_UNORM_S8_UINT: case VK_FORMAT_D32_SFLOAT_S8_UINT:
            return VK_IMAGE_ASPECT_DEPTH_BIT;
        default: return VK_IMAGE_ASPECT_COLOR_BIT;
    }
}

// The aspects a layout transition of the whole image names: both of a depth-stencil format.
inline VkImageAspectFlags barrier_aspect_of(VkFormat format) {
    if (format == VK_FORMAT_D24_UNORM_S8_UINT || format == VK_FORMAT_D32_SFLOAT_S8_UINT) {
        return VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
    }
    return aspect_of(format);
}

// A 2D image of one mip level in optimal tiling, bound to its own device-local allocation, with a
// view of it (the depth aspect for a depth format). Nothing owns it; destroy_image frees it.
struct Image {
    VkImage image = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkDeviceSize memory_size = 0;
    VkFormat format = VK_FORMAT_UNDEFINED;
    uint32_t width = 0, height = 0;
    VkImageUsageFlags usage = 0;

    swinup_vulkan_image described(VkImageLayout layout) const {
        return image_desc(image, view, format, width, height, layout, usage);
    }
};

// `exportable` (for the CUDA backend): created with VkExternalMemoryImageCreateInfo and bound to a
// dedicated allocation made with VkExportMemoryAllocateInfo, both of the opaque fd handle type.
inline Image create_image(VkDevice device, VkPhysicalDevice physical, VkFormat format, uint32_t width, uint32_t height,
                          VkImageUsageFlags usage, bool exportable) {
    Image i;
    i.format = format;
    i.width = width;
    i.height = height;
    i.usage = usage;
    VkExternalMemoryImageCreateInfo external_info{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
    external_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.pNext = exportable ? &external_info : nullptr;
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = format;
    info.extent = {width, height, 1};
    info.mipLevels = 1;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = usage;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VULKAN_APP_CHECK(vkCreateImage(device, &info, nullptr, &i.image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device, i.image, &req);
    VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    dedicated.image = i.image;
    VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    export_info.pNext = &dedicated;
    export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.pNext = exportable ? &export_info : nullptr;
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = memory_type(physical, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VULKAN_APP_CHECK(vkAllocateMemory(device, &alloc, nullptr, &i.memory));
    i.memory_size = req.size;
    VULKAN_APP_CHECK(vkBindImageMemory(device, i.image, i.memory, 0));
    VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view_info.image = i.image;
    view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view_info.format = format;
    view_info.subresourceRange = {aspect_of(format), 0, 1, 0, 1};
    VULKAN_APP_CHECK(vkCreateImageView(device, &view_info, nullptr, &i.view));
    return i;
}

inline void destroy_image(VkDevice device, const Image& i) {
    vkDestroyImageView(device, i.view, nullptr);
    vkDestroyImage(device, i.image, nullptr);
    vkFreeMemory(device, i.memory, nullptr);
}

// One of the application's images, owned (destroyed with it).
struct AppImage : Image {
    const Gpu* gpu = nullptr;
    bool exportable = false;

    AppImage(const Gpu& g, VkFormat f, uint32_t w, uint32_t h, VkImageUsageFlags u, bool external)
        : Image(create_image(g.device, g.physical, f, w, h, u, external)), gpu(&g), exportable(external) {}
    AppImage(const AppImage&) = delete;
    AppImage& operator=(const AppImage&) = delete;
    ~AppImage() { destroy_image(gpu->device, *this); }

    // As swinup_vulkan.h describes it: always in GENERAL here (one layout for copies and swinup).
    swinup_vulkan_image desc() const {
        swinup_vulkan_image d = described(VK_IMAGE_LAYOUT_GENERAL);
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
    VkDevice device = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* mapped = nullptr;
    VkDeviceSize size;

    HostBuffer(VkDevice d, VkPhysicalDevice physical, VkDeviceSize bytes, VkBufferUsageFlags usage)
        : device(d), size(bytes) {
        VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        info.size = bytes;
        info.usage = usage;
        VULKAN_APP_CHECK(vkCreateBuffer(device, &info, nullptr, &buffer));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device, buffer, &req);
        VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        alloc.allocationSize = req.size;
        alloc.memoryTypeIndex = memory_type(physical, req.memoryTypeBits,
                                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        VULKAN_APP_CHECK(vkAllocateMemory(device, &alloc, nullptr, &memory));
        VULKAN_APP_CHECK(vkBindBufferMemory(device, buffer, memory, 0));
        VULKAN_APP_CHECK(vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &mapped));
    }
    HostBuffer(const Gpu& g, VkDeviceSize bytes, VkBufferUsageFlags usage)
        : HostBuffer(g.device, g.physical, bytes, usage) {}
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    ~HostBuffer() {
        vkDestroyBuffer(device, buffer, nullptr);
        vkFreeMemory(device, memory, nullptr);
    }
};

// A device-local buffer of the application's that the CUDA backend reads or writes (swinup_vulkan_buffer):
// created with VkExternalMemoryBufferCreateInfo and bound to a dedicated allocation made with
// VkExportMemoryAllocateInfo, both of the opaque fd handle type; a transfer source and destination
// (the application's uploads and read-backs are buffer copies).
struct ExportableBuffer {
    VkDevice device = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0, memory_size = 0;

    ExportableBuffer(const Gpu& g, VkDeviceSize bytes) : device(g.device), size(bytes) {
        VkExternalMemoryBufferCreateInfo external_info{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
        external_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
        VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        info.pNext = &external_info;
        info.size = bytes;
        info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        VULKAN_APP_CHECK(vkCreateBuffer(device, &info, nullptr, &buffer));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device, buffer, &req);
        VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
        dedicated.buffer = buffer;
        VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
        export_info.pNext = &dedicated;
        export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
        VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        alloc.pNext = &export_info;
        alloc.allocationSize = req.size;
        alloc.memoryTypeIndex = memory_type(g.physical, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        VULKAN_APP_CHECK(vkAllocateMemory(device, &alloc, nullptr, &memory));
        memory_size = req.size;
        VULKAN_APP_CHECK(vkBindBufferMemory(device, buffer, memory, 0));
    }
    ExportableBuffer(const ExportableBuffer&) = delete;
    ExportableBuffer& operator=(const ExportableBuffer&) = delete;
    ~ExportableBuffer() {
        vkDestroyBuffer(device, buffer, nullptr);
        vkFreeMemory(device, memory, nullptr);
    }

    // Rows of `format`, width x height, packed from `offset`, as swinup_vulkan.h describes them.
    swinup_vulkan_buffer desc(swinup_format format, uint32_t width, uint32_t height, VkDeviceSize offset = 0) const {
        swinup_vulkan_buffer d{};
        d.buffer = buffer;
        d.size = size;
        d.offset = offset;
        d.format = format;
        d.width = width;
        d.height = height;
        d.memory = memory;
        d.memory_size = memory_size;
        d.memory_handle_type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
        d.dedicated = VK_TRUE;
        return d;
    }
};

// The top-left width x height texels of an image, tightly packed in the buffer.
inline VkBufferImageCopy copy_region(VkFormat format, uint32_t width, uint32_t height) {
    VkBufferImageCopy region{};
    region.imageSubresource = {aspect_of(format), 0, 0, 1};
    region.imageExtent = {width, height, 1};
    return region;
}

inline void copy_buffer_to_image(VkCommandBuffer cmd, const HostBuffer& buffer, const Image& image,
                                 VkImageLayout layout = VK_IMAGE_LAYOUT_GENERAL) {
    const VkBufferImageCopy region = copy_region(image.format, image.width, image.height);
    vkCmdCopyBufferToImage(cmd, buffer.buffer, image.image, layout, 1, &region);
}

// Copies the top-left width x height texels (the whole image unless given) into the buffer.
inline void copy_image_to_buffer(VkCommandBuffer cmd, const Image& image, const HostBuffer& buffer,
                                 VkImageLayout layout = VK_IMAGE_LAYOUT_GENERAL, uint32_t width = 0,
                                 uint32_t height = 0) {
    const VkBufferImageCopy region =
        copy_region(image.format, width != 0 ? width : image.width, height != 0 ? height : image.height);
    vkCmdCopyImageToBuffer(cmd, image.image, layout, buffer.buffer, 1, &region);
}

inline void allocate_command_buffers(VkDevice device, VkCommandPool pool, uint32_t count, VkCommandBuffer* cmds) {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = count;
    VULKAN_APP_CHECK(vkAllocateCommandBuffers(device, &alloc, cmds));
}

// Begins recording a command buffer that is submitted once.
inline void begin_once(VkCommandBuffer cmd) {
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VULKAN_APP_CHECK(vkBeginCommandBuffer(cmd, &begin));
}

inline VkFence create_fence(VkDevice device, VkFenceCreateFlags flags = 0) {
    VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    info.flags = flags;
    return created<VkFence>("vkCreateFence", vkCreateFence, device, &info);
}

// A timeline semaphore; `exportable` (opaque fd) for the CUDA backend to import.
inline VkSemaphore create_timeline_semaphore(VkDevice device, bool exportable) {
    VkExportSemaphoreCreateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    export_info.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.pNext = exportable ? &export_info : nullptr;
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    info.pNext = &type;
    return created<VkSemaphore>("vkCreateSemaphore", vkCreateSemaphore, device, &info);
}

// A value of a timeline semaphore to wait for or to signal; no semaphore: none.
struct TimelinePoint {
    VkSemaphore semaphore = VK_NULL_HANDLE;
    uint64_t value = 0;
};

// One submit of `cmd` (VK_NULL_HANDLE: no command buffer) that waits at `wait_stage` for `wait`,
// signals `signal` and then `fence` (each may be empty).
inline void submit(VkQueue queue, VkCommandBuffer cmd, TimelinePoint wait = {}, TimelinePoint signal = {},
                   VkFence fence = VK_NULL_HANDLE, VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT) {
    const uint32_t waits = wait.semaphore != VK_NULL_HANDLE ? 1 : 0;
    const uint32_t signals = signal.semaphore != VK_NULL_HANDLE ? 1 : 0;
    VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    values.waitSemaphoreValueCount = waits;
    values.pWaitSemaphoreValues = &wait.value;
    values.signalSemaphoreValueCount = signals;
    values.pSignalSemaphoreValues = &signal.value;
    VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    info.pNext = waits + signals > 0 ? &values : nullptr;
    info.waitSemaphoreCount = waits;
    info.pWaitSemaphores = &wait.semaphore;
    info.pWaitDstStageMask = &wait_stage;
    info.commandBufferCount = cmd != VK_NULL_HANDLE ? 1 : 0;
    info.pCommandBuffers = &cmd;
    info.signalSemaphoreCount = signals;
    info.pSignalSemaphores = &signal.semaphore;
    VULKAN_APP_CHECK(vkQueueSubmit(queue, 1, &info, fence));
}

// A command buffer of `pool`, begun for one submit (submit_and_wait ends, runs and frees it).
inline VkCommandBuffer begin_one_shot(VkDevice device, VkCommandPool pool) {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    allocate_command_buffers(device, pool, 1, &cmd);
    begin_once(cmd);
    return cmd;
}

inline void submit_and_wait(VkDevice device, VkCommandPool pool, VkQueue queue, VkCommandBuffer cmd) {
    VULKAN_APP_CHECK(vkEndCommandBuffer(cmd));
    submit(queue, cmd);
    VULKAN_APP_CHECK(vkQueueWaitIdle(queue));
    vkFreeCommandBuffers(device, pool, 1, &cmd);
}

inline void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src, VkPipelineStageFlags dst_stage,
                    VkAccessFlags dst) {
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = src;
    barrier.dstAccessMask = dst;
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

// The first use of the images: from UNDEFINED into GENERAL, where they stay.
inline void to_general(VkCommandBuffer cmd, const std::vector<const Image*>& images) {
    std::vector<VkImageMemoryBarrier> barriers;
    for (const Image* i : images) {
        VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
        b.srcAccessMask = 0;
        b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
        b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        b.image = i->image;
        b.subresourceRange = {barrier_aspect_of(i->format), 0, 1, 0, 1};
        barriers.push_back(b);
    }
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr, 0, nullptr,
                         static_cast<uint32_t>(barriers.size()), barriers.data());
}

// The device as an application hands it to swinup_vulkan_context_create.
inline swinup_vulkan_device_desc device_desc(const DeviceHandles& handles, uint32_t api_version,
                                             const std::vector<const char*>& extensions,
                                             const VkPhysicalDeviceFeatures2* features) {
    swinup_vulkan_device_desc d;
    swinup_vulkan_device_desc_init(&d);
    d.instance = handles.instance;
    d.physical_device = handles.physical;
    d.device = handles.device;
    d.queue_family_index = handles.family;
    d.api_version = api_version;
    d.get_instance_proc_addr = vkGetInstanceProcAddr;
    d.get_device_proc_addr = vkGetDeviceProcAddr;
    d.enabled_extension_count = static_cast<uint32_t>(extensions.size());
    d.enabled_extensions = extensions.empty() ? nullptr : extensions.data();
    d.enabled_features = features;
    return d;
}

inline swinup_vulkan_device_desc device_desc(const Gpu& gpu) {
    return device_desc(gpu, gpu.api_version, gpu.extensions, &gpu.enabled.core);
}

}  // namespace vulkan_app
