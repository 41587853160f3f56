#include "vulkan/runtime/device.h"

#include <cstdlib>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "vulkan/runtime/vulkan_error.h"
#include "vulkan_shaders.h"  // SWINUP_VULKAN_MATRIX_SHADERS

namespace swinup::vulkan {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

// The layer's spec version (0 when it is not installed).
uint32_t layer_spec_version(const char* name) {
    uint32_t count = 0;
    vkEnumerateInstanceLayerProperties(&count, nullptr);
    std::vector<VkLayerProperties> layers(count);
    vkEnumerateInstanceLayerProperties(&count, layers.data());
    for (const auto& l : layers) {
        if (std::strcmp(l.layerName, name) == 0) return l.specVersion;
    }
    return 0;
}

bool layer_present(const char* name) { return layer_spec_version(name) != 0; }

// A validation layer older than VK_KHR_cooperative_matrix (Vulkan 1.3.255; Debian 12 ships 1.3.239)
// cannot parse the matrix shaders' SPIR-V and reports every such module as invalid: an unknown
// capability (6022, CooperativeMatrixKHR) and extension, and the failures that follow from it.
// Those reports say nothing about the shader; the build checks the SPIR-V with spirv-val 2025.5
// (src/vulkan/shaders.cmake) instead, and they are not recorded. Every other message is.
bool unparsed_matrix_module_report(const char* text) {
    const std::string t = text ? text : "";
    return t.find("SPV_KHR_cooperative_matrix") != std::string::npos ||
           t.find("capability operand: 6022") != std::string::npos ||
           t.find("Unhandled OpCapability") != std::string::npos ||
           t.find("attempted to apply specialization constants with spirv-opt but failed") != std::string::npos ||
           (t.find("does not contain valid spirv") != std::string::npos && t.find("6022") != std::string::npos);
}

VkInstance make_instance(bool validation) {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "swinup";
    app.pEngineName = "swinup";
    app.apiVersion = VK_API_VERSION_1_3;  // the highest swinup uses; devices may be 1.1+
    std::vector<const char*> layers;
    std::vector<const char*> extensions;
    // Synchronisation validation checks the recorder's barriers, beside the core checks.
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    if (validation) {
        if (!layer_present(kValidationLayer)) {
            throw VulkanError(SWINUP_STATUS_UNSUPPORTED,
                              std::string("Vulkan validation was asked for but ") + kValidationLayer +
                                  " is not installed (Debian: vulkan-validationlayers)");
        }
        layers.push_back(kValidationLayer);
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
        info.pNext = &features;
    }
    info.enabledLayerCount = static_cast<uint32_t>(layers.size());
    info.ppEnabledLayerNames = layers.data();
    info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    VkInstance instance = VK_NULL_HANDLE;
    const VkResult result = vkCreateInstance(&info, nullptr, &instance);
    if (result == VK_ERROR_INCOMPATIBLE_DRIVER) {
        throw VulkanError(SWINUP_STATUS_UNSUPPORTED, "no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER)");
    }
    check(result, "vkCreateInstance");
    return instance;
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance instance) {
    uint32_t count = 0;
    check(vkEnumeratePhysicalDevices(instance, &count, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> devices(count);
    check(vkEnumeratePhysicalDevices(instance, &count, devices.data()), "vkEnumeratePhysicalDevices");
    devices.resize(count);
    return devices;
}

std::string device_type_text(VkPhysicalDeviceType type) {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
        default: return "other";
    }
}

int compute_queue_family(VkPhysicalDevice physical) {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
    for (uint32_t i = 0; i < count; ++i) {
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return static_cast<int>(i);
    }
    return -1;
}

// What a device lacks for swinup's portable shaders ("" = nothing). Each requirement is named as
// the Vulkan specification names it (docs/vulkan.md lists them).
std::string missing_requirements(VkPhysicalDevice physical) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical, &props);
    std::vector<std::string> missing;
    if (props.apiVersion < VK_API_VERSION_1_1) {
        missing.push_back("Vulkan 1.1 (the device offers " + version_text(props.apiVersion) + ")");
    }
    if (compute_queue_family(physical) < 0) missing.push_back("a queue family with VK_QUEUE_COMPUTE_BIT");
    if (props.limits.maxComputeWorkGroupInvocations < 256) {
        missing.push_back("maxComputeWorkGroupInvocations >= 256");
    }
    if (props.limits.maxComputeSharedMemorySize < 16384) {
        missing.push_back("maxComputeSharedMemorySize >= 16384");
    }
    std::string text;
    for (size_t i = 0; i < missing.size(); ++i) text += (i ? ", " : "") + missing[i];
    return text;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

VkPhysicalDevice select_physical(VkInstance instance, const std::string& selector) {
    const auto devices = physical_devices(instance);
    if (devices.empty()) throw VulkanError(SWINUP_STATUS_UNSUPPORTED, "no Vulkan device found");
    std::string names;
    for (size_t i = 0; i < devices.size(); ++i) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devices[i], &p);
        names += (i ? ", " : "") + std::to_string(i) + ": " + p.deviceName;
    }
    if (selector.empty()) return devices[0];
    const bool numeric = std::all_of(selector.begin(), selector.end(),
                                     [](unsigned char c) { return std::isdigit(c) != 0; });
    if (numeric) {
        const unsigned long index = std::stoul(selector);
        if (index < devices.size()) return devices[index];
        throw VulkanError(SWINUP_STATUS_INVALID_ARGUMENT,
                          "Vulkan device index " + selector + " is out of range (devices: " + names + ")");
    }
    for (auto d : devices) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(d, &p);
        if (lower(p.deviceName).find(lower(selector)) != std::string::npos) return d;
    }
    throw VulkanError(SWINUP_STATUS_INVALID_ARGUMENT,
                      "no Vulkan device's name contains \"" + selector + "\" (devices: " + names + ")");
}

}  // namespace

std::string version_text(uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
           std::to_string(VK_API_VERSION_PATCH(v));
}

MatrixSupport query_matrix_support(VkInstance instance, VkPhysicalDevice physical) {
    MatrixSupport m;
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical, &props);
    if (!SWINUP_VULKAN_MATRIX_SHADERS) {
        m.reason = "this build has no cooperative-matrix shaders";
        return m;
    }
    // The matrix shaders' SPIR-V is Vulkan 1.3's and uses f16 arithmetic and the Vulkan memory model.
    if (props.apiVersion < VK_API_VERSION_1_3) {
        m.reason = "Vulkan 1.3 is needed (the device offers " + version_text(props.apiVersion) + ")";
        return m;
    }
    if (!has_cooperative_matrix_extension(physical)) {
        m.reason = "no VK_KHR_cooperative_matrix";
        return m;
    }
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR fmatrix{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &f12;
    VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    f13.pNext = &fmatrix;
    f12.pNext = &f13;
    vkGetPhysicalDeviceFeatures2(physical, &features);
    if (!fmatrix.cooperativeMatrix || !f12.shaderFloat16 || !f12.vulkanMemoryModel ||
        !f12.vulkanMemoryModelDeviceScope || !f13.maintenance4) {
        m.reason = "cooperativeMatrix, shaderFloat16, vulkanMemoryModel(DeviceScope) or maintenance4 is not supported";
        return m;
    }
    if (!choose_matrix_shape(query_matrix_shapes(instance, physical), &m.shape)) {
        m.reason = "no f16 x f16 + f32 subgroup shape that fits the GEMM's tiles";
        return m;
    }
    m.usable = true;
    return m;
}

std::vector<PhysicalDeviceSummary> list_physical_devices() {
    VkInstance instance = make_instance(false);
    std::vector<PhysicalDeviceSummary> out;
    try {
        const auto devices = physical_devices(instance);
        for (uint32_t i = 0; i < devices.size(); ++i) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(devices[i], &p);
            const MatrixSupport matrix = query_matrix_support(instance, devices[i]);
            out.push_back({i, p.deviceName, device_type_text(p.deviceType), p.apiVersion,
                           missing_requirements(devices[i]),
                           matrix.usable ? "matrix units, " + shape_text(matrix.shape)
                                         : "portable (" + matrix.reason + ")"});
        }
    } catch (...) {
        vkDestroyInstance(instance, nullptr);
        throw;
    }
    vkDestroyInstance(instance, nullptr);
    return out;
}

VKAPI_ATTR VkBool32 VKAPI_CALL Device::on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                  VkDebugUtilsMessageTypeFlagsEXT,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    auto* self = static_cast<Device*>(user);
    const char* level = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning";
    std::lock_guard<std::mutex> lock(self->messages_mutex_);
    if (self->layer_predates_matrix_ && unparsed_matrix_module_report(data ? data->pMessage : nullptr)) {
        ++self->unparsed_matrix_reports_;
        return VK_FALSE;
    }
    self->messages_.push_back(std::string(level) + ": " + (data && data->pMessage ? data->pMessage : "(no text)"));
    return VK_FALSE;
}

std::unique_ptr<Device> Device::create(const DeviceOptions& options) {
    std::unique_ptr<Device> d(new Device());
    d->owned_ = true;
    d->instance_ = make_instance(options.validation);
    if (options.validation) {
        d->layer_predates_matrix_ = layer_spec_version(kValidationLayer) < VK_MAKE_API_VERSION(0, 1, 3, 255);
        auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(d->instance_, "vkCreateDebugUtilsMessengerEXT"));
        VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
        info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
        // Not PERFORMANCE: the host path keeps its own images in GENERAL layout on purpose (one
        // layout for shaders and copies), which the layer reports as a performance hint.
        info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
        info.pfnUserCallback = &Device::on_message;
        info.pUserData = d.get();
        if (!create_messenger) throw VulkanError(SWINUP_STATUS_UNSUPPORTED, "VK_EXT_debug_utils is missing");
        check(create_messenger(d->instance_, &info, nullptr, &d->messenger_), "vkCreateDebugUtilsMessengerEXT");
    }
    d->physical_ = select_physical(d->instance_, options.selector);
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(d->physical_, &props);
    const std::string missing = missing_requirements(d->physical_);
    if (!missing.empty()) {
        throw VulkanError(SWINUP_STATUS_UNSUPPORTED,
                          std::string("Vulkan device \"") + props.deviceName + "\" lacks " + missing);
    }
    d->queue_family_ = static_cast<uint32_t>(compute_queue_family(d->physical_));

    // Optional features: enabled when the device has them (DeviceCapabilities says which).
    VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceFeatures2 available{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    if (props.apiVersion >= VK_API_VERSION_1_2) {
        available.pNext = &f11;
        f11.pNext = &f12;
        if (props.apiVersion >= VK_API_VERSION_1_3) f12.pNext = &f13;
    } else {
        available.pNext = &storage16;
    }
    vkGetPhysicalDeviceFeatures2(d->physical_, &available);

    const bool matrix = query_matrix_support(d->instance_, d->physical_).usable;
    VkPhysicalDeviceVulkan13Features e13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceVulkan12Features e12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features e11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDevice16BitStorageFeatures e16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDeviceFeatures2 enable{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    enable.features.shaderInt64 = available.features.shaderInt64;
    enable.features.shaderFloat64 = available.features.shaderFloat64;
    if (props.apiVersion >= VK_API_VERSION_1_2) {
        enable.pNext = &e11;
        e11.pNext = &e12;
        e11.storageBuffer16BitAccess = f11.storageBuffer16BitAccess;
        e12.shaderFloat16 = f12.shaderFloat16;
        e12.shaderInt8 = f12.shaderInt8;
        e12.storageBuffer8BitAccess = f12.storageBuffer8BitAccess;
        // The memory model only with the matrix path, whose shaders use it: with it on, the other
        // shaders' device-scope atomics need vulkanMemoryModelDeviceScope as well.
        e12.vulkanMemoryModel = matrix ? VK_TRUE : VK_FALSE;
        e12.vulkanMemoryModelDeviceScope = matrix ? f12.vulkanMemoryModelDeviceScope : VK_FALSE;
        if (props.apiVersion >= VK_API_VERSION_1_3) {
            e12.pNext = &e13;
            e13.subgroupSizeControl = f13.subgroupSizeControl;
            e13.computeFullSubgroups = f13.computeFullSubgroups;
            e13.maintenance4 = f13.maintenance4;  // the matrix shaders' LocalSizeId
        }
    } else {
        enable.pNext = &e16;
        e16.storageBuffer16BitAccess = storage16.storageBuffer16BitAccess;
    }
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueFamilyIndex = d->queue_family_;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    // The matrix units: enabled with what their shaders also need (f16 arithmetic).
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR ematrix{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
    std::vector<const char*> device_extensions;
    if (matrix) {
        ematrix.cooperativeMatrix = VK_TRUE;
        e13.pNext = &ematrix;
        device_extensions.push_back(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
    }
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    info.pNext = &enable;
    info.enabledExtensionCount = uint32_t(device_extensions.size());
    info.ppEnabledExtensionNames = device_extensions.data();
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue_info;
    check(vkCreateDevice(d->physical_, &info, nullptr, &d->device_), "vkCreateDevice");
    vkGetDeviceQueue(d->device_, d->queue_family_, 0, &d->queue_);
    d->finish_setup();
    d->caps_.shader_int64 = enable.features.shaderInt64 == VK_TRUE;
    d->caps_.shader_float64 = enable.features.shaderFloat64 == VK_TRUE;
    d->caps_.storage_buffer_16bit = (props.apiVersion >= VK_API_VERSION_1_2 ? e11.storageBuffer16BitAccess
                                                                            : e16.storageBuffer16BitAccess) == VK_TRUE;
    d->caps_.shader_float16 = e12.shaderFloat16 == VK_TRUE;
    d->caps_.shader_int8 = e12.shaderInt8 == VK_TRUE;
    d->caps_.storage_buffer_8bit = e12.storageBuffer8BitAccess == VK_TRUE;
    d->caps_.subgroup_size_control = e13.subgroupSizeControl == VK_TRUE;
    d->caps_.maintenance4 = e13.maintenance4 == VK_TRUE;
    d->caps_.vulkan_memory_model = e12.vulkanMemoryModel == VK_TRUE;
    d->finish_matrix_setup(matrix);
    return d;
}

std::unique_ptr<Device> Device::wrap(const ExternalHandles& h) {
    if (!h.instance || !h.physical_device || !h.device) {
        throw VulkanError(SWINUP_STATUS_INVALID_ARGUMENT,
                          "the application's VkInstance, VkPhysicalDevice and VkDevice must all be given");
    }
    // Checked before vkGetDeviceQueue: a family (or queue) the device was not created with is
    // undefined behaviour there, not an error.
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(h.physical_device, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(h.physical_device, &count, families.data());
    if (h.queue_family >= count) {
        throw VulkanError(SWINUP_STATUS_INVALID_ARGUMENT,
                          "queue_family_index " + std::to_string(h.queue_family) +
                              " does not exist (the physical device has " + std::to_string(count) + " queue families)");
    }
    if (!(families[h.queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
        throw VulkanError(SWINUP_STATUS_INVALID_ARGUMENT,
                          "queue_family_index " + std::to_string(h.queue_family) + " has no VK_QUEUE_COMPUTE_BIT");
    }
    std::unique_ptr<Device> d(new Device());
    d->owned_ = false;
    d->instance_ = h.instance;
    d->physical_ = h.physical_device;
    d->device_ = h.device;
    d->queue_family_ = h.queue_family;
    if (h.allocator) {
        d->allocator_copy_ = *h.allocator;
        d->allocator_ = &d->allocator_copy_;
    }
    d->pipeline_cache_ = h.pipeline_cache;
    // The backend's host-path objects are made for queue 0 of the family; swinup never submits to
    // it on the application's device (the host path is refused there, and the weights' upload is
    // recorded into the frames: network_vulkan.h).
    vkGetDeviceQueue(h.device, h.queue_family, 0, &d->queue_);
    const std::string missing = missing_requirements(d->physical_);
    if (!missing.empty()) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(d->physical_, &props);
        throw VulkanError(SWINUP_STATUS_UNSUPPORTED,
                          std::string("Vulkan device \"") + props.deviceName + "\" lacks " + missing);
    }
    // Optional features: only what the application says it enabled.
    bool matrix_enabled = false;
    if (h.enabled_features) {
        d->caps_.shader_int64 = h.enabled_features->features.shaderInt64 == VK_TRUE;
        d->caps_.shader_float64 = h.enabled_features->features.shaderFloat64 == VK_TRUE;
        for (auto* s = static_cast<const VkBaseInStructure*>(h.enabled_features->pNext); s; s = s->pNext) {
            if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES) {
                d->caps_.storage_buffer_16bit = reinterpret_cast<const VkPhysicalDeviceVulkan11Features*>(s)->storageBuffer16BitAccess;
            } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES) {
                const auto* f = reinterpret_cast<const VkPhysicalDeviceVulkan12Features*>(s);
                d->caps_.shader_float16 = f->shaderFloat16;
                d->caps_.shader_int8 = f->shaderInt8;
                d->caps_.storage_buffer_8bit = f->storageBuffer8BitAccess;
                d->caps_.vulkan_memory_model = f->vulkanMemoryModel && f->vulkanMemoryModelDeviceScope;
            } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES) {
                const auto* f = reinterpret_cast<const VkPhysicalDeviceVulkan13Features*>(s);
                d->caps_.subgroup_size_control = f->subgroupSizeControl;
                d->caps_.maintenance4 = f->maintenance4;
            } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR) {
                // Valid only with VK_KHR_cooperative_matrix enabled: its presence in the chain
                // with the feature on is the application's statement that it enabled both.
                matrix_enabled = reinterpret_cast<const VkPhysicalDeviceCooperativeMatrixFeaturesKHR*>(s)->cooperativeMatrix == VK_TRUE;
            }
        }
    }
    d->finish_setup();
    d->finish_matrix_setup(matrix_enabled && d->caps_.shader_float16 &&
                           d->properties_.apiVersion >= VK_API_VERSION_1_3);
    return d;
}

void Device::finish_setup() {
    vkGetPhysicalDeviceProperties(physical_, &properties_);
    vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
    name_ = properties_.deviceName;
    caps_.api_version = properties_.apiVersion;
    caps_.max_workgroup_invocations = properties_.limits.maxComputeWorkGroupInvocations;
    caps_.max_shared_memory = properties_.limits.maxComputeSharedMemorySize;
    caps_.max_storage_buffer_range = properties_.limits.maxStorageBufferRange;
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceFloatControlsProperties float_controls{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
    VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props2.pNext = &subgroup;
    if (properties_.apiVersion >= VK_API_VERSION_1_2) subgroup.pNext = &float_controls;
    vkGetPhysicalDeviceProperties2(physical_, &props2);
    caps_.subgroup_size = subgroup.subgroupSize;
    caps_.denorm_preserve_float32 = properties_.apiVersion >= VK_API_VERSION_1_2 &&
                                    float_controls.shaderDenormPreserveFloat32 == VK_TRUE;

    VkSamplerCreateInfo sampler{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    sampler.magFilter = VK_FILTER_NEAREST;
    sampler.minFilter = VK_FILTER_NEAREST;
    sampler.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    sampler.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    sampler.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    sampler.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    sampler.unnormalizedCoordinates = VK_FALSE;
    check(vkCreateSampler(device_, &sampler, allocator_, &sampler_), "vkCreateSampler");
}

Device::~Device() {
    if (device_) {
        pipelines_.clear();
        if (sampler_) vkDestroySampler(device_, sampler_, allocator_);
    }
    if (!owned_) return;
    if (device_) vkDestroyDevice(device_, nullptr);
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance_, messenger_, nullptr);
    }
    if (instance_) vkDestroyInstance(instance_, nullptr);
}

uint32_t Device::memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                             VkMemoryPropertyFlags preferred) const {
    int fallback = -1;
    for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
        if (!(type_bits & (1u << i))) continue;
        const VkMemoryPropertyFlags flags = memory_.memoryTypes[i].propertyFlags;
        if ((flags & required) != required) continue;
        if ((flags & preferred) == preferred) return i;
        if (fallback < 0) fallback = static_cast<int>(i);
    }
    if (fallback >= 0) return static_cast<uint32_t>(fallback);
    throw VulkanError(SWINUP_STATUS_UNSUPPORTED,
                      "Vulkan device \"" + name_ + "\" has no memory type with property flags 0x" +
                          std::to_string(required) + " for this resource");
}

bool Device::memory_type_is_coherent(uint32_t type_index) const {
    return (memory_.memoryTypes[type_index].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
}

bool Device::format_supports(VkFormat format, VkFormatFeatureFlags features) const {
    VkFormatProperties props;
    vkGetPhysicalDeviceFormatProperties(physical_, format, &props);
    return (props.optimalTilingFeatures & features) == features;
}

const char* fast_gemm_path_name(FastGemmPath path) {
    switch (path) {
        case FastGemmPath::portable: return "portable";
        case FastGemmPath::matrix: return "matrix";
        case FastGemmPath::matrix_emulated: return "matrix-emulated";
    }
    return "portable";
}

void Device::finish_matrix_setup(bool matrix_enabled) {
    caps_.matrix_shapes = query_matrix_shapes(instance_, physical_);
    // The matrix shaders' SPIR-V uses the Vulkan memory model (GL_KHR_memory_scope_semantics).
    caps_.cooperative_matrix = SWINUP_VULKAN_MATRIX_SHADERS && matrix_enabled && caps_.vulkan_memory_model &&
                               caps_.maintenance4 &&
                               choose_matrix_shape(caps_.matrix_shapes, &caps_.matrix_shape);
    fast_gemm_path_ = caps_.cooperative_matrix ? FastGemmPath::matrix : FastGemmPath::portable;
    // The override for measurements and tests: one device, each path in turn.
    if (const char* env = std::getenv("SWINUP_VULKAN_FAST_GEMM")) {
        const std::string want = env;
        FastGemmPath path = fast_gemm_path_;
        if (want == "portable") path = FastGemmPath::portable;
        else if (want == "matrix") path = FastGemmPath::matrix;
        else if (want == "matrix-emulated") path = FastGemmPath::matrix_emulated;
        else throw VulkanError(SWINUP_STATUS_INVALID_ARGUMENT,
                               "SWINUP_VULKAN_FAST_GEMM=" + want + " is not portable, matrix or matrix-emulated");
        if (!set_fast_gemm_path(path)) {
            throw VulkanError(SWINUP_STATUS_UNSUPPORTED, "SWINUP_VULKAN_FAST_GEMM=" + want + ": Vulkan device \"" +
                                                             name_ + "\" cannot run that path");
        }
    }
}

bool Device::can_run(FastGemmPath path) const {
    switch (path) {
        case FastGemmPath::portable: return true;
        case FastGemmPath::matrix: return caps_.cooperative_matrix;
        // f16 shared-memory tiles, subgroup ids (Vulkan 1.1) and the Vulkan 1.3 SPIR-V.
        case FastGemmPath::matrix_emulated:
            return SWINUP_VULKAN_MATRIX_SHADERS && caps_.shader_float16 && caps_.maintenance4 &&
                   properties_.apiVersion >= VK_API_VERSION_1_3;
    }
    return false;
}

bool Device::set_fast_gemm_path(FastGemmPath path, const MatrixShape* emulated_shape) {
    if (!can_run(path)) return false;
    if (path == FastGemmPath::matrix_emulated) {
        MatrixShape shape = caps_.cooperative_matrix ? caps_.matrix_shape : MatrixShape{16, 16, 16};
        if (emulated_shape) shape = *emulated_shape;
        if (!choose_matrix_shape({shape}, nullptr)) return false;  // a shape the tiles cannot take
        emulated_shape_ = shape;
    }
    fast_gemm_path_ = path;
    return true;
}

const ComputePipeline& Device::pipeline(const PipelineDesc& desc) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto key = std::make_pair(desc.code ? desc.code->words : nullptr, desc.specialization);
    auto it = pipelines_.find(key);
    if (it == pipelines_.end()) {
        it = pipelines_.emplace(key, std::make_unique<ComputePipeline>(device_, desc, pipeline_cache_, allocator_)).first;
        ++pipelines_created_;
    }
    return *it->second;
}

std::vector<std::string> Device::validation_messages() const {
    std::lock_guard<std::mutex> lock(messages_mutex_);
    return messages_;
}

void Device::clear_validation_messages() {
    std::lock_guard<std::mutex> lock(messages_mutex_);
    messages_.clear();
}

}  // namespace swinup::vulkan
