#include "vulkan/runtime/recorder.h"

#include <string>

#include "vulkan/runtime/device.h"
#include "vulkan/runtime/vulkan_error.h"

namespace swinup::vulkan {
namespace {

constexpr VkPipelineStageFlags kWorkStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kWrites = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
constexpr VkAccessFlags kAll = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                               VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
constexpr uint32_t kSetsPerPool = 256;

const char* kind_name(BindingKind k) {
    switch (k) {
        case BindingKind::StorageBuffer: return "storage buffer";
        case BindingKind::StorageImage: return "storage image";
        case BindingKind::SampledImage: return "sampled image";
    }
    return "?";
}

}  // namespace

DescriptorArena::~DescriptorArena() {
    for (auto pool : pools_) vkDestroyDescriptorPool(device_, pool, allocator_);
}

void DescriptorArena::add_pool() {
    VkDescriptorPoolSize sizes[] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * 8},
        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, kSetsPerPool * 2},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, kSetsPerPool * 2},
    };
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = kSetsPerPool;
    info.poolSizeCount = 3;
    info.pPoolSizes = sizes;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    check(vkCreateDescriptorPool(device_, &info, allocator_, &pool), "vkCreateDescriptorPool");
    pools_.push_back(pool);
}

VkDescriptorSet DescriptorArena::allocate(VkDescriptorSetLayout layout) {
    for (;;) {
        if (current_ == pools_.size()) add_pool();
        VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        info.descriptorPool = pools_[current_];
        info.descriptorSetCount = 1;
        info.pSetLayouts = &layout;
        VkDescriptorSet set = VK_NULL_HANDLE;
        const VkResult result = vkAllocateDescriptorSets(device_, &info, &set);
        if (result == VK_SUCCESS) return set;
        if (result != VK_ERROR_OUT_OF_POOL_MEMORY && result != VK_ERROR_FRAGMENTED_POOL) {
            check(result, "vkAllocateDescriptorSets");
        }
        ++current_;  // this pool is full: the next one (made when needed)
    }
}

void DescriptorArena::reset() {
    for (auto pool : pools_) vkResetDescriptorPool(device_, pool, 0);
    current_ = 0;
}

void Recorder::barrier(bool to_host) {
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = kWrites;
    b.dstAccessMask = kAll | (to_host ? VkAccessFlags{VK_ACCESS_HOST_READ_BIT} : VkAccessFlags{0});
    vkCmdPipelineBarrier(commands_, kWorkStages, kWorkStages | (to_host ? VkPipelineStageFlags{VK_PIPELINE_STAGE_HOST_BIT} : VkPipelineStageFlags{0}), 0, 1,
                         &b, 0, nullptr, 0, nullptr);
    pending_ = false;
}

void Recorder::before_command() {
    if (pending_ && !concurrent_) barrier();
    pending_ = true;
}

void Recorder::dispatch_raw(const ComputePipeline& pipeline, const Bind* bindings, size_t count, const void* push,
                            uint32_t push_bytes, Groups groups) {
    const auto& kinds = pipeline.bindings();
    if (count != kinds.size()) {
        throw VulkanError(SWINUP_STATUS_INTERNAL, "shader " + pipeline.name() + " takes " + std::to_string(kinds.size()) +
                                                      " bindings, the dispatch gave " + std::to_string(count));
    }
    if (push_bytes != pipeline.push_constant_size()) {
        throw VulkanError(SWINUP_STATUS_INTERNAL, "shader " + pipeline.name() + " takes " +
                                                      std::to_string(pipeline.push_constant_size()) +
                                                      " bytes of push constants, the dispatch gave " +
                                                      std::to_string(push_bytes));
    }
    std::vector<VkDescriptorBufferInfo> buffers(count);
    std::vector<VkDescriptorImageInfo> images(count);
    std::vector<VkWriteDescriptorSet> writes(count);
    VkDescriptorSet set = count ? arena_.allocate(pipeline.set_layout()) : VK_NULL_HANDLE;
    for (size_t i = 0; i < count; ++i) {
        const Bind& b = bindings[i];
        if (b.kind != kinds[i]) {
            throw VulkanError(SWINUP_STATUS_INTERNAL, "shader " + pipeline.name() + " binding " + std::to_string(i) +
                                                          " is a " + kind_name(kinds[i]) + ", the dispatch gave a " +
                                                          kind_name(b.kind));
        }
        VkWriteDescriptorSet& w = writes[i];
        w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = set;
        w.dstBinding = static_cast<uint32_t>(i);
        w.descriptorCount = 1;
        w.descriptorType = descriptor_type(b.kind);
        if (b.kind == BindingKind::StorageBuffer) {
            if (!b.buffer_handle) {
                throw VulkanError(SWINUP_STATUS_INTERNAL, "shader " + pipeline.name() + " binding " +
                                                              std::to_string(i) + ": no buffer");
            }
            buffers[i] = {b.buffer_handle, b.offset, b.range};
            w.pBufferInfo = &buffers[i];
        } else {
            if (!b.view) {
                throw VulkanError(SWINUP_STATUS_INTERNAL, "shader " + pipeline.name() + " binding " +
                                                              std::to_string(i) + ": no image view");
            }
            images[i] = {b.kind == BindingKind::SampledImage ? device_.nearest_sampler() : VK_NULL_HANDLE, b.view,
                         b.layout};
            w.pImageInfo = &images[i];
        }
    }
    if (count) vkUpdateDescriptorSets(device_.handle(), static_cast<uint32_t>(count), writes.data(), 0, nullptr);
    before_command();
    vkCmdBindPipeline(commands_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
    if (count) {
        vkCmdBindDescriptorSets(commands_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1, &set, 0, nullptr);
    }
    if (push_bytes) {
        vkCmdPushConstants(commands_, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
    }
    vkCmdDispatch(commands_, groups.x, groups.y, groups.z);
}

void Recorder::copy_buffer(const Buffer& src, VkDeviceSize src_offset, const Buffer& dst, VkDeviceSize dst_offset,
                           VkDeviceSize bytes) {
    before_command();
    VkBufferCopy region{src_offset, dst_offset, bytes};
    vkCmdCopyBuffer(commands_, src.handle(), dst.handle(), 1, &region);
}

void Recorder::fill_buffer(const Buffer& dst, uint32_t value) {
    before_command();
    vkCmdFillBuffer(commands_, dst.handle(), 0, VK_WHOLE_SIZE, value);
}

// The top-left width x height texels of `image` (0: its whole width or height), packed in a
// buffer from `offset`.
static VkBufferImageCopy copy_region(const Image& image, VkDeviceSize offset, uint32_t width, uint32_t height) {
    VkBufferImageCopy region{};
    region.bufferOffset = offset;
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {width ? width : image.width(), height ? height : image.height(), 1};
    return region;
}

void Recorder::copy_buffer_to_image(const Buffer& src, VkDeviceSize offset, const Image& dst, uint32_t width,
                                    uint32_t height) {
    before_command();
    const VkBufferImageCopy region = copy_region(dst, offset, width, height);
    vkCmdCopyBufferToImage(commands_, src.handle(), dst.handle(), dst.layout, 1, &region);
}

void Recorder::copy_image_to_buffer(const Image& src, const Buffer& dst, VkDeviceSize offset, uint32_t width,
                                    uint32_t height) {
    before_command();
    const VkBufferImageCopy region = copy_region(src, offset, width, height);
    vkCmdCopyImageToBuffer(commands_, src.handle(), src.layout, dst.handle(), 1, &region);
}

void Recorder::transition(Image& image, VkImageLayout layout) {
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = image.layout == VK_IMAGE_LAYOUT_UNDEFINED ? 0u : kWrites;
    b.dstAccessMask = kAll;
    b.oldLayout = image.layout;
    b.newLayout = layout;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image.handle();
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(commands_, kWorkStages | VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, kWorkStages, 0, 0, nullptr, 0,
                         nullptr, 1, &b);
    image.layout = layout;
}

HostSubmitter::HostSubmitter(Device& device) : device_(device), arena_(device.handle(), device.allocator()) {
    if (!device.queue()) {
        throw VulkanError(SWINUP_STATUS_INVALID_ARGUMENT, "the host-pointer path needs a VkQueue, none was given");
    }
    VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool.queueFamilyIndex = device.queue_family();
    check(vkCreateCommandPool(device.handle(), &pool, device.allocator(), &pool_), "vkCreateCommandPool");
    try {
        VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        alloc.commandPool = pool_;
        alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        alloc.commandBufferCount = 1;
        check(vkAllocateCommandBuffers(device.handle(), &alloc, &commands_), "vkAllocateCommandBuffers");
        VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        check(vkCreateFence(device.handle(), &fence, device.allocator(), &fence_), "vkCreateFence");
    } catch (...) {
        vkDestroyCommandPool(device.handle(), pool_, device.allocator());
        throw;
    }
}

HostSubmitter::~HostSubmitter() {
    if (fence_) vkDestroyFence(device_.handle(), fence_, device_.allocator());
    vkDestroyCommandPool(device_.handle(), pool_, device_.allocator());
}

Recorder& HostSubmitter::begin() {
    check(vkResetCommandBuffer(commands_, 0), "vkResetCommandBuffer");
    arena_.reset();
    VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(commands_, &info), "vkBeginCommandBuffer");
    recorder_ = std::make_unique<Recorder>(device_, commands_, arena_);
    recording_ = true;
    return *recorder_;
}

void HostSubmitter::submit_and_wait(uint64_t timeout_ns) {
    if (!recording_) throw VulkanError(SWINUP_STATUS_INTERNAL, "submit_and_wait without begin");
    recording_ = false;
    recorder_->barrier(/*to_host=*/true);
    check(vkEndCommandBuffer(commands_), "vkEndCommandBuffer");
    if (injected_ != VK_SUCCESS) {
        const VkResult r = injected_;
        injected_ = VK_SUCCESS;
        check(r, "vkQueueSubmit");
    }
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &commands_;
    check(vkResetFences(device_.handle(), 1, &fence_), "vkResetFences");
    check(vkQueueSubmit(device_.queue(), 1, &submit, fence_), "vkQueueSubmit");
    const VkResult waited = vkWaitForFences(device_.handle(), 1, &fence_, VK_TRUE, timeout_ns);
    if (waited == VK_TIMEOUT) {
        throw VulkanError(SWINUP_STATUS_DEVICE_ERROR, "the Vulkan device did not finish the frame within " +
                                                          std::to_string(timeout_ns / 1000000ull) + " ms");
    }
    check(waited, "vkWaitForFences");
}

}  // namespace swinup::vulkan
