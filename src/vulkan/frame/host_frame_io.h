// The host-pointer path's copies (SWINUP_MEMORY_HOST): a dispatch's host inputs into images
// swinup owns (3-channel formats expanded to 4 on the host), and the output image back into the
// caller's output rows, so that the frame passes read and write images on both paths.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "swinup/swinup.h"
#include "vulkan/frame/frame_passes.h"
#include "vulkan/runtime/device.h"
#include "vulkan/runtime/memory.h"
#include "vulkan/runtime/recorder.h"

namespace swinup::vulkan {

// Throws VulkanError (INVALID_ARGUMENT, or UNSUPPORTED naming the format) unless the device can
// write the context's output format as a storage image: checked at creation on both paths.
void check_output_format_storable(const Device& device, swinup_format output_format);

class HostFrameIo {
public:
    // Allocates the upload and readback buffers and the output image for the context's largest
    // sizes; input images are made on first use of each input format. Throws VulkanError
    // (UNSUPPORTED naming the format) when the device cannot store the output format.
    HostFrameIo(Device& device, const swinup_context_desc& context);

    // Writes the frame's colour, depth and motion into the upload buffer and records their copies
    // into the input images; returns the views the input passes read (GENERAL layout). The
    // exposure texture of a host frame is read on the host (FrameSequence), so none is bound.
    FrameInputViews record_upload(Recorder& rec, const swinup_dispatch_desc& desc);
    // swinup_generate_reactive_mask's two colour images into images of their own (as
    // record_upload does a frame's); returns the views (GENERAL layout) of opaque and final colour.
    std::pair<InputView, InputView> record_upload_colours(Recorder& rec, const swinup_resource& opaque,
                                                          const swinup_resource& final_color);
    // Moves the output image to GENERAL layout on its first use (record_upload does it too).
    void record_prepare(Recorder& rec);
    // The output image (the context's output format, display size, GENERAL layout).
    VkImageView output_view() const { return output_.view(); }
    // Records the output image's copy into the readback buffer (after the output pass).
    void record_readback(Recorder& rec);
    // After the submission completed: the readback into desc.output's rows (its row pitch).
    void write_output(const swinup_dispatch_desc& desc) const;
    // The frame recorded since the last record_upload (or record_upload_colours) was not run (its submission failed): the
    // layouts its transitions would have set are forgotten, so the next frame records them again.
    void frame_not_run();

private:
    Image& input_image(int role, VkFormat format, uint32_t width, uint32_t height);
    // A host resource packed into the upload buffer at `offset` and copied into the role's image
    // (made `width` x `height` on first use); its view.
    InputView upload(Recorder& rec, int role, const swinup_resource& r, size_t offset, uint32_t width, uint32_t height);

    Device& device_;
    swinup_context_desc context_;
    Buffer upload_;
    Buffer readback_;
    Image output_;
    std::map<std::pair<int, VkFormat>, Image> inputs_;
    bool output_ready_ = false;
    // The images the frame being recorded moved out of UNDEFINED (their layouts are tracked when a
    // transition is recorded, not when it runs).
    std::vector<Image*> transitioned_;
};

}  // namespace swinup::vulkan
