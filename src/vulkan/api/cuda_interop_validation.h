// What the CUDA backend adds to the checks of a swinup_vulkan_dispatch_desc (include/swinup/
// swinup_vulkan.h, "The CUDA backend"): each image's memory fields (memory, offset, size, handle
// type, tiling, mip levels), each buffer's (swinup_vulkan_buffer), the depth format the import can
// map, and the semaphores. Device-free:
// what only the driver can tell (is the memory really exportable, is the handle of this device) is
// found when the import runs (cuda/interop/external_images.cu), with messages of the same form.
#pragma once

#include "api/validation.h"
#include "swinup/swinup_vulkan.h"

namespace swinup::vulkan_api {

// desc passed validate_vulkan_dispatch_desc (against `context`) already. The images read are color,
// depth, motion_vectors, output and, when `exposure_image`, exposure, the masks when given; a role
// given as a buffer (swinup_vulkan_buffer) is checked as one: its memory, its rows by swinup_dispatch's
// rules for device pointers, its offset and the rows' extent inside the buffer, an output that
// overlaps an input in the same buffer.
Validation validate_cuda_interop_desc(const swinup_vulkan_dispatch_desc& desc, const swinup_context_desc& context,
                                      bool exposure_image);

// The bytes a buffer's rows span from its first pixel to the end of its last.
uint64_t buffer_span(const swinup_vulkan_buffer& buffer);

// The device extensions the CUDA backend needs on the application's device, checked at creation.
Validation validate_cuda_interop_device(const swinup_vulkan_device_desc& device);

}  // namespace swinup::vulkan_api
