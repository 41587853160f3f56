// The descriptor sets of frames recorded into the application's command buffers, and when they
// may be reused. swinup does not submit those command buffers, so it cannot wait for them. A slot
// (its descriptor arena) is reused only once its frame is known to be done:
// - with the frame's completion point (the application's timeline semaphore and the value its
//   submission of the command buffer signals, swinup_vulkan_dispatch_desc.signal_semaphore /
//   signal_value), once the semaphore's counter has reached that value: the whole command buffer
//   has then completed, so the pool is never reset while it is pending (vkResetDescriptorPool's
//   rule), and the validation layer, which sees the counter read, knows it too;
// - without one (or for a reactive mask, whose descriptor has none), once the host sees the event
//   recorded at the end of the frame's commands set: every command recorded before it in
//   submission order, this frame's dispatches included, has completed, but commands the
//   application recorded after swinup's may still run, so the command buffer may still be pending.
// A slot whose frame is still pending is left alone and another is taken; at most kMaxSlots frames
// can be pending at once. A frame that is never submitted keeps its slot until the application
// abandons it (give_up) or the context is destroyed.
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

    // The point of the application's timeline semaphore its submission of the recorded command
    // buffer signals once that command buffer has completed; semaphore VK_NULL_HANDLE: none.
    struct Completion {
        VkSemaphore semaphore = VK_NULL_HANDLE;
        uint64_t value = 0;
    };

    struct Slot {
        size_t index = 0;  // its place among the slots (0 .. kMaxSlots - 1), for per-slot storage
        std::unique_ptr<vulkan::DescriptorArena> arena;
        VkEvent event = VK_NULL_HANDLE;
        Completion completion;  // of the frame recorded with it
        bool pending = false;  // recorded, and not yet seen completed
        bool frame = true;     // it records a frame (whose counts on_completed reads), not a reactive mask
        VkCommandBuffer commands = VK_NULL_HANDLE;  // the application's command buffer it recorded into
    };

    // A slot whose earlier frame (if any) has completed, its arena reset and its event unset, taken
    // for a frame that completes at `completion`. Throws VulkanError(UNSUPPORTED) when kMaxSlots
    // frames are still pending, or when a completion semaphore is given on a device without
    // vkGetSemaphoreCounterValue (no timeline semaphores).
    Slot& acquire(const Completion& completion);
    // Frees every pending slot whose frame has completed (as completed() tells), reporting each such
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

    // The application will never submit the slot's recording (swinup_vulkan_abandon_frame): the
    // slot is free again. Its arena is reset only when the slot is next acquired, so the
    // application's command buffer, which still refers to its descriptor sets, stays valid to end,
    // reset or free until swinup records anything more.
    void give_up(Slot& slot) { slot.pending = false; }
    // The pending slots that recorded into `commands`.
    std::vector<Slot*> pending_in(VkCommandBuffer commands);

    size_t pending_count() const;
    // The pending slots whose end-of-frame event is not set: their commands may still be to run.
    // Reads the events only, never the application's semaphores, which it may already have
    // destroyed (the context's destruction asks this after the application's last wait).
    size_t unfinished_count() const;

private:
    // Its frame is known to have completed (its completion point reached, or with none its event
    // set); the event is then reset for the slot's next frame.
    bool completed(Slot& slot);
    Slot& take();  // acquire's search for a free slot
    VkDevice device_;
    const VkAllocationCallbacks* allocator_;
    PFN_vkGetSemaphoreCounterValue get_counter_ = nullptr;  // looked up on the first completion point
    std::function<void(Slot&)> on_completed_;
    std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace swinup::vulkan_api
