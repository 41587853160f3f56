// Host-side recording of the passes before and after the network (docs/model-spec.md, "Staging"
// and "Output pass"), each one shader of shaders/frame/: exposure, input planes, staging, output,
// recurrent features. The same recording serves the host-pointer path (swinup's own images) and
// the Vulkan-facing API (the application's images): inputs are read as sampled images in the
// layout the caller states, the output is written as a storage image in GENERAL layout.
#pragma once

#include <vulkan/vulkan.h>

#include <memory>

#include "frame/frame_sequence.h"
#include "swinup/swinup.h"
#include "vulkan/frame/frame_push.h"
#include "vulkan/runtime/device.h"
#include "vulkan/runtime/memory.h"
#include "vulkan/runtime/recorder.h"

namespace swinup::vulkan {

// A sampled input image as a pass binds it.
struct InputView {
    VkImageView view = VK_NULL_HANDLE;
    VkImageLayout layout = VK_IMAGE_LAYOUT_GENERAL;
};

struct FrameInputViews {
    InputView color, depth, motion;
    InputView exposure;  // view VK_NULL_HANDLE: no exposure texture
    // The masks (view VK_NULL_HANDLE: absent, 0 at every pixel), R8_UNORM, R16_SFLOAT or R32_SFLOAT
    // images; *_unorm8 says the image holds UNORM8 codes (read as code / 255 like the CPU).
    InputView reactive, transparency;
    bool reactive_unorm8 = false, transparency_unorm8 = false;
};

// The FramePush flags that say which masks a frame has (kFlagReactiveMask, kFlagTransparencyMask).
uint32_t mask_flags(const FrameInputViews& inputs);

// The buffers of a frame and of the temporal state, allocated once for the largest sizes: the
// Vulkan twin of cpu::FramePlanes and cpu::TemporalState. Render-resolution planes are packed
// with the frame's width; the state is double-buffered (slot FrameSetup::current is read,
// FrameSetup::next written, and only a successful frame's commit swaps them).
struct FrameBuffers {
    FrameBuffers(Device& device, int max_render_width, int max_render_height, int display_width,
                 int display_height);
    // Records what makes the buffers ready for the first frame: the state zeroed, the stand-in
    // exposure image moved to GENERAL layout. Once, before the first frame.
    void record_initialise(Recorder& recorder);

    Buffer color, motion, dilated, tc;  // f32 planes (3, 2, 2, 3 per render pixel)
    Buffer staged;                       // padded grid, 16 e4m3 codes a pixel (4 per uint)
    Buffer head;                         // padded grid, 16 f32 a pixel
    Buffer scalars;                      // FrameScalars
    Buffer row_sums;                     // f64 per render row (auto exposure)
    Buffer history[2];                   // display w * h * 4 f16
    Buffer depth[2];                     // render w * h f32 reverse-Z
    Buffer recurrent[2];                 // render w * h * 4 f16
    Buffer masks;                        // render w * h * 2 f32: staged (reactive, transparency)
    Buffer mask_tokens;                  // padded grid, 4 e4m3 codes a pixel: the network's masks
    Image no_exposure;                   // 1x1 R32F bound when a frame has no exposure texture
    Image no_mask;                       // 1x1 R32F bound for an absent mask (never read)
    Buffer presharpen;                   // display w * h * 3 f32: the output before sharpening
};

// The FramePush of a frame (its setup, the dispatch's motion scales, the network's
// still_history_shift).
FramePush frame_push(const FrameSetup& frame, const swinup_dispatch_desc& desc, float still_history_shift);

// The VkFormat of the output image for an output format (RGBA16F, R10G10B10A2, RGBA8, B10G11R11F), or
// VK_FORMAT_UNDEFINED for any other.
VkFormat output_vk_format(swinup_format format);

class FramePasses {
public:
    // Throws VulkanError when a pipeline cannot be made.
    FramePasses(Device& device, swinup_precision precision);

    // Makes the pipeline of every pass a frame of this context records (the exposure passes of
    // auto exposure or of a fixed exposure, mask_tokens when the network reads masks, the output
    // pass of output_format), so that recording a frame makes none.
    void build_pipelines(bool auto_exposure, bool mask_tokens, swinup_format output_format);

    // The frame's exposure into buffers.scalars (and its counters cleared): automatic (needs
    // shaderFloat64: VulkanError(UNSUPPORTED) naming it otherwise), the exposure texture's value,
    // or frame.exposure.value.
    void record_exposure(Recorder& rec, const FramePush& push, const FrameSetup& frame,
                         const FrameInputViews& inputs, FrameBuffers& buffers);
    // Colour, depth (into buffers.depth[frame.next]) and motion planes, replaced values counted;
    // the masks into buffers.masks when `push` has a mask flag (mask_flags(inputs)).
    void record_input_planes(Recorder& rec, const FramePush& push, const FrameSetup& frame,
                             const FrameInputViews& inputs, FrameBuffers& buffers);
    // The staged slots, t(colour) and dilated motion.
    void record_staging(Recorder& rec, const FramePush& push, const FrameSetup& frame, FrameBuffers& buffers);
    // After the input planes: buffers.masks as the network's mask_embed reads them into
    // buffers.mask_tokens (lite: 2x2 pixels a token; full: a pixel a token).
    void record_mask_tokens(Recorder& rec, const FramePush& push, FrameBuffers& buffers, bool lite);
    // After the network wrote buffers.head: the output image (its format `format`, a storage
    // image in GENERAL layout) and the new history (buffers.history[frame.next]); reads
    // buffers.masks when `push` has a mask flag. With push.sharpness > 0 the output's values go to
    // buffers.presharpen instead, for record_sharpen to write the image.
    void record_output(Recorder& rec, const FramePush& push, const FrameSetup& frame, FrameBuffers& buffers,
                       VkImageView output, swinup_format format);
    // After record_output of a frame with push.sharpness > 0 (and a barrier): the sharpened output
    // (frame/sharpen_pixel.h, shaders/frame/sharpen.comp) from buffers.presharpen into `output`.
    void record_sharpen(Recorder& rec, const FramePush& push, FrameBuffers& buffers, VkImageView output,
                        swinup_format format);
    // The recurrent features of buffers.head into buffers.recurrent[frame.next].
    void record_recurrent(Recorder& rec, const FramePush& push, const FrameSetup& frame, FrameBuffers& buffers);

private:
    Device& device_;
    swinup_precision precision_;
};

}  // namespace swinup::vulkan
