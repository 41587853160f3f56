// The descriptor sets of frames recorded into the application's command buffers, and when they
// may be reused. swinup does not submit those command buffers, so it cannot wait for them; instead
// each recorded frame ends with vkCmdSetEvent on its slot's event, and a slot (its descriptor
// arena) is reused only once the host sees that event set, i.e. once every command recorded before
// it in submission order, this frame's dispatches included, has completed. A slot whose frame is
// still pending is left alone and another is taken; at most kMaxSlots frames can be pending at
// once. A frame that is never submitted keeps its slot until the context is destroyed.
#pragma once

#include <vulkan/vulkan.h>

#include <functional>
#include <memory>
#include <vector>

#include "vulkan/runtime/recorder.h"

namespace swinup::vulkan_api {

class RecordingSlots {
public:
    static constexpr size_t kMaxSlots = 8;

    // allocator: the device's (vulkan::Device::allocator), used for the events and descriptor pools.
    RecordingSlots(VkDevice device, const VkAllocationCallbacks* allocator) : device_(device), allocator_(allocator) {}
    ~RecordingSlots();
    RecordingSlots(const RecordingSlots&) = delete;
    RecordingSlots& operator=(const RecordingSlots&) = delete;

    struct Slot {
        size_t index = 0;  // its place among the slots (0 .. kMaxSlots - 1), for per-slot storage
        std::unique_ptr<vulkan::DescriptorArena> arena;
        VkEvent event = VK_NULL_HANDLE;
        bool pending = false;  // recorded, and its event not yet seen set
        bool frame = true;     // it records a frame (whose counts on_completed reads), not a reactive mask
    };

    // A slot whose earlier frame (if any) has completed, its arena reset and its event unset.
    // Throws VulkanError(UNSUPPORTED) when kMaxSlots frames are still pending.
    Slot& acquire();
    // Frees every pending slot whose frame has completed (its event set), reporting each such
    // frame once to the on_completed function; acquire() does the same as it looks for a slot.
    void collect();
    // Called with each slot whose frame is seen completed, before the slot is reused (its frame's
    // results, written before the event, may be read there).
    void on_completed(std::function<void(Slot&)> f) { on_completed_ = std::move(f); }
    // The frame recorded with `slot` is in the command buffer: records the event that says when it
    // is done. Only after a frame recorded successfully; a failed recording calls release().
    void finish(Slot& slot, VkCommandBuffer commands);
    // The slot's recording failed: nothing of it will run (the caller's command buffer must not be
    // submitted with a half-recorded frame in it: the header says so), so it is free again.
    void release(Slot& slot);

    size_t pending_count() const;

private:
    // Its event is set (the event is reset again).
    bool completed(Slot& slot);
    VkDevice device_;
    const VkAllocationCallbacks* allocator_;
    std::function<void(Slot&)> on_completed_;
    std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace swinup::vulkan_api
