// vulkan_upscale: a headless Vulkan program that upscales a sequence (`swinup render` output) the
// way a Vulkan engine does: its own instance, device and VkImages, written by its own commands
// frame by frame, upscaled through include/swinup/swinup_vulkan.h by either backend, and the
// output image copied back and written as OUT/out.NNNN.exr. Its output equals `swinup upscale` of
// the same sequence on the same backend byte for byte (examples/check_vulkan_upscale.cmake).
//
//   vulkan_upscale SEQ -o OUT [--backend vulkan|cuda] [--variant lite|full] [--precision exact|fast]
//                  [--format rgba16f|r10g10b10a2|rgba8] [--frames N]
//
// The two backends differ only where the work runs (docs/integration.md, "Vulkan"):
//   vulkan: swinup records the frame into the application's command buffer, between the barrier
//           after the uploads and the barrier before the read-back, all in one submit;
//   cuda:   the images are exportable (VK_KHR_external_memory_fd) and swinup imports them; the
//           upload is submitted signalling a timeline semaphore (exportable,
//           VK_KHR_external_semaphore_fd) to 2i+1, swinup's CUDA work waits for it and signals
//           2i+2, and the read-back submit waits for that. The host waits only for the read-back.
//
// Device: SWINUP_VULKAN_DEVICE (an index or a name substring) when set, else the first device (cuda:
// the first NVIDIA device with both external-fd extensions). Exit status 77: no such device, or the
// backend is not in this build (the test reports it as skipped); 1: any other failure.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "output_decode.h"
#include "sequence/sequence.h"
#include "swinup/swinup.h"
#include "swinup/swinup_vulkan.h"

namespace {

struct Skip : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void check(VkResult result, const char* what) {
    if (result != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed: VkResult " + std::to_string(result));
}
#define VK_CHECK(call) check((call), #call)

struct Options {
    std::string sequence, output;
    std::string backend = "vulkan", variant = "lite", precision = "exact", format = "rgba16f";
    int frames = 0;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
            return argv[++i];
        };
        if (a == "-o" || a == "--output") o.output = value();
        else if (a == "--backend") o.backend = value();
        else if (a == "--variant") o.variant = value();
        else if (a == "--precision") o.precision = value();
        else if (a == "--format") o.format = value();
        else if (a == "--frames") o.frames = std::stoi(value());
        else if (!a.empty() && a[0] == '-') throw std::runtime_error("unknown option " + a);
        else o.sequence = a;
    }
    if (o.sequence.empty() || o.output.empty()) throw std::runtime_error("usage: vulkan_upscale SEQ -o OUT [options]");
    if (o.backend != "vulkan" && o.backend != "cuda") throw std::runtime_error("--backend: vulkan or cuda");
    return o;
}

swinup_format output_format_of(const std::string& name) {
    if (name == "rgba16f") return SWINUP_FORMAT_RGBA16F;
    if (name == "r10g10b10a2") return SWINUP_FORMAT_R10G10B10A2;
    if (name == "rgba8") return SWINUP_FORMAT_RGBA8;
    throw std::runtime_error("--format: rgba16f, r10g10b10a2 or rgba8");
}

VkFormat vk_output_format(swinup_format f) {
    return f == SWINUP_FORMAT_RGBA16F       ? VK_FORMAT_R16G16B16A16_SFLOAT
           : f == SWINUP_FORMAT_R10G10B10A2 ? VK_FORMAT_A2B10G10R10_UNORM_PACK32
                                             : VK_FORMAT_R8G8B8A8_UNORM;
}

bool has_extension(VkPhysicalDevice physical, const char* name) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> list(n);
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, list.data());
    for (const auto& e : list)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

const char* const kExternalExtensions[] = {"VK_KHR_external_memory_fd", "VK_KHR_external_semaphore_fd"};

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

    explicit Gpu(bool external) {
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.pApplicationName = "vulkan_upscale";
        app.apiVersion = VK_API_VERSION_1_2;
        VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        info.pApplicationInfo = &app;
        if (vkCreateInstance(&info, nullptr, &instance) != VK_SUCCESS) throw Skip("no Vulkan instance (no loader or ICD)");
        choose_physical(external);
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(physical, &props);
        if (props.apiVersion < VK_API_VERSION_1_2) throw Skip(std::string(props.deviceName) + " has no Vulkan 1.2");
        choose_family();
        // The optional features swinup's own device would enable, and timeline semaphores.
        VkPhysicalDeviceFeatures2 available{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
        VkPhysicalDeviceVulkan11Features a11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
        VkPhysicalDeviceVulkan12Features a12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        available.pNext = &a11;
        a11.pNext = &a12;
        vkGetPhysicalDeviceFeatures2(physical, &available);
        if (!a12.timelineSemaphore) throw Skip(std::string(props.deviceName) + " has no timeline semaphores");
        features.features.shaderInt64 = available.features.shaderInt64;
        features.features.shaderFloat64 = available.features.shaderFloat64;
        features.pNext = &f11;
        f11.pNext = &f12;
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
        VK_CHECK(vkCreateDevice(physical, &device_info, nullptr, &device));
        vkGetDeviceQueue(device, family, 0, &queue);
        VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pool_info.queueFamilyIndex = family;
        VK_CHECK(vkCreateCommandPool(device, &pool_info, nullptr, &pool));
    }

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
                match = index ? std::to_string(i) == wanted : std::string(p.deviceName).find(wanted) != std::string::npos;
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
        throw Skip(external ? "no NVIDIA Vulkan device with VK_KHR_external_memory_fd and VK_KHR_external_semaphore_fd"
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
        throw Skip("the device has no compute queue");
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
        VK_CHECK(vkCreateImage(g.device, &info, nullptr, &image));
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
        VK_CHECK(vkAllocateMemory(g.device, &alloc, nullptr, &memory));
        memory_size = req.size;
        VK_CHECK(vkBindImageMemory(g.device, image, memory, 0));
        VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        view_info.image = image;
        view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
        view_info.format = f;
        view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        VK_CHECK(vkCreateImageView(g.device, &view_info, nullptr, &view));
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
        VK_CHECK(vkCreateBuffer(g.device, &info, nullptr, &buffer));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(g.device, buffer, &req);
        VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        alloc.allocationSize = req.size;
        alloc.memoryTypeIndex = g.memory_type(
            req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        VK_CHECK(vkAllocateMemory(g.device, &alloc, nullptr, &memory));
        VK_CHECK(vkBindBufferMemory(g.device, buffer, memory, 0));
        VK_CHECK(vkMapMemory(g.device, memory, 0, VK_WHOLE_SIZE, 0, &mapped));
    }
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    ~HostBuffer() {
        vkDestroyBuffer(gpu->device, buffer, nullptr);
        vkFreeMemory(gpu->device, memory, nullptr);
    }
};

void copy_buffer_to_image(VkCommandBuffer cmd, const HostBuffer& buffer, const AppImage& image) {
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {image.width, image.height, 1};
    vkCmdCopyBufferToImage(cmd, buffer.buffer, image.image, VK_IMAGE_LAYOUT_GENERAL, 1, &region);
}

void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src, VkPipelineStageFlags dst_stage,
                    VkAccessFlags dst) {
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = src;
    barrier.dstAccessMask = dst;
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

// The first use of the images: from UNDEFINED into GENERAL, where they stay.
void to_general(VkCommandBuffer cmd, const std::vector<const AppImage*>& images) {
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

void fail_on(swinup_status status, swinup_context* ctx, const std::string& what) {
    if (status == SWINUP_STATUS_OK) return;
    throw std::runtime_error(what + ": " + swinup_status_name(status) + ": " + swinup_last_error(ctx));
}

int run(const Options& opt) {
    const bool cuda = opt.backend == "cuda";
    const swinup::SequenceInfo info =
        swinup::sequence_read_info(opt.sequence, swinup::FilesNeeded{/*mv_display=*/false, /*ground_truth=*/false});
    const int frames = opt.frames > 0 ? std::min(opt.frames, info.frame_count) : info.frame_count;
    const uint32_t rw = static_cast<uint32_t>(info.render_width), rh = static_cast<uint32_t>(info.render_height);
    const uint32_t dw = static_cast<uint32_t>(info.display_width), dh = static_cast<uint32_t>(info.display_height);

    Gpu gpu(cuda);
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

    // The same context as `swinup upscale` makes for this sequence.
    swinup_context_desc desc;
    swinup_context_desc_init(&desc);
    desc.backend = cuda ? SWINUP_BACKEND_CUDA : SWINUP_BACKEND_VULKAN;
    desc.variant = opt.variant == "full" ? SWINUP_VARIANT_FULL : SWINUP_VARIANT_LITE;
    desc.precision = opt.precision == "fast" ? SWINUP_PRECISION_FAST : SWINUP_PRECISION_EXACT;
    desc.output_format = output_format_of(opt.format);
    desc.max_render_width = rw;
    desc.max_render_height = rh;
    desc.display_width = dw;
    desc.display_height = dh;
    desc.flags = (info.hdr ? uint32_t(SWINUP_FLAG_HDR) : 0u) | (info.mv_jittered ? uint32_t(SWINUP_FLAG_MV_JITTERED) : 0u) |
                 (info.depth_inverted ? uint32_t(SWINUP_FLAG_DEPTH_INVERTED) : 0u);
    swinup_context* ctx = nullptr;
    const swinup_status created = swinup_vulkan_context_create(&desc, &device, &ctx);
    if (created == SWINUP_STATUS_UNSUPPORTED) throw Skip(swinup_last_error(nullptr));
    fail_on(created, nullptr, "swinup_vulkan_context_create");
    // Destroyed before the device (declared after it), after the images: it releases the imports.
    struct ContextGuard {
        swinup_context* ctx;
        ~ContextGuard() { swinup_context_destroy(ctx); }
    } context_guard{ctx};

    const VkImageUsageFlags input_usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    AppImage color(gpu, VK_FORMAT_R32G32B32A32_SFLOAT, rw, rh, input_usage, cuda);
    AppImage depth(gpu, VK_FORMAT_R32_SFLOAT, rw, rh, input_usage, cuda);
    AppImage motion(gpu, VK_FORMAT_R32G32_SFLOAT, rw, rh, input_usage, cuda);
    AppImage output(gpu, vk_output_format(desc.output_format), dw, dh,
                    VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, cuda);
    const size_t render = size_t(rw) * rh, out_bytes = size_t(dw) * dh * swinup::cli::output_bytes_per_pixel(desc.output_format);
    HostBuffer color_up(gpu, render * 16, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    HostBuffer depth_up(gpu, render * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    HostBuffer motion_up(gpu, render * 8, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    HostBuffer readback(gpu, out_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);

    // The frame's ordering: a timeline semaphore the CUDA backend waits on and signals (exportable).
    VkSemaphore timeline = VK_NULL_HANDLE;
    {
        VkExportSemaphoreCreateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
        export_info.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
        VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
        type.pNext = cuda ? &export_info : nullptr;
        type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
        VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        info.pNext = &type;
        VK_CHECK(vkCreateSemaphore(gpu.device, &info, nullptr, &timeline));
    }
    VkFence fence = VK_NULL_HANDLE;
    VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(gpu.device, &fence_info, nullptr, &fence));
    VkCommandBuffer cmds[2];
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = gpu.pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 2;
    VK_CHECK(vkAllocateCommandBuffers(gpu.device, &alloc, cmds));

    std::filesystem::create_directories(opt.output);
    swinup::SequenceInfo inputs_only = info;
    inputs_only.has_ground_truth = false;
    inputs_only.has_mv_display = false;
    std::vector<uint8_t> out(out_bytes);
    for (int i = 0; i < frames; ++i) {
        const swinup::Frame frame = swinup::sequence_read_frame(opt.sequence, inputs_only, i);
        if (frame.color.channels != 4 || frame.depth.channels != 1 || frame.mv.channels != 2)
            throw std::runtime_error("frame " + std::to_string(i) + ": unexpected channel counts");
        std::memcpy(color_up.mapped, frame.color.data.data(), render * 16);
        std::memcpy(depth_up.mapped, frame.depth.data.data(), render * 4);
        std::memcpy(motion_up.mapped, frame.mv.data.data(), render * 8);

        swinup_vulkan_dispatch_desc d;
        swinup_vulkan_dispatch_desc_init(&d);
        d.frame.render_width = rw;
        d.frame.render_height = rh;
        d.frame.exposure_value = info.exposure[size_t(i)];
        d.frame.jitter_x = info.jitter_x[size_t(i)];
        d.frame.jitter_y = info.jitter_y[size_t(i)];
        d.frame.reset = info.reset[size_t(i)];
        d.color = color.desc();
        d.depth = depth.desc();
        d.motion_vectors = motion.desc();
        d.output = output.desc();

        // Upload: the application's own commands write the inputs.
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VK_CHECK(vkBeginCommandBuffer(cmds[0], &begin));
        if (i == 0) to_general(cmds[0], {&color, &depth, &motion, &output});
        copy_buffer_to_image(cmds[0], color_up, color);
        copy_buffer_to_image(cmds[0], depth_up, depth);
        copy_buffer_to_image(cmds[0], motion_up, motion);
        // The barrier before swinup's reads (and, for the output, its writes after last frame's copy).
        memory_barrier(cmds[0], VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);

        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = {dw, dh, 1};
        if (!cuda) {
            // Vulkan backend: swinup's commands go into this command buffer; one submit.
            fail_on(swinup_vulkan_record_dispatch(ctx, cmds[0], &d), ctx, "frame " + std::to_string(i));
            memory_barrier(cmds[0], VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
            vkCmdCopyImageToBuffer(cmds[0], output.image, VK_IMAGE_LAYOUT_GENERAL, readback.buffer, 1, &region);
            VK_CHECK(vkEndCommandBuffer(cmds[0]));
            VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
            submit.commandBufferCount = 1;
            submit.pCommandBuffers = &cmds[0];
            VK_CHECK(vkQueueSubmit(gpu.queue, 1, &submit, fence));
        } else {
            // CUDA backend: the upload signals 2i+1; swinup's CUDA work waits for it and signals
            // 2i+2; the read-back waits for that. No host wait in between.
            VK_CHECK(vkEndCommandBuffer(cmds[0]));
            const uint64_t uploaded = 2 * uint64_t(i) + 1, upscaled = uploaded + 1;
            VkTimelineSemaphoreSubmitInfo signal_info{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
            signal_info.signalSemaphoreValueCount = 1;
            signal_info.pSignalSemaphoreValues = &uploaded;
            VkSubmitInfo upload{VK_STRUCTURE_TYPE_SUBMIT_INFO};
            upload.pNext = &signal_info;
            upload.commandBufferCount = 1;
            upload.pCommandBuffers = &cmds[0];
            upload.signalSemaphoreCount = 1;
            upload.pSignalSemaphores = &timeline;
            VK_CHECK(vkQueueSubmit(gpu.queue, 1, &upload, VK_NULL_HANDLE));

            d.wait_semaphore = timeline;
            d.wait_value = uploaded;
            d.signal_semaphore = timeline;
            d.signal_value = upscaled;
            fail_on(swinup_vulkan_record_dispatch(ctx, VK_NULL_HANDLE, &d), ctx, "frame " + std::to_string(i));

            VK_CHECK(vkBeginCommandBuffer(cmds[1], &begin));
            vkCmdCopyImageToBuffer(cmds[1], output.image, VK_IMAGE_LAYOUT_GENERAL, readback.buffer, 1, &region);
            VK_CHECK(vkEndCommandBuffer(cmds[1]));
            VkTimelineSemaphoreSubmitInfo wait_info{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
            wait_info.waitSemaphoreValueCount = 1;
            wait_info.pWaitSemaphoreValues = &upscaled;
            const VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
            VkSubmitInfo read{VK_STRUCTURE_TYPE_SUBMIT_INFO};
            read.pNext = &wait_info;
            read.waitSemaphoreCount = 1;
            read.pWaitSemaphores = &timeline;
            read.pWaitDstStageMask = &wait_stage;
            read.commandBufferCount = 1;
            read.pCommandBuffers = &cmds[1];
            VK_CHECK(vkQueueSubmit(gpu.queue, 1, &read, fence));
        }
        VK_CHECK(vkWaitForFences(gpu.device, 1, &fence, VK_TRUE, UINT64_MAX));
        VK_CHECK(vkResetFences(gpu.device, 1, &fence));

        std::memcpy(out.data(), readback.mapped, out_bytes);
        const std::string path = (std::filesystem::path(opt.output) / swinup::frame_file("out", i)).string();
        swinup::exr_write(path, swinup::cli::decode_output(out, desc.output_format, int(dw), int(dh)),
                          /*half_precision=*/true);
    }
    std::printf("vulkan_upscale: %d frames %ux%u -> %ux%u on %s (%s backend) -> %s\n", frames, rw, rh, dw, dh,
                [&] {
                    VkPhysicalDeviceProperties p;
                    vkGetPhysicalDeviceProperties(gpu.physical, &p);
                    return std::string(p.deviceName);
                }()
                    .c_str(),
                opt.backend.c_str(), opt.output.c_str());

    VK_CHECK(vkDeviceWaitIdle(gpu.device));
    vkDestroyFence(gpu.device, fence, nullptr);
    vkDestroySemaphore(gpu.device, timeline, nullptr);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(parse(argc, argv));
    } catch (const Skip& e) {
        std::fprintf(stderr, "vulkan_upscale: skipped: %s\n", e.what());
        return 77;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "vulkan_upscale: %s\n", e.what());
        return 1;
    }
}
