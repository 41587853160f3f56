// A compute pipeline made from embedded SPIR-V. Every binding is in descriptor set 0, binding i
// being PipelineDesc::bindings[i]; push constants are one block of push_constant_size bytes.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <vector>

#include "vulkan/runtime/device_object.h"
#include "vulkan/runtime/spirv_code.h"

namespace swinup::vulkan {

enum class BindingKind {
    StorageBuffer,  // layout(std430, binding = i) buffer ...
    StorageImage,   // layout(<format>, binding = i) uniform image2D ...  (read and/or write)
    SampledImage,   // layout(binding = i) uniform sampler2D ...  (read with texelFetch)
};

struct PipelineDesc {
    const SpirvCode* code = nullptr;
    std::vector<BindingKind> bindings;
    uint32_t push_constant_size = 0;       // bytes, a multiple of 4, at most 128
    std::vector<uint32_t> specialization;  // constant_id i = specialization[i] (32-bit values)
    // Non-zero: the subgroup size the shader is written for (VK_EXT_subgroup_size_control /
    // Vulkan 1.3), for devices whose subgroup size varies between pipelines; the caller checks
    // that the device allows it. The pipeline cache key is the SPIR-V and the specialization, so a
    // shader that sets this also passes it as a specialization constant.
    uint32_t required_subgroup_size = 0;
};

// Move-only (its members are); destroyed with its Device.
class ComputePipeline {
public:
    // cache: a VkPipelineCache the driver may read and fill (VK_NULL_HANDLE: none); allocator: the
    // host allocation callbacks every object of it is made and destroyed with (nullptr: the driver's).
    ComputePipeline(VkDevice device, const PipelineDesc& desc, VkPipelineCache cache,
                    const VkAllocationCallbacks* allocator);

    VkPipeline handle() const { return pipeline_.get(); }
    VkPipelineLayout layout() const { return layout_.get(); }
    VkDescriptorSetLayout set_layout() const { return set_layout_.get(); }
    const std::vector<BindingKind>& bindings() const { return bindings_; }
    uint32_t push_constant_size() const { return push_size_; }
    const std::string& name() const { return name_; }

private:
    // Destroyed in reverse: the pipeline, its layout, then the set layout.
    DeviceObject<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout> set_layout_;
    DeviceObject<VkPipelineLayout, vkDestroyPipelineLayout> layout_;
    DeviceObject<VkPipeline, vkDestroyPipeline> pipeline_;
    std::vector<BindingKind> bindings_;
    uint32_t push_size_ = 0;
    std::string name_;
};

VkDescriptorType descriptor_type(BindingKind kind);

}  // namespace swinup::vulkan
