// Validation of the C API's descriptors. Every check names the field that is wrong, e.g.
// "dispatch.depth.format: expected SWINUP_FORMAT_R32F, got SWINUP_FORMAT_RG16F", so that an
// engine integrator sees what to fix. Nothing here touches a context's state. Enum fields are
// read as the integers the caller stored and converted only once they are known values
// (api/raw_enum.h): a C caller may store any int there.
#pragma once

#include <string>

#include "swinup/swinup.h"

namespace swinup {

constexpr uint32_t kMaxDisplaySize = 8192;
constexpr float kMaxScale = 3.0f;  // display / render, per axis (model.md: s from 1 to 3)

struct Validation {
    swinup_status status = SWINUP_STATUS_OK;
    std::string message;

    bool ok() const { return status == SWINUP_STATUS_OK; }
};

// The descriptors given here have the newest layout: the caller's were read with
// read_context_desc / read_dispatch_desc (api/struct_size.h), which check struct_size.
Validation validate_context_desc(const swinup_context_desc& desc);

// The checks of a dispatch that do not concern its images: struct_size, the render size against
// the context, jitter, motion-vector scale, exposure, pre-exposure and frame time. `prefix` names
// the descriptor in messages: "dispatch" for swinup_dispatch, "vulkan_dispatch.frame" for the
// Vulkan-facing API (swinup_vulkan.h), which describes its images its own way.
Validation validate_dispatch_scalars(const swinup_dispatch_desc& desc, const swinup_context_desc& context,
                                     const char* prefix);

// `backend` is the backend the context runs on: it decides which memory kinds are served.
Validation validate_dispatch_desc(const swinup_dispatch_desc& desc, const swinup_context_desc& context,
                                  swinup_backend backend);

// A frame's resource in one role, checked by swinup_dispatch's rules for CUDA device memory (pointer,
// the role's formats, its exact size, row pitch); messages name `prefix`.`name` ("vulkan_dispatch",
// "color_buffer": the Vulkan-facing API's buffers, which the CUDA backend reads as device pointers).
enum class FrameRole { kColor, kDepth, kMotionVectors, kOutput, kReactiveMask, kTransparencyMask };
Validation validate_frame_resource(const swinup_resource& r, FrameRole role, const swinup_dispatch_desc& frame,
                                   const swinup_context_desc& context, const char* prefix, const char* name);

// The parameters of an automatic reactive mask (the descriptor's fields other than its images):
// render size within the context's largest, scale finite >= 0, threshold and binary_value in
// [0, 1], known flags. `prefix` names the descriptor in messages ("reactive_mask_desc",
// "vulkan_reactive_mask.mask").
Validation validate_reactive_mask_params(const swinup_reactive_mask_desc& desc, const swinup_context_desc& context,
                                        const char* prefix);

// swinup_generate_reactive_mask's descriptor (newest layout, read with read_reactive_mask_desc):
// its parameters (above), the two colour images and the output by the resource rules of a dispatch.
Validation validate_reactive_mask_desc(const swinup_reactive_mask_desc& desc, const swinup_context_desc& context,
                                      swinup_backend backend);

}  // namespace swinup
