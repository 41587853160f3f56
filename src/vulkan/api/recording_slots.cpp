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
    if (slot.completion.semaphore != VK_NULL_HANDLE) {
        uint64_t value = 0;
        vulkan::check(get_counter_(device_, slot.completion.semaphore, &value), "vkGetSemaphoreCounterValue");
        if (value < slot.completion.value) return false;  // the command buffer may still be pending
        // The whole submission completed, so the event (recorded in it) is set.
    }
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

RecordingSlots::Slot& RecordingSlots::acquire(const Completion& completion) {
    if (completion.semaphore != VK_NULL_HANDLE && get_counter_ == nullptr) {
        // Core in Vulkan 1.2, else VK_KHR_timeline_semaphore's name for it.
        get_counter_ = reinterpret_cast<PFN_vkGetSemaphoreCounterValue>(
            vkGetDeviceProcAddr(device_, "vkGetSemaphoreCounterValue"));
        if (get_counter_ == nullptr) {
            get_counter_ = reinterpret_cast<PFN_vkGetSemaphoreCounterValue>(
                vkGetDeviceProcAddr(device_, "vkGetSemaphoreCounterValueKHR"));
        }
        if (get_counter_ == nullptr) {
            throw vulkan::VulkanError(SWINUP_STATUS_UNSUPPORTED,
                                      "vulkan_dispatch.signal_semaphore: the device has no vkGetSemaphoreCounterValue "
                                      "(timeline semaphores: Vulkan 1.2 or VK_KHR_timeline_semaphore)");
        }
    }
    Slot& slot = take();
    slot.completion = completion;
    return slot;
}

RecordingSlots::Slot& RecordingSlots::take() {
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
    slot.completion = {};
}

std::vector<RecordingSlots::Slot*> RecordingSlots::pending_in(VkCommandBuffer commands) {
    std::vector<Slot*> found;
    for (auto& s : slots_)
        if (s->pending && s->commands == commands) found.push_back(s.get());
    return found;
}

size_t RecordingSlots::pending_count() const {
    size_t n = 0;
    for (const auto& s : slots_) n += s->pending ? 1 : 0;
    return n;
}

size_t RecordingSlots::unfinished_count() const {
    size_t n = 0;
    for (const auto& s : slots_) n += s->pending && vkGetEventStatus(device_, s->event) != VK_EVENT_SET ? 1 : 0;
    return n;
}

}  // namespace swinup::vulkan_api
