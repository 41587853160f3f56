// The Vulkan instance and device the backend runs on: its own (made here, for the host-pointer
// path, tools and tests) or the application's (wrapped, never destroyed here). Creation checks
// what the shaders need and names what is missing; optional features are enabled when present
// and reported in DeviceCapabilities.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "vulkan/runtime/cooperative_matrix.h"
#include "vulkan/runtime/fast_gemm_path.h"
#include "vulkan/runtime/pipeline.h"

namespace swinup::vulkan {

struct DeviceOptions {
    // Which physical device: "" = the first; a decimal number = that index in the loader's list;
    // anything else = the first whose name contains it (case-insensitive), e.g. "nvidia", "llvmpipe".
    std::string selector;
    // Enables VK_LAYER_KHRONOS_validation (with synchronisation validation) and a debug-utils
    // messenger that records every warning and error (validation_messages()). Creation fails with
    // a message naming the missing layer when it is not installed.
    bool validation = false;
};

// The application's objects, for Device::wrap, which checks `queue_family` and then takes queue 0
// of it (used only by the host-pointer path); the application keeps ownership of everything here.
struct ExternalHandles {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical_device = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    uint32_t queue_family = 0;
    // The VkPhysicalDeviceFeatures2 chain the device was created with (may be null: then no
    // optional feature is assumed enabled). Vulkan11/12/13Features structs in it are read.
    const VkPhysicalDeviceFeatures2* enabled_features = nullptr;
    // Host allocation callbacks for every object swinup makes on the device (copied; nullptr: the
    // driver's allocator), and a pipeline cache pipelines are made with (see set_pipeline_cache).
    const VkAllocationCallbacks* allocator = nullptr;
    VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
};

// What the device has and swinup enabled. The portable shaders need none of the optional ones.
struct DeviceCapabilities {
    uint32_t api_version = 0;
    uint32_t subgroup_size = 0;
    uint32_t max_workgroup_invocations = 0;
    uint32_t max_shared_memory = 0;
    uint64_t max_storage_buffer_range = 0;
    bool shader_float16 = false;           // shaderFloat16 (Vulkan 1.2 / VK_KHR_shader_float16_int8)
    bool shader_int8 = false;              // shaderInt8
    bool storage_buffer_16bit = false;     // storageBuffer16BitAccess (Vulkan 1.1 feature)
    bool storage_buffer_8bit = false;      // storageBuffer8BitAccess (Vulkan 1.2 feature)
    bool shader_int64 = false;             // shaderInt64
    bool shader_float64 = false;           // shaderFloat64: auto exposure's f64 sums (frame passes)
    bool subgroup_size_control = false;    // subgroupSizeControl (Vulkan 1.3 feature)
    bool denorm_preserve_float32 = false;  // shaderDenormPreserveFloat32 (property, Vulkan 1.2)
    bool vulkan_memory_model = false;      // vulkanMemoryModel and vulkanMemoryModelDeviceScope (Vulkan 1.2)
    bool maintenance4 = false;             // maintenance4 (Vulkan 1.3): LocalSizeId, the matrix shaders' local size
    // VK_KHR_cooperative_matrix enabled (with shaderFloat16 and Vulkan 1.3, which the matrix
    // shaders' SPIR-V needs) and a shape the fast GEMM fits (choose_matrix_shape): matrix_shape.
    bool cooperative_matrix = false;
    MatrixShape matrix_shape;
    std::vector<MatrixShape> matrix_shapes;  // every shape the device reports (`swinup info`)
};



// One physical device as `swinup info` lists it.
struct PhysicalDeviceSummary {
    uint32_t index = 0;
    std::string name;
    std::string type;         // "discrete GPU", "integrated GPU", "CPU", ...
    uint32_t api_version = 0;
    std::string missing;      // "" when swinup can run on it, else what it lacks
    std::string fast_gemm;    // fast mode's GEMM path on it, and why (query_matrix_support)
};

// Whether swinup's own device on `physical` runs fast mode's GEMM on the matrix units: Vulkan 1.3,
// VK_KHR_cooperative_matrix with shaderFloat16 and vulkanMemoryModel, a shape that fits
// (choose_matrix_shape), and a build with the matrix shaders; else the reason.
struct MatrixSupport {
    bool usable = false;
    MatrixShape shape;
    std::string reason;
};
MatrixSupport query_matrix_support(VkInstance instance, VkPhysicalDevice physical);

// Every physical device the loader sees. Throws VulkanError when there is no loader/driver.
std::vector<PhysicalDeviceSummary> list_physical_devices();

// "1.3.230"
std::string version_text(uint32_t api_version);

class Device {
public:
    static std::unique_ptr<Device> create(const DeviceOptions& options);
    static std::unique_ptr<Device> wrap(const ExternalHandles& handles);
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    VkInstance instance() const { return instance_; }
    VkPhysicalDevice physical_device() const { return physical_; }
    VkDevice handle() const { return device_; }
    // True for swinup's own device (Device::create), false for the application's (Device::wrap).
    bool owned() const { return owned_; }
    VkQueue queue() const { return queue_; }
    uint32_t queue_family() const { return queue_family_; }
    const std::string& name() const { return name_; }
    const DeviceCapabilities& capabilities() const { return caps_; }
    const VkPhysicalDeviceProperties& properties() const { return properties_; }

    // The fast GEMM's kernels: `matrix` where capabilities().cooperative_matrix, else `portable`;
    // SWINUP_VULKAN_FAST_GEMM=portable|matrix|matrix-emulated overrides it at creation (a path
    // the device cannot run is refused then), set_fast_gemm_path for tests (false: refused).
    // The emulated path runs `emulated_shape` (default: the device's shape, else 16x16x16), so
    // that one CPU device tests every vendor's tiling.
    FastGemmPath fast_gemm_path() const { return fast_gemm_path_; }
    bool set_fast_gemm_path(FastGemmPath path, const MatrixShape* emulated_shape = nullptr);
    bool can_run(FastGemmPath path) const;
    // The shape gemm_matrix.comp is specialised for on the current path.
    const MatrixShape& gemm_matrix_shape() const {
        return fast_gemm_path_ == FastGemmPath::matrix ? caps_.matrix_shape : emulated_shape_;
    }

    // A memory type index among type_bits having `required`, preferring one that also has
    // `preferred`; throws VulkanError (UNSUPPORTED) naming the properties when none has them.
    uint32_t memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                         VkMemoryPropertyFlags preferred) const;
    bool memory_type_is_coherent(uint32_t type_index) const;

    // The bytes of VkDeviceMemory swinup's Buffers and Images on this Device hold now (their
    // vkAllocateMemory sizes, counted by runtime/memory.cpp as they allocate and free): what a
    // backend reports as its device memory (Backend::memory()).
    uint64_t allocated_bytes() const { return allocated_bytes_.load(std::memory_order_relaxed); }
    void count_allocation(VkDeviceSize bytes) { allocated_bytes_.fetch_add(bytes, std::memory_order_relaxed); }
    void count_free(VkDeviceSize bytes) { allocated_bytes_.fetch_sub(bytes, std::memory_order_relaxed); }

    // Whether `format` supports `features` with optimal tiling (e.g. STORAGE_IMAGE_BIT).
    bool format_supports(VkFormat format, VkFormatFeatureFlags features) const;

    // The pipeline for a shader (made on first use, kept for the device's life). Thread-safe.
    // A backend asks for every pipeline its frames use when it is made (VulkanBackend's
    // constructor), so that no frame pays for their creation.
    const ComputePipeline& pipeline(const PipelineDesc& desc);
    // How many pipelines pipeline() has made so far (tests: a recorded frame makes none).
    uint64_t pipelines_created() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return pipelines_created_;
    }
    // The VkPipelineCache pipeline() makes pipelines with (VK_NULL_HANDLE: none). The application's
    // cache is used only while its context is created, then dropped (swinup_vulkan.h).
    void set_pipeline_cache(VkPipelineCache cache) {
        std::lock_guard<std::mutex> lock(mutex_);
        pipeline_cache_ = cache;
    }
    // The application's host allocation callbacks (nullptr: the driver's): every object swinup
    // makes on the device is created and destroyed with them.
    const VkAllocationCallbacks* allocator() const { return allocator_; }

    // The nearest-filter, clamp-to-edge sampler that sampled-image bindings use (shaders read
    // them with texelFetch, which ignores filtering).
    VkSampler nearest_sampler() const { return sampler_; }

    // Validation messages recorded since creation or the last clear (DeviceOptions::validation).
    std::vector<std::string> validation_messages() const;
    void clear_validation_messages();
    bool validation_enabled() const { return messenger_ != VK_NULL_HANDLE; }

private:
    Device() = default;
    void finish_setup();
    void finish_matrix_setup(bool matrix_enabled);
    static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT types,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                     void* user);

    bool owned_ = false;
    VkInstance instance_ = VK_NULL_HANDLE;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t queue_family_ = 0;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    VkSampler sampler_ = VK_NULL_HANDLE;
    std::string name_;
    DeviceCapabilities caps_;
    FastGemmPath fast_gemm_path_ = FastGemmPath::portable;
    MatrixShape emulated_shape_{16, 16, 16};
    VkPhysicalDeviceProperties properties_{};
    VkPhysicalDeviceMemoryProperties memory_{};

    std::atomic<uint64_t> allocated_bytes_{0};
    // Two locks: the validation layer reports from inside Vulkan calls, vkCreateComputePipelines
    // among them, which runs under pipelines_mutex_.
    mutable std::mutex mutex_;  // pipelines_
    mutable std::mutex messages_mutex_;
    bool layer_predates_matrix_ = false;   // the validation layer cannot parse the matrix shaders
    uint64_t unparsed_matrix_reports_ = 0;  // its reports about them, not recorded (device.cpp)
    std::vector<std::string> messages_;
    std::map<std::pair<const uint32_t*, std::vector<uint32_t>>, std::unique_ptr<ComputePipeline>> pipelines_;
    uint64_t pipelines_created_ = 0;
    VkPipelineCache pipeline_cache_ = VK_NULL_HANDLE;
    VkAllocationCallbacks allocator_copy_{};
    const VkAllocationCallbacks* allocator_ = nullptr;  // &allocator_copy_ when the application gave some
};

}  // namespace swinup::vulkan
