#include "vulkan/api/recording_slots.h"

#include <string>

#include "vulkan/runtime/vulkan_error.h"

namespace swinup::vulkan_api {

RecordingSlots::~RecordingSlots() {
    // The header requires every recorded frame to have completed before the context is destroyed.
    for (auto& s : slots_) {
        s->arena.reset();
        if (s->event) vkDestroyEvent(device_, s->event, allocator_);
    }
}

bool RecordingSlots::completed(Slot& slot) {
    const VkResult status = vkGetEventStatus(device_, slot.event);
    if (status == VK_EVENT_RESET) return false;  // its frame has not completed yet
    if (status != VK_EVENT_SET) vulkan::check(status, "vkGetEventStatus");
    vulkan::check(vkResetEvent(device_, slot.event), "vkResetEvent");
    return true;
}

void RecordingSlots::collect() {
    for (auto& s : slots_) {
        if (s->pending && completed(*s)) {
            if (on_completed_) on_completed_(*s);
            s->pending = false;
        }
    }
}

RecordingSlots::Slot& RecordingSlots::acquire() {
    for (auto& s : slots_) {
        if (s->pending) {
            if (!completed(*s)) continue;
            if (on_completed_) on_completed_(*s);
            s->pending = false;
        }
        s->arena->reset();
        s->pending = true;
        return *s;
    }
    if (slots_.size() == kMaxSlots) {
        throw vulkan::VulkanError(SWINUP_STATUS_UNSUPPORTED,
                                  std::to_string(kMaxSlots) +
                                      " frames recorded earlier have not completed on the GPU (submit each "
                                      "recorded command buffer; swinup reuses a frame's descriptor sets only "
                                      "after it ran)");
    }
    auto slot = std::make_unique<Slot>();
    slot->index = slots_.size();
    slot->arena = std::make_unique<vulkan::DescriptorArena>(device_, allocator_);
    VkEventCreateInfo info{VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
    vulkan::check(vkCreateEvent(device_, &info, allocator_, &slot->event), "vkCreateEvent");
    slot->pending = true;
    slots_.push_back(std::move(slot));
    return *slots_.back();
}

void RecordingSlots::finish(Slot& slot, VkCommandBuffer commands) {
    vkCmdSetEvent(commands, slot.event, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT);
}

void RecordingSlots::release(Slot& slot) {
    slot.arena->reset();
    slot.pending = false;
}

size_t RecordingSlots::pending_count() const {
    size_t n = 0;
    for (const auto& s : slots_) n += s->pending ? 1 : 0;
    return n;
}

}  // namespace swinup::vulkan_api
