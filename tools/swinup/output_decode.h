// The context's output buffer (RGBA16F, R10G10B10A2, RGBA8 or B10G11R11F, tightly packed) back to float RGBA,
// for writing EXR files. UNORM formats come back as their exact quantised levels / max level.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sequence/image.h"
#include "swinup/swinup.h"

namespace swinup::cli {

// Bytes per pixel of an output format; throws std::invalid_argument for non-output formats.
size_t output_bytes_per_pixel(swinup_format format);

Image decode_output(const std::vector<uint8_t>& bytes, swinup_format format, int width, int height);

}  // namespace swinup::cli
