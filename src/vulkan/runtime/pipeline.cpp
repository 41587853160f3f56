#include "vulkan/runtime/pipeline.h"

#include "vulkan/runtime/vulkan_error.h"

namespace swinup::vulkan {

VkDescriptorType descriptor_type(BindingKind kind) {
    switch (kind) {
        case BindingKind::StorageBuffer: return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        case BindingKind::StorageImage: return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
        case BindingKind::SampledImage: return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    }
    return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

ComputePipeline::ComputePipeline(VkDevice device, const PipelineDesc& desc, VkPipelineCache cache,
                                 const VkAllocationCallbacks* allocator)
    : bindings_(desc.bindings), push_size_(desc.push_constant_size), name_(desc.code ? desc.code->name : "") {
    if (!desc.code || !desc.code->words || desc.code->word_count == 0) {
        throw VulkanError(SWINUP_STATUS_INTERNAL, "a pipeline was requested without SPIR-V");
    }
    if (push_size_ % 4 != 0 || push_size_ > 128) {
        throw VulkanError(SWINUP_STATUS_INTERNAL,
                          "shader " + name_ + ": push constants must be a multiple of 4 bytes, at most 128");
    }
    // A throw from here on destroys what is made so far (the members and `module`).
    std::vector<VkDescriptorSetLayoutBinding> layout_bindings;
    for (uint32_t i = 0; i < bindings_.size(); ++i) {
        VkDescriptorSetLayoutBinding b{};
        b.binding = i;
        b.descriptorType = descriptor_type(bindings_[i]);
        b.descriptorCount = 1;
        b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
        layout_bindings.push_back(b);
    }
    VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set_info.bindingCount = static_cast<uint32_t>(layout_bindings.size());
    set_info.pBindings = layout_bindings.data();
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    check(vkCreateDescriptorSetLayout(device, &set_info, allocator, &set_layout), "vkCreateDescriptorSetLayout");
    set_layout_ = DeviceObject<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout>(device, set_layout, allocator);

    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size_};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &set_layout;
    layout_info.pushConstantRangeCount = push_size_ ? 1u : 0u;
    layout_info.pPushConstantRanges = push_size_ ? &range : nullptr;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    check(vkCreatePipelineLayout(device, &layout_info, allocator, &layout), "vkCreatePipelineLayout");
    layout_ = DeviceObject<VkPipelineLayout, vkDestroyPipelineLayout>(device, layout, allocator);

    VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    module_info.codeSize = desc.code->word_count * sizeof(uint32_t);
    module_info.pCode = desc.code->words;
    VkShaderModule module_handle = VK_NULL_HANDLE;
    check(vkCreateShaderModule(device, &module_info, allocator, &module_handle), "vkCreateShaderModule");
    const DeviceObject<VkShaderModule, vkDestroyShaderModule> module(device, module_handle, allocator);  // only while creating

    std::vector<VkSpecializationMapEntry> entries;
    for (uint32_t i = 0; i < desc.specialization.size(); ++i) {
        entries.push_back({i, i * 4u, 4u});
    }
    VkSpecializationInfo spec{};
    spec.mapEntryCount = static_cast<uint32_t>(entries.size());
    spec.pMapEntries = entries.data();
    spec.dataSize = desc.specialization.size() * sizeof(uint32_t);
    spec.pData = desc.specialization.data();

    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module_handle;
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec;
    VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroup{
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
    if (desc.required_subgroup_size != 0) {
        subgroup.requiredSubgroupSize = desc.required_subgroup_size;
        info.stage.pNext = &subgroup;
    }
    info.layout = layout;
    VkPipeline pipeline = VK_NULL_HANDLE;
    check(vkCreateComputePipelines(device, cache, 1, &info, allocator, &pipeline),
          ("vkCreateComputePipelines (" + name_ + ")").c_str());
    pipeline_ = DeviceObject<VkPipeline, vkDestroyPipeline>(device, pipeline, allocator);
}

}  // namespace swinup::vulkan
