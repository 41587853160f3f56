#include "vulkan/api/vulkan_api_backend.h"

#include <cstdlib>
#include <string>
#include <utility>

#include "vulkan/api/recording_slots.h"
#include "vulkan/runtime/device.h"
#include "vulkan/runtime/recorder.h"
#include "vulkan/runtime/vulkan_error.h"

namespace swinup::vulkan_api {

namespace {

class ApiBackend final : public VulkanApiBackend {
public:
    ApiBackend(std::unique_ptr<vulkan::Device> device, const swinup_vulkan_device_desc* app)
        : device_(std::move(device)), slots_(device_->handle()) {
        swinup_vulkan_device_desc_init(&handles_);
        if (app != nullptr) {
            handles_ = *app;
            handles_.enabled_extension_count = 0;  // the application's memory: not kept
            handles_.enabled_extensions = nullptr;
            handles_.enabled_features = nullptr;
        } else {
            handles_.instance = device_->instance();
            handles_.physical_device = device_->physical_device();
            handles_.device = device_->handle();
            handles_.queue_family_index = device_->queue_family();
            handles_.api_version = device_->capabilities().api_version;
            handles_.get_instance_proc_addr = vkGetInstanceProcAddr;
            handles_.get_device_proc_addr = vkGetDeviceProcAddr;
        }
    }

    swinup_backend kind() const override { return SWINUP_BACKEND_VULKAN; }
    std::string device_name() const override { return device_->name(); }

    swinup_status dispatch(const swinup_dispatch_desc&, uint64_t, std::string* error) override {
        *error = "swinup_dispatch: the Vulkan backend's frame is not in this build yet";
        return SWINUP_STATUS_UNSUPPORTED;
    }

    swinup_status record(VkCommandBuffer, const swinup_dispatch_desc&, const FrameImages&, uint64_t,
                         std::string* error) override {
        *error = "swinup_vulkan_record_dispatch: the Vulkan backend's frame is not in this build yet";
        return SWINUP_STATUS_UNSUPPORTED;
    }

    swinup_vulkan_device_desc device() const override { return handles_; }

private:
    std::unique_ptr<vulkan::Device> device_;
    RecordingSlots slots_;
    swinup_vulkan_device_desc handles_{};
};

// The physical device of swinup's own device: SWINUP_VULKAN_DEVICE when set, else device_index.
std::string own_device_selector(const swinup_context_desc& desc) {
    const char* env = std::getenv("SWINUP_VULKAN_DEVICE");
    if (env != nullptr && *env != '\0') return env;
    return std::to_string(desc.device_index);
}

}  // namespace

std::unique_ptr<VulkanApiBackend> make_vulkan_api_backend(const swinup_context_desc& desc,
                                                          std::shared_ptr<const Weights> /*weights*/,
                                                          const swinup_vulkan_device_desc* app,
                                                          swinup_status* status, std::string* message) {
    try {
        std::unique_ptr<vulkan::Device> device;
        if (app != nullptr) {
            vulkan::ExternalHandles h;
            h.instance = app->instance;
            h.physical_device = app->physical_device;
            h.device = app->device;
            h.queue_family = app->queue_family_index;
            h.queue = VK_NULL_HANDLE;  // the application's queues are its own: no host path
            h.enabled_features = app->enabled_features;
            device = vulkan::Device::wrap(h);
        } else {
            vulkan::DeviceOptions options;
            options.selector = own_device_selector(desc);
            device = vulkan::Device::create(options);
        }
        return std::make_unique<ApiBackend>(std::move(device), app);
    } catch (const vulkan::VulkanError& e) {
        *status = e.status();
        *message = std::string("swinup_vulkan_context_create: ") + e.what();
        return nullptr;
    }
}

}  // namespace swinup::vulkan_api
