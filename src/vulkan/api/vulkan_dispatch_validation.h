// Validation of a swinup_vulkan_dispatch_desc (include/swinup/swinup_vulkan.h) before anything is
// recorded: the frame's scalars with swinup_dispatch's checks (api/validation.h), then each image's
// handles, format, declared usage, declared layout and extent against vulkan_image_rules.h. Every
// message names the image and what is wrong, e.g. "vulkan_dispatch.depth.format: expected
// VK_FORMAT_R32_SFLOAT or VK_FORMAT_D32_SFLOAT (SWINUP_FORMAT_R32F), got VK_FORMAT_R16G16_SFLOAT".
// Nothing here touches a context's state.
#pragma once

#include "api/validation.h"
#include "swinup/swinup_vulkan.h"

namespace swinup::vulkan_api {

// Reads the caller's descriptor by the struct_size rule of swinup_vulkan.h: *in has one of the
// layouts SWINUP_VULKAN_DISPATCH_DESC_SIZE_V1 (0.1.0), _V2 (the masks), _V3 (jitter_convention in
// frame) or _V4 (the buffers, the newest), whose member frame is the swinup_dispatch_desc of that
// version (V4's is V3's), so the fields after it sit earlier in the older layouts; it is copied into
// the newest layout with what it lacks at the defaults (no masks, swinup's jitter convention, no
// buffers). Only in->struct_size bytes of *in are read: the outer size is checked before
// frame.struct_size. Refuses (naming the field and the accepted sizes) a struct_size, or a
// frame.struct_size, that does not belong to one layout.
Validation read_vulkan_dispatch_desc(const swinup_vulkan_dispatch_desc* in, swinup_vulkan_dispatch_desc* out);

// `desc` has the newest layout (read_vulkan_dispatch_desc made it); its sizes are checked again.
Validation validate_vulkan_dispatch_desc(const swinup_vulkan_dispatch_desc& desc,
                                         const swinup_context_desc& context);

// swinup_vulkan_record_reactive_mask's descriptor: its sizes, the mask's parameters
// (validate_reactive_mask_params) and the three images (vulkan_image_rules.h), the output an image
// of its own.
Validation validate_vulkan_reactive_mask_desc(const swinup_vulkan_reactive_mask_desc& desc,
                                              const swinup_context_desc& context);

// Reads the caller's device descriptor by the struct_size rule (only struct_size is read before
// the size is known to be one it has had, SWINUP_VULKAN_DEVICE_DESC_SIZE_V1 or _V2) into *out,
// the newest layout, whose fields past the caller's size keep swinup_vulkan_device_desc_init's
// defaults; out->struct_size is the caller's.
Validation read_vulkan_device_desc(const swinup_vulkan_device_desc* in, swinup_vulkan_device_desc* out);

// `desc` has the newest layout (read_vulkan_device_desc made it): its handles, extension list,
// api_version and allocation callbacks.
Validation validate_vulkan_device_desc(const swinup_vulkan_device_desc& desc);

// swinup_vulkan_context_get_device's check of out->struct_size (a size the struct has had).
Validation device_desc_size_check_for_output(uint32_t size);

}  // namespace swinup::vulkan_api
