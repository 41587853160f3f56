// A Vulkan device made the way an application makes one, for the tests of the Vulkan-facing API
// (include/swinup/swinup_vulkan.h): instance with the Khronos validation layer and a debug-utils
// messenger that records every message (a test fails when any was recorded), the device chosen by
// SWINUP_VULKAN_DEVICE (an index or a name substring; default the first), every feature the device
// supports enabled, and helpers to make images and views, upload texels, read them back and run a
// command buffer, built from the example application's pieces (examples/vulkan_app.h). When no
// device is found the test reports GTEST_SKIP with the reason.
#pragma once

#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "swinup/swinup_vulkan.h"
#include "vulkan_app.h"

namespace swinup::vulkan_test {

#define SWINUP_VK_CHECK(call)                                                           \
    do {                                                                                \
        const VkResult vk_check_result_ = (call);                                       \
        ASSERT_EQ(vk_check_result_, VK_SUCCESS) << #call;                               \
    } while (0)

// An image the device made (vulkan_app::Image: handles, format, size, usage, `described`) and
// the size of its texels as upload and read pack them.
struct TestImage : vulkan_app::Image {
    uint32_t texel_bytes = 0;
};

// The handles (vulkan_app::DeviceHandles): instance, physical, device, family, queue, pool.
class TestDevice : public vulkan_app::DeviceHandles {
public:
    std::string name;
    std::string skip_reason;              // non-empty: no usable device
    std::vector<std::string> messages;    // validation messages (warnings and errors)
    bool validation = false;              // the Khronos layer is on

    // The features the device was created with (given to swinup as enabled_features): 1.0 to 1.2.
    vulkan_app::FeatureChain enabled;
    std::vector<const char*> extensions;  // enabled device extensions

    TestDevice() { create(); }
    // Wraps a device made elsewhere (swinup's own, from swinup_vulkan_context_get_device): images
    // and command buffers are made on it; the device itself is not destroyed here.
    explicit TestDevice(const swinup_vulkan_device_desc& d)
        : vulkan_app::DeviceHandles{d.instance, d.physical_device, d.device, d.queue_family_index}, borrowed_(true) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(physical, &props);
        name = props.deviceName;
        vkGetDeviceQueue(device, family, 0, &queue);
        pool = vulkan_app::create_command_pool(device, family);
    }
    ~TestDevice() {
        if (device) {
            vkDeviceWaitIdle(device);
            for (const TestImage& i : images_) vulkan_app::destroy_image(device, i);
            if (pool) vkDestroyCommandPool(device, pool, nullptr);
            if (!borrowed_) vkDestroyDevice(device, nullptr);
        }
        if (borrowed_) return;
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
        return vulkan_app::device_desc(*this, VK_API_VERSION_1_2, extensions, &enabled.core);
    }

    // A device-local 2D image of one mip level with a view of it (depth aspect for depth formats).
    TestImage make_image(VkFormat format, uint32_t width, uint32_t height, VkImageUsageFlags usage,
                         uint32_t texel_bytes) {
        TestImage t;
        static_cast<vulkan_app::Image&>(t) =
            vulkan_app::create_image(device, physical, format, width, height,
                                     usage | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, false);
        t.texel_bytes = texel_bytes;
        images_.push_back(t);
        return t;
    }

    // Copies tightly packed texels into the whole image and leaves it in `layout`, its writes made
    // visible to compute-shader reads (the barrier an application records before swinup's work).
    void upload(const TestImage& t, const void* texels, VkImageLayout layout) {
        const VkDeviceSize bytes = VkDeviceSize(t.width) * t.height * t.texel_bytes;
        const vulkan_app::HostBuffer staging(device, physical, bytes, kStagingUsage);
        std::memcpy(staging.mapped, texels, bytes);
        VkCommandBuffer cmd = begin();
        barrier(cmd, t, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
        vulkan_app::copy_buffer_to_image(cmd, staging, t, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        barrier(cmd, t, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, layout, VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        submit_and_wait(cmd);
    }

    // Fills an image with one byte value (poison) and leaves it in `layout`.
    void fill(const TestImage& t, uint8_t byte, VkImageLayout layout) {
        std::vector<uint8_t> texels(size_t(t.width) * t.height * t.texel_bytes, byte);
        upload(t, texels.data(), layout);
    }

    // Reads the whole image back (tightly packed); it is in `layout` and stays in it.
    std::vector<uint8_t> read(const TestImage& t, VkImageLayout layout) {
        const VkDeviceSize bytes = VkDeviceSize(t.width) * t.height * t.texel_bytes;
        const vulkan_app::HostBuffer staging(device, physical, bytes, kStagingUsage);
        VkCommandBuffer cmd = begin();
        barrier(cmd, t, layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        vulkan_app::copy_image_to_buffer(cmd, t, staging, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
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
        return out;
    }

    VkCommandBuffer begin() { return vulkan_app::begin_one_shot(device, pool); }

    void submit_and_wait(VkCommandBuffer cmd) { vulkan_app::submit_and_wait(device, pool, queue, cmd); }

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
        b.subresourceRange = {vulkan_app::barrier_aspect_of(t.format), 0, 1, 0, 1};
        vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, nullptr, 0, nullptr, 1, &b);
    }

private:
    static constexpr VkBufferUsageFlags kStagingUsage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    std::vector<TestImage> images_;
    bool borrowed_ = false;

    static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
        static_cast<TestDevice*>(user)->messages.emplace_back(data->pMessage ? data->pMessage : "(no text)");
        return VK_FALSE;
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
        try {
            physical = vulkan_app::choose_physical(instance, false);
            VkPhysicalDeviceProperties props;
            vkGetPhysicalDeviceProperties(physical, &props);
            name = props.deviceName;
            if (props.apiVersion < VK_API_VERSION_1_2) {
                skip_reason = "the Vulkan device " + name + " is older than Vulkan 1.2";
                return;
            }
            family = vulkan_app::compute_family(physical);
            // Every feature the device has, enabled: an application decides; swinup uses what is on.
            vkGetPhysicalDeviceFeatures2(physical, &enabled.core);
            enabled.core.features.robustBufferAccess = VK_FALSE;  // as a game would ship
            device = vulkan_app::create_device(physical, family, &enabled.core, extensions);
        } catch (const std::runtime_error& e) {  // no such device (vulkan_app::Unavailable), or vkCreateDevice failed
            skip_reason = name.empty() ? e.what() : name + ": " + e.what();
            return;
        }
        vkGetDeviceQueue(device, family, 0, &queue);
        pool = vulkan_app::create_command_pool(device, family);
    }
};

}  // namespace swinup::vulkan_test
