#include "vulkan/frame/frame_passes.h"

#include <string>

#include "frame/formats.h"
#include "model/model_spec.h"
#include "vulkan/runtime/vulkan_error.h"
#include "vulkan_shaders.h"

namespace swinup::vulkan {
namespace {

using K = BindingKind;
constexpr uint32_t kPush = sizeof(FramePush);

size_t sz(int a, int b) { return static_cast<size_t>(a) * static_cast<size_t>(b); }

const SpirvCode& output_shader(swinup_precision precision, swinup_format format) {
    const bool fast = precision == SWINUP_PRECISION_FAST;
    switch (format) {
        case SWINUP_FORMAT_RGBA16F: return fast ? shaders::frame_output_pass_fast_rgba16f : shaders::frame_output_pass_exact_rgba16f;
        case SWINUP_FORMAT_R10G10B10A2: return fast ? shaders::frame_output_pass_fast_rgb10a2 : shaders::frame_output_pass_exact_rgb10a2;
        case SWINUP_FORMAT_RGBA8: return fast ? shaders::frame_output_pass_fast_rgba8 : shaders::frame_output_pass_exact_rgba8;
        case SWINUP_FORMAT_B10G11R11F:
            return fast ? shaders::frame_output_pass_fast_b10g11r11 : shaders::frame_output_pass_exact_b10g11r11;
        default: {
            const char* name = format_name(format);
            const std::string got = name != nullptr ? std::string(name)
                                                    : "swinup_format " + std::to_string(static_cast<int>(format));
            throw VulkanError(SWINUP_STATUS_INVALID_ARGUMENT,
                              "the output format must be RGBA16F, R10G10B10A2, RGBA8 or B10G11R11F (got " + got + ")");
        }
    }
}

// The pipeline of each pass: one definition for its recording and build_pipelines.
PipelineDesc exposure_rows_pipeline() {
    return {&shaders::frame_exposure_rows, {K::SampledImage, K::StorageBuffer}, kPush, {}};
}
PipelineDesc exposure_auto_pipeline() {
    return {&shaders::frame_exposure_auto, {K::StorageBuffer, K::StorageBuffer}, kPush, {}};
}
PipelineDesc exposure_fixed_pipeline() {
    return {&shaders::frame_exposure_fixed, {K::SampledImage, K::StorageBuffer}, kPush, {}};
}
PipelineDesc input_planes_pipeline() {
    return {&shaders::frame_input_planes,
            {K::SampledImage, K::SampledImage, K::SampledImage, K::StorageBuffer, K::StorageBuffer, K::StorageBuffer,
             K::StorageBuffer, K::SampledImage, K::SampledImage, K::StorageBuffer},
            kPush, {}};
}
PipelineDesc staging_pipeline() {
    return {&shaders::frame_staging,
            {K::StorageBuffer, K::StorageBuffer, K::StorageBuffer, K::StorageBuffer, K::StorageBuffer,
             K::StorageBuffer, K::StorageBuffer, K::StorageBuffer, K::StorageBuffer},
            kPush, {}};
}
PipelineDesc mask_tokens_pipeline() {
    return {&shaders::frame_mask_tokens, {K::StorageBuffer, K::StorageBuffer}, kPush, {}};
}
PipelineDesc output_pipeline(swinup_precision precision, swinup_format format) {
    return {&output_shader(precision, format),
            {K::StorageBuffer, K::StorageBuffer, K::StorageBuffer, K::StorageBuffer, K::StorageBuffer,
             K::StorageImage, K::StorageBuffer, K::StorageBuffer, K::StorageBuffer, K::StorageBuffer},
            kPush, {}};
}
PipelineDesc sharpen_pipeline(swinup_format format) {
    const SpirvCode* code = nullptr;
    switch (format) {
        case SWINUP_FORMAT_RGBA16F: code = &shaders::frame_sharpen_out_rgba16f; break;
        case SWINUP_FORMAT_R10G10B10A2: code = &shaders::frame_sharpen_out_rgb10a2; break;
        case SWINUP_FORMAT_RGBA8: code = &shaders::frame_sharpen_out_rgba8; break;
        case SWINUP_FORMAT_B10G11R11F: code = &shaders::frame_sharpen_out_b10g11r11; break;
        default:
            throw VulkanError(SWINUP_STATUS_INVALID_ARGUMENT,
                              "the output format must be RGBA16F, R10G10B10A2, RGBA8 or B10G11R11F (got " +
                                  std::to_string(static_cast<int>(format)) + ")");
    }
    return {code, {K::StorageBuffer, K::StorageImage}, kPush, {}};
}
PipelineDesc recurrent_pipeline() {
    return {&shaders::frame_recurrent_store, {K::StorageBuffer, K::StorageBuffer}, kPush, {}};
}

Groups groups_2d(int width, int height) {
    return {div_up(static_cast<uint32_t>(width), 8), div_up(static_cast<uint32_t>(height), 8), 1};
}

}  // namespace

FrameBuffers::FrameBuffers(Device& device, int rw, int rh, int dw, int dh)
    : color(device, sz(rw, rh) * 12, MemoryUse::DeviceLocal),
      motion(device, sz(rw, rh) * 8, MemoryUse::DeviceLocal),
      dilated(device, sz(rw, rh) * 8, MemoryUse::DeviceLocal),
      tc(device, sz(rw, rh) * 12, MemoryUse::DeviceLocal),
      staged(device, sz(pad_to_grid(rw), pad_to_grid(rh)) * kSlots, MemoryUse::DeviceLocal),
      head(device, sz(pad_to_grid(rw), pad_to_grid(rh)) * kHeadOutputs * 4, MemoryUse::DeviceLocal),
      scalars(device, sizeof(FrameScalars), MemoryUse::DeviceLocal),
      row_sums(device, static_cast<size_t>(rh) * 8, MemoryUse::DeviceLocal),
      masks(device, sz(rw, rh) * 8, MemoryUse::DeviceLocal),
      mask_tokens(device, sz(pad_to_grid(rw), pad_to_grid(rh)) * 4, MemoryUse::DeviceLocal),
      no_exposure(device, 1, 1, VK_FORMAT_R32_SFLOAT, VK_IMAGE_USAGE_SAMPLED_BIT),
      no_mask(device, 1, 1, VK_FORMAT_R32_SFLOAT, VK_IMAGE_USAGE_SAMPLED_BIT),
      presharpen(device, sz(dw, dh) * 12, MemoryUse::DeviceLocal) {
    for (int i = 0; i < 2; ++i) {
        history[i] = Buffer(device, sz(dw, dh) * 8, MemoryUse::DeviceLocal);
        depth[i] = Buffer(device, sz(rw, rh) * 4, MemoryUse::DeviceLocal);
        recurrent[i] = Buffer(device, sz(rw, rh) * 8, MemoryUse::DeviceLocal);
    }
}

void FrameBuffers::record_initialise(Recorder& rec) {
    for (int i = 0; i < 2; ++i) {
        rec.fill_buffer(history[i], 0);
        rec.fill_buffer(depth[i], 0);
        rec.fill_buffer(recurrent[i], 0);
    }
}

FramePush frame_push(const FrameSetup& f, const swinup_dispatch_desc& desc, float still_history_shift) {
    FramePush p{};
    const FrameGeometry& g = f.geometry;
    p.width = g.width;
    p.height = g.height;
    p.display_width = g.display_width;
    p.display_height = g.display_height;
    p.jitter_x = g.jitter_x;
    p.jitter_y = g.jitter_y;
    p.scale_x = g.scale_x;
    p.scale_y = g.scale_y;
    p.padded_width = f.padded_width;
    p.padded_height = f.padded_height;
    p.prev_width = f.history_valid ? f.previous_width : g.width;
    p.prev_height = f.history_valid ? f.previous_height : g.height;
    p.flags = (f.history_valid ? kFlagHistoryValid : 0u) | (f.ldr ? kFlagLdr : 0u) |
              (f.depth_inverted ? kFlagDepthInverted : 0u) | (f.mv_display_res ? kFlagMvDisplayRes : 0u) |
              (f.srgb ? kFlagSrgb : 0u) | (f.debug_view ? kFlagDebugView : 0u);
    p.pre_exposure = f.exposure.pre_exposure;
    p.mv_scale_x = desc.mv_scale_x;
    p.mv_scale_y = desc.mv_scale_y;
    p.motion_offset_x = f.motion_offset_x;
    p.motion_offset_y = f.motion_offset_y;
    p.still_history_shift = still_history_shift;
    p.exposure_value = f.exposure.value;
    p.sharpness = desc.sharpness;
    return p;
}

uint32_t mask_flags(const FrameInputViews& inputs) {
    return (inputs.reactive.view ? kFlagReactiveMask : 0u) | (inputs.transparency.view ? kFlagTransparencyMask : 0u);
}

VkFormat output_vk_format(swinup_format format) {
    switch (format) {
        case SWINUP_FORMAT_RGBA16F: return VK_FORMAT_R16G16B16A16_SFLOAT;
        case SWINUP_FORMAT_R10G10B10A2: return VK_FORMAT_A2B10G10R10_UNORM_PACK32;
        case SWINUP_FORMAT_RGBA8: return VK_FORMAT_R8G8B8A8_UNORM;
        case SWINUP_FORMAT_B10G11R11F: return VK_FORMAT_B10G11R11_UFLOAT_PACK32;
        default: return VK_FORMAT_UNDEFINED;
    }
}

FramePasses::FramePasses(Device& device, swinup_precision precision) : device_(device), precision_(precision) {}

void FramePasses::build_pipelines(bool auto_exposure, bool mask_tokens, swinup_format output_format) {
    if (auto_exposure) {
        device_.pipeline(exposure_rows_pipeline());
        device_.pipeline(exposure_auto_pipeline());
    } else {
        device_.pipeline(exposure_fixed_pipeline());
    }
    device_.pipeline(input_planes_pipeline());
    device_.pipeline(staging_pipeline());
    if (mask_tokens) device_.pipeline(mask_tokens_pipeline());
    device_.pipeline(output_pipeline(precision_, output_format));
    device_.pipeline(sharpen_pipeline(output_format));
    device_.pipeline(recurrent_pipeline());
}

void FramePasses::record_exposure(Recorder& rec, const FramePush& push, const FrameSetup& frame,
                                  const FrameInputViews& inputs, FrameBuffers& buffers) {
    if (frame.exposure.automatic) {
        if (!device_.capabilities().shader_float64) {
            throw VulkanError(SWINUP_STATUS_UNSUPPORTED,
                              "auto exposure needs shaderFloat64, which Vulkan device \"" + device_.name() +
                                  "\" lacks (pass an exposure value or texture instead)");
        }
        rec.dispatch(device_.pipeline(exposure_rows_pipeline()),
                     {Bind::sampled_image(inputs.color.view, inputs.color.layout), Bind::buffer(buffers.row_sums)},
                     push, Groups{div_up(static_cast<uint32_t>(push.height), 64)});
        rec.dispatch(device_.pipeline(exposure_auto_pipeline()),
                     {Bind::buffer(buffers.row_sums), Bind::buffer(buffers.scalars)}, push, Groups{1});
        return;
    }
    FramePush p = push;
    p.option = inputs.exposure.view ? 1u : 0u;
    if (!inputs.exposure.view) {
        // Every frame that binds the image moves it from UNDEFINED (its texel is never read, so
        // nothing is lost): a recorded frame may be discarded unsubmitted, or a submit may fail, so
        // no frame may rely on an earlier one having left it in GENERAL.
        buffers.no_exposure.layout = VK_IMAGE_LAYOUT_UNDEFINED;
        rec.transition(buffers.no_exposure, VK_IMAGE_LAYOUT_GENERAL);
    }
    const Bind texture = inputs.exposure.view ? Bind::sampled_image(inputs.exposure.view, inputs.exposure.layout)
                                              : Bind::sampled_image(buffers.no_exposure);
    rec.dispatch(device_.pipeline(exposure_fixed_pipeline()),
                 {texture, Bind::buffer(buffers.scalars)}, p, Groups{1});
}

void FramePasses::record_input_planes(Recorder& rec, const FramePush& push, const FrameSetup& frame,
                                      const FrameInputViews& inputs, FrameBuffers& buffers) {
    FramePush p = push;
    p.option = (inputs.reactive_unorm8 ? kOptionReactiveUnorm8 : 0u) |
               (inputs.transparency_unorm8 ? kOptionTransparencyUnorm8 : 0u);
    if (!inputs.reactive.view || !inputs.transparency.view) {
        // As the stand-in exposure image (record_exposure): moved from UNDEFINED by every frame
        // that binds it, its texel never read.
        buffers.no_mask.layout = VK_IMAGE_LAYOUT_UNDEFINED;
        rec.transition(buffers.no_mask, VK_IMAGE_LAYOUT_GENERAL);
    }
    const auto mask = [&](const InputView& view) {
        return view.view ? Bind::sampled_image(view.view, view.layout) : Bind::sampled_image(buffers.no_mask);
    };
    rec.dispatch(device_.pipeline(input_planes_pipeline()),
                 {Bind::sampled_image(inputs.color.view, inputs.color.layout),
                  Bind::sampled_image(inputs.depth.view, inputs.depth.layout),
                  Bind::sampled_image(inputs.motion.view, inputs.motion.layout), Bind::buffer(buffers.color),
                  Bind::buffer(buffers.depth[frame.next]), Bind::buffer(buffers.motion), Bind::buffer(buffers.scalars),
                  mask(inputs.reactive), mask(inputs.transparency), Bind::buffer(buffers.masks)},
                 p, groups_2d(push.width, push.height));
}

void FramePasses::record_staging(Recorder& rec, const FramePush& push, const FrameSetup& frame,
                                 FrameBuffers& buffers) {
    rec.dispatch(device_.pipeline(staging_pipeline()),
                 {Bind::buffer(buffers.color), Bind::buffer(buffers.depth[frame.next]), Bind::buffer(buffers.motion),
                  Bind::buffer(buffers.history[frame.current]), Bind::buffer(buffers.depth[frame.current]),
                  Bind::buffer(buffers.recurrent[frame.current]), Bind::buffer(buffers.staged),
                  Bind::buffer(buffers.tc), Bind::buffer(buffers.dilated)},
                 push, groups_2d(push.padded_width, push.padded_height));
}

void FramePasses::record_mask_tokens(Recorder& rec, const FramePush& push, FrameBuffers& buffers, bool lite) {
    FramePush p = push;
    p.option = lite ? 1u : 0u;
    const Groups groups = lite ? groups_2d(push.padded_width / 2, push.padded_height / 2)
                               : groups_2d(push.padded_width, push.padded_height);
    rec.dispatch(device_.pipeline(mask_tokens_pipeline()),
                 {Bind::buffer(buffers.masks), Bind::buffer(buffers.mask_tokens)}, p, groups);
}

void FramePasses::record_output(Recorder& rec, const FramePush& push, const FrameSetup& frame,
                                FrameBuffers& buffers, VkImageView output, swinup_format format) {
    rec.dispatch(device_.pipeline(output_pipeline(precision_, format)),
                 {Bind::buffer(buffers.tc), Bind::buffer(buffers.dilated), Bind::buffer(buffers.head),
                  Bind::buffer(buffers.history[frame.current]), Bind::buffer(buffers.history[frame.next]),
                  Bind::storage_image(output), Bind::buffer(buffers.scalars), Bind::buffer(buffers.masks),
                  Bind::buffer(buffers.depth[frame.next]), Bind::buffer(buffers.presharpen)},
                 push, groups_2d(push.display_width, push.display_height));
}

void FramePasses::record_sharpen(Recorder& rec, const FramePush& push, FrameBuffers& buffers, VkImageView output,
                                 swinup_format format) {
    rec.dispatch(device_.pipeline(sharpen_pipeline(format)),
                 {Bind::buffer(buffers.presharpen), Bind::storage_image(output)}, push,
                 groups_2d(push.display_width, push.display_height));
}

void FramePasses::record_recurrent(Recorder& rec, const FramePush& push, const FrameSetup& frame,
                                   FrameBuffers& buffers) {
    rec.dispatch(device_.pipeline(recurrent_pipeline()),
                 {Bind::buffer(buffers.head), Bind::buffer(buffers.recurrent[frame.next])}, push,
                 groups_2d(push.width, push.height));
}

}  // namespace swinup::vulkan
