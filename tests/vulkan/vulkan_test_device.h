// A Vulkan device made the way an application makes one, for the tests of the Vulkan-facing API
// (include/swinup/swinup_vulkan.h): instance with the Khronos validation layer and a debug-utils
// messenger that records every message (a test fails when any was recorded), the device chosen by
// SWINUP_VULKAN_DEVICE (an index or a name substring; default the first), every feature the device
// supports enabled, and helpers to make images and views, upload texels, read them back and run a
// command buffer. When no device is found the test reports GTEST_SKIP with the reason.
#pragma once

#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "swinup/swinup_vulkan.h"

namespace swinup::vulkan_test {

#define SWINUP_VK_CHECK(call)                                                           \
    do {                                                                                \
        const VkResult vk_check_result_ = (call);                                       \
        ASSERT_EQ(vk_check_result_, VK_SUCCESS) << #call;                               \
    } while (0)

struct TestImage {
    VkImage image = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_UNDEFINED;
    uint32_t width = 0, height = 0;
    VkImageUsageFlags usage = 0;
    uint32_t texel_bytes = 0;

    // The image as swinup_vulkan_record_dispatch is told it is: in `layout`.
    swinup_vulkan_image described(VkImageLayout layout) const {
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
};

class TestDevice {
public:
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    uint32_t queue_family = 0;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    std::string name;
    std::string skip_reason;              // non-empty: no usable device
    std::vector<std::string> messages;    // validation messages (warnings and errors)
    bool validation = false;              // the Khronos layer is on

    // The feature chain the device was created with (given to swinup as enabled_features).
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceVulkan11Features features11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    std::vector<const char*> extensions;  // enabled device extensions

    TestDevice() { create(); }
    // Wraps a device made elsewhere (swinup's own, from swinup_vulkan_context_get_device): images
    // and command buffers are made on it; the device itself is not destroyed here.
    explicit TestDevice(const swinup_vulkan_device_desc& d)
        : instance(d.instance), physical(d.physical_device), device(d.device), queue_family(d.queue_family_index),
          borrowed_(true) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(physical, &props);
        name = props.deviceName;
        vkGetDeviceQueue(device, queue_family, 0, &queue);
        VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pi.queueFamilyIndex = queue_family;
        pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        vkCreateCommandPool(device, &pi, nullptr, &pool);
    }
    ~TestDevice() {
        if (borrowed_) {
            vkDeviceWaitIdle(device);
            for (TestImage& i : images_) destroy(i);
            vkDestroyCommandPool(device, pool, nullptr);
            return;
        }
        if (device) {
            vkDeviceWaitIdle(device);
            for (TestImage& i : images_) destroy(i);
            if (pool) vkDestroyCommandPool(device, pool, nullptr);
            vkDestroyDevice(device, nullptr);
        }
        if (messenger_) {
            auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
            destroy_messenger(instance, messenger_, nullptr);
        }
        if (instance) vkDestroyInstance(instance, nullptr);
    }
    TestDevice(const TestDevice&) = delete;
    TestDevice& operator=(const TestDevice&) = delete;

    // The device as an application hands it to swinup_vulkan_context_create.
    swinup_vulkan_device_desc description() const {
        swinup_vulkan_device_desc d;
        swinup_vulkan_device_desc_init(&d);
        d.instance = instance;
        d.physical_device = physical;
        d.device = device;
        d.queue_family_index = queue_family;
        d.api_version = VK_API_VERSION_1_2;
        d.get_instance_proc_addr = vkGetInstanceProcAddr;
        d.get_device_proc_addr = vkGetDeviceProcAddr;
        d.enabled_extension_count = static_cast<uint32_t>(extensions.size());
        d.enabled_extensions = extensions.empty() ? nullptr : extensions.data();
        d.enabled_features = &features;
        return d;
    }

    // A device-local 2D image of one mip level with a view of it (depth aspect for depth formats).
    TestImage make_image(VkFormat format, uint32_t width, uint32_t height, VkImageUsageFlags usage,
                         uint32_t texel_bytes) {
        TestImage t;
        t.format = format;
        t.width = width;
        t.height = height;
        t.usage = usage;
        t.texel_bytes = texel_bytes;
        VkImageCreateInfo ii{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
        ii.imageType = VK_IMAGE_TYPE_2D;
        ii.format = format;
        ii.extent = {width, height, 1};
        ii.mipLevels = 1;
        ii.arrayLayers = 1;
        ii.samples = VK_SAMPLE_COUNT_1_BIT;
        ii.tiling = VK_IMAGE_TILING_OPTIMAL;
        ii.usage = usage | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
        ii.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        t.usage = ii.usage;
        EXPECT_EQ(vkCreateImage(device, &ii, nullptr, &t.image), VK_SUCCESS);
        VkMemoryRequirements req;
        vkGetImageMemoryRequirements(device, t.image, &req);
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        EXPECT_EQ(vkAllocateMemory(device, &ai, nullptr, &t.memory), VK_SUCCESS);
        EXPECT_EQ(vkBindImageMemory(device, t.image, t.memory, 0), VK_SUCCESS);
        VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        vi.image = t.image;
        vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vi.format = format;
        vi.subresourceRange = {aspect(format), 0, 1, 0, 1};
        EXPECT_EQ(vkCreateImageView(device, &vi, nullptr, &t.view), VK_SUCCESS);
        images_.push_back(t);
        return t;
    }

    // Copies tightly packed texels into the whole image and leaves it in `layout`, its writes made
    // visible to compute-shader reads (the barrier an application records before swinup's work).
    void upload(const TestImage& t, const void* texels, VkImageLayout layout) {
        const VkDeviceSize bytes = VkDeviceSize(t.width) * t.height * t.texel_bytes;
        Buffer staging = make_buffer(bytes);
        std::memcpy(staging.mapped, texels, bytes);
        VkCommandBuffer cmd = begin();
        barrier(cmd, t, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
        const VkBufferImageCopy region = copy_region(t);
        vkCmdCopyBufferToImage(cmd, staging.buffer, t.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        barrier(cmd, t, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, layout, VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        submit_and_wait(cmd);
        destroy(staging);
    }

    // Fills an image with one byte value (poison) and leaves it in `layout`.
    void fill(const TestImage& t, uint8_t byte, VkImageLayout layout) {
        std::vector<uint8_t> texels(size_t(t.width) * t.height * t.texel_bytes, byte);
        upload(t, texels.data(), layout);
    }

    // Reads the whole image back (tightly packed); it is in `layout` and stays in it.
    std::vector<uint8_t> read(const TestImage& t, VkImageLayout layout) {
        const VkDeviceSize bytes = VkDeviceSize(t.width) * t.height * t.texel_bytes;
        Buffer staging = make_buffer(bytes);
        VkCommandBuffer cmd = begin();
        barrier(cmd, t, layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        const VkBufferImageCopy region = copy_region(t);
        vkCmdCopyImageToBuffer(cmd, t.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging.buffer, 1, &region);
        barrier(cmd, t, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, layout, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0);
        VkBufferMemoryBarrier host{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
        host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        host.srcQueueFamilyIndex = host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        host.buffer = staging.buffer;
        host.size = VK_WHOLE_SIZE;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &host,
                             0, nullptr);
        submit_and_wait(cmd);
        std::vector<uint8_t> out(bytes);
        std::memcpy(out.data(), staging.mapped, bytes);
        destroy(staging);
        return out;
    }

    VkCommandBuffer begin() {
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        VkCommandBuffer cmd = VK_NULL_HANDLE;
        EXPECT_EQ(vkAllocateCommandBuffers(device, &ai, &cmd), VK_SUCCESS);
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        EXPECT_EQ(vkBeginCommandBuffer(cmd, &bi), VK_SUCCESS);
        return cmd;
    }

    void submit_and_wait(VkCommandBuffer cmd) {
        EXPECT_EQ(vkEndCommandBuffer(cmd), VK_SUCCESS);
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        EXPECT_EQ(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
        EXPECT_EQ(vkQueueWaitIdle(queue), VK_SUCCESS);
        vkFreeCommandBuffers(device, pool, 1, &cmd);
    }

    // Ends and frees a command buffer that is not to be submitted.
    void discard(VkCommandBuffer cmd) {
        vkEndCommandBuffer(cmd);
        vkFreeCommandBuffers(device, pool, 1, &cmd);
    }

    static void barrier(VkCommandBuffer cmd, const TestImage& t, VkImageLayout from, VkImageLayout to,
                        VkPipelineStageFlags src_stage, VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                        VkAccessFlags dst_access) {
        VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
        b.srcAccessMask = src_access;
        b.dstAccessMask = dst_access;
        b.oldLayout = from;
        b.newLayout = to;
        b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        b.image = t.image;
        b.subresourceRange = {aspect(t.format), 0, 1, 0, 1};
        vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, nullptr, 0, nullptr, 1, &b);
    }

private:
    struct Buffer {
        VkBuffer buffer = VK_NULL_HANDLE;
        VkDeviceMemory memory = VK_NULL_HANDLE;
        void* mapped = nullptr;
    };
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    std::vector<TestImage> images_;
    bool borrowed_ = false;

    static VkImageAspectFlags aspect(VkFormat f) {
        return f == VK_FORMAT_D32_SFLOAT ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
    }

    static VkBufferImageCopy copy_region(const TestImage& t) {
        VkBufferImageCopy r{};
        r.imageSubresource = {aspect(t.format), 0, 0, 1};
        r.imageExtent = {t.width, t.height, 1};
        return r;
    }

    static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
        static_cast<TestDevice*>(user)->messages.emplace_back(data->pMessage ? data->pMessage : "(no text)");
        return VK_FALSE;
    }

    uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags wanted) const {
        VkPhysicalDeviceMemoryProperties mp;
        vkGetPhysicalDeviceMemoryProperties(physical, &mp);
        for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
            if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
        for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
            if (bits & (1u << i)) return i;
        return 0;
    }

    Buffer make_buffer(VkDeviceSize bytes) {
        Buffer b;
        VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bi.size = bytes;
        bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        EXPECT_EQ(vkCreateBuffer(device, &bi, nullptr, &b.buffer), VK_SUCCESS);
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device, b.buffer, &req);
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        EXPECT_EQ(vkAllocateMemory(device, &ai, nullptr, &b.memory), VK_SUCCESS);
        EXPECT_EQ(vkBindBufferMemory(device, b.buffer, b.memory, 0), VK_SUCCESS);
        EXPECT_EQ(vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped), VK_SUCCESS);
        return b;
    }

    void destroy(Buffer& b) {
        vkDestroyBuffer(device, b.buffer, nullptr);
        vkFreeMemory(device, b.memory, nullptr);
    }

    void destroy(TestImage& t) {
        vkDestroyImageView(device, t.view, nullptr);
        vkDestroyImage(device, t.image, nullptr);
        vkFreeMemory(device, t.memory, nullptr);
    }

    static bool has_layer(const char* name) {
        uint32_t n = 0;
        vkEnumerateInstanceLayerProperties(&n, nullptr);
        std::vector<VkLayerProperties> layers(n);
        vkEnumerateInstanceLayerProperties(&n, layers.data());
        for (const VkLayerProperties& l : layers)
            if (std::strcmp(l.layerName, name) == 0) return true;
        return false;
    }

    void create() {
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.pApplicationName = "swinup vulkan api test";
        app.apiVersion = VK_API_VERSION_1_2;
        const char* layer = "VK_LAYER_KHRONOS_validation";
        const char* debug_ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
        validation = has_layer(layer);
        VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        ci.pApplicationInfo = &app;
        ci.enabledLayerCount = validation ? 1 : 0;
        ci.ppEnabledLayerNames = &layer;
        ci.enabledExtensionCount = validation ? 1 : 0;
        ci.ppEnabledExtensionNames = &debug_ext;
        if (vkCreateInstance(&ci, nullptr, &instance) != VK_SUCCESS) {
            instance = VK_NULL_HANDLE;
            skip_reason = "vkCreateInstance failed: no Vulkan loader or driver";
            return;
        }
        if (validation) {
            VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
            mi.messageSeverity =
                VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
            mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                             VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
            mi.pfnUserCallback = &TestDevice::on_message;
            mi.pUserData = this;
            auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
            if (create_messenger) create_messenger(instance, &mi, nullptr, &messenger_);
        }
        uint32_t n = 0;
        vkEnumeratePhysicalDevices(instance, &n, nullptr);
        std::vector<VkPhysicalDevice> devices(n);
        vkEnumeratePhysicalDevices(instance, &n, devices.data());
        if (devices.empty()) {
            skip_reason = "no Vulkan device (install mesa-vulkan-drivers for lavapipe)";
            return;
        }
        physical = devices[0];
        if (const char* want = std::getenv("SWINUP_VULKAN_DEVICE"); want != nullptr && *want != '\0') {
            physical = VK_NULL_HANDLE;
            char* end = nullptr;
            const unsigned long index = std::strtoul(want, &end, 10);
            for (uint32_t i = 0; i < n && physical == VK_NULL_HANDLE; ++i) {
                VkPhysicalDeviceProperties p;
                vkGetPhysicalDeviceProperties(devices[i], &p);
                if ((*end == '\0' && index == i) || std::strstr(p.deviceName, want) != nullptr) physical = devices[i];
            }
            if (physical == VK_NULL_HANDLE) {
                skip_reason = std::string("SWINUP_VULKAN_DEVICE=") + want + " names no Vulkan device";
                return;
            }
        }
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(physical, &props);
        name = props.deviceName;
        if (props.apiVersion < VK_API_VERSION_1_2) {
            skip_reason = "the Vulkan device " + name + " is older than Vulkan 1.2";
            return;
        }
        uint32_t families = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
        std::vector<VkQueueFamilyProperties> fp(families);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, fp.data());
        queue_family = families;
        for (uint32_t i = 0; i < families && queue_family == families; ++i)
            if (fp[i].queueFlags & VK_QUEUE_COMPUTE_BIT) queue_family = i;
        if (queue_family == families) {
            skip_reason = "the Vulkan device " + name + " has no compute queue";
            return;
        }
        // Every feature the device has, enabled: an application decides; swinup uses what is on.
        features.pNext = &features11;
        features11.pNext = &features12;
        vkGetPhysicalDeviceFeatures2(physical, &features);
        features.features.robustBufferAccess = VK_FALSE;  // as a game would ship
        const float priority = 1.0f;
        VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        qi.queueFamilyIndex = queue_family;
        qi.queueCount = 1;
        qi.pQueuePriorities = &priority;
        VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
        di.pNext = &features;
        di.queueCreateInfoCount = 1;
        di.pQueueCreateInfos = &qi;
        di.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
        di.ppEnabledExtensionNames = extensions.data();
        if (vkCreateDevice(physical, &di, nullptr, &device) != VK_SUCCESS) {
            device = VK_NULL_HANDLE;
            skip_reason = "vkCreateDevice failed on " + name;
            return;
        }
        vkGetDeviceQueue(device, queue_family, 0, &queue);
        VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pi.queueFamilyIndex = queue_family;
        pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        vkCreateCommandPool(device, &pi, nullptr, &pool);
    }
};

}  // namespace swinup::vulkan_test
