// The descriptor sets of frames recorded into the application's command buffers, and when they
// may be reused. swinup does not submit those command buffers, so it cannot wait for them; instead
// each recorded frame ends with vkCmdSetEvent on its slot's event, and a slot (its descriptor
// arena) is reused only once the host sees that event set, i.e. once every command recorded before
// it in submission order, this frame's dispatches included, has completed. A slot whose frame is
// still pending is left alone and another is taken; at most kMaxSlots frames can be pending at
// once. A frame that is never submitted keeps its slot until the context is destroyed.
#pragma once

#include <vulkan/vulkan.h>

#include <memory>
#include <vector>

#include "vulkan/runtime/recorder.h"

namespace swinup::vulkan_api {

class RecordingSlots {
public:
    static constexpr size_t kMaxSlots = 8;

    explicit RecordingSlots(VkDevice device) : device_(device) {}
    ~RecordingSlots();
    RecordingSlots(const RecordingSlots&) = delete;
    RecordingSlots& operator=(const RecordingSlots&) = delete;

    struct Slot {
        std::unique_ptr<vulkan::DescriptorArena> arena;
        VkEvent event = VK_NULL_HANDLE;
        bool pending = false;  // recorded, and its event not yet seen set
    };

    // A slot whose earlier frame (if any) has completed, its arena reset and its event unset.
    // Throws VulkanError(UNSUPPORTED) when kMaxSlots frames are still pending.
    Slot& acquire();
    // The frame recorded with `slot` is in the command buffer: records the event that says when it
    // is done. Only after a frame recorded successfully; a failed recording calls release().
    void finish(Slot& slot, VkCommandBuffer commands);
    // The slot's recording failed: nothing of it will run (the caller's command buffer must not be
    // submitted with a half-recorded frame in it: the header says so), so it is free again.
    void release(Slot& slot);

    size_t pending_count() const;

private:
    VkDevice device_;
    std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace swinup::vulkan_api
