// swinup_generate_reactive_mask on the CPU: frame/reactive_mask_pixel.h over every pixel of host
// images, in parallel over rows.
#pragma once

#include "swinup/swinup.h"

namespace swinup::cpu {

// Writes desc.output (validated: host memory, render size, a mask format) from desc's two colour
// images. Runs on the calling thread's oneTBB arena.
void write_reactive_mask(const swinup_reactive_mask_desc& desc);

}  // namespace swinup::cpu
