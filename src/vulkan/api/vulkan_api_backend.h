// The backend behind a context made by swinup_vulkan_context_create (include/swinup/swinup_vulkan.h):
// the Vulkan backend on the application's device (or on one swinup made), able both to run a frame
// from host pointers (swinup_dispatch, own device only) and to record a frame into the
// application's command buffer on the application's images.
#pragma once

#include <memory>
#include <string>

#include "api/backend.h"
#include "api/context_state.h"
#include "api/log.h"
#include "swinup/swinup_vulkan.h"

namespace swinup::vulkan_api {

// One application image as the frame passes bind it (validated: vulkan_dispatch_validation.h).
struct BoundImage {
    VkImage image = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
};

struct FrameImages {
    BoundImage color, depth, motion_vectors, output;
    BoundImage exposure;  // image VK_NULL_HANDLE: none (frame.exposure_value, or auto exposure)
    BoundImage reactive_mask, transparency_mask;  // image VK_NULL_HANDLE: absent (0 at every pixel)
    // The timeline value the application's submission of the command buffer signals when it has
    // completed (swinup_vulkan_dispatch_desc.signal_semaphore / signal_value); VK_NULL_HANDLE: none,
    // the frame's slot is reused once its end-of-frame event is seen set (recording_slots.h).
    VkSemaphore completion_semaphore = VK_NULL_HANDLE;
    uint64_t completion_value = 0;
};

// swinup_vulkan_record_reactive_mask's images (validated).
struct ReactiveMaskImages {
    BoundImage opaque_color, final_color, output;
};

class VulkanApiBackend : public Backend {
public:
    // Records one frame into cmd. frame carries the scalars (validated); `before` is the context's
    // part of the sequence before this frame (kept until the frame is seen run, for abandon()). On
    // failure nothing usable was recorded, the temporal state is unchanged and *error says why.
    virtual swinup_status record(VkCommandBuffer cmd, const swinup_dispatch_desc& frame, const FrameImages& images,
                                 uint64_t frame_index, const ContextSequencePoint& before, std::string* error) = 0;
    // swinup_vulkan_abandon_frame: everything recorded into cmd and not seen run (frames, reactive
    // masks) will never be submitted. Their slots are free again, and when frames were among them
    // the temporal state is put back to what it was before the first of them; *restored is then the
    // context's part of it as record() got it, and *frames how many frames were abandoned (0: only
    // reactive masks, *restored untouched). Refused (INVALID_ARGUMENT, nothing changed) when
    // nothing recorded into cmd is pending, or when a frame recorded later elsewhere builds on them.
    virtual swinup_status abandon(VkCommandBuffer cmd, ContextSequencePoint* restored, size_t* frames,
                                  std::string* error) = 0;
    // Records the automatic reactive mask of `mask` (its parameters, validated) into cmd. Touches no
    // temporal state; on failure *error says why.
    virtual swinup_status record_reactive_mask(VkCommandBuffer cmd, const swinup_reactive_mask_desc& mask,
                                               const ReactiveMaskImages& images, std::string* error) = 0;
    // Tests of the failure past validation: the next record() fails with `result` after the frame's
    // commands are in cmd and before anything is committed, as a device error would.
    virtual void inject_record_failure(VkResult result) = 0;
    // The device the context runs on, as swinup_vulkan_context_get_device returns it.
    virtual swinup_vulkan_device_desc device() const = 0;
};

// Makes the backend: on the application's device when `device` is non-null (validated), else on a
// device swinup creates; `log` is the context's (the backend warns there when it is destroyed with
// recordings it never saw completed). Returns nullptr with *status and *message set on failure.
std::unique_ptr<VulkanApiBackend> make_vulkan_api_backend(const swinup_context_desc& desc,
                                                          std::shared_ptr<const Weights> weights,
                                                          const swinup_vulkan_device_desc* device, const Log& log,
                                                          swinup_status* status, std::string* message);

}  // namespace swinup::vulkan_api
