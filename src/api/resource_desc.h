// The C API's image descriptions (swinup_resource) and a dispatch descriptor's four images, built
// in one call instead of field by field. Every program that dispatches frames (the CLI, the
// evaluation, the GPU test hooks, the tests and the benchmarks) builds them here, so a field the
// C API adds to swinup_resource starts from its zero default everywhere.
#pragma once

#include <cstddef>
#include <cstdint>

#include "swinup/swinup.h"

namespace swinup {

// A context descriptor (swinup_context_desc_init's defaults) for a largest render size and a
// display size.
inline swinup_context_desc sized_context_desc(uint32_t max_render_width, uint32_t max_render_height,
                                              uint32_t display_width, uint32_t display_height) {
    swinup_context_desc d;
    swinup_context_desc_init(&d);
    d.max_render_width = max_render_width;
    d.max_render_height = max_render_height;
    d.display_width = display_width;
    d.display_height = display_height;
    return d;
}

// An input image (colour, depth, motion vectors, the exposure texture): read only, data_mut NULL.
// row_pitch 0: rows packed (width x the format's pixel size).
inline swinup_resource input_resource(const void* data, swinup_format format, uint32_t width, uint32_t height,
                                      swinup_memory memory = SWINUP_MEMORY_HOST, size_t row_pitch = 0) {
    swinup_resource r{};
    r.data = data;
    r.data_mut = nullptr;
    r.memory = memory;
    r.format = format;
    r.width = width;
    r.height = height;
    r.row_pitch = row_pitch;
    return r;
}

// The output image: data and data_mut both point at it.
inline swinup_resource output_resource(void* data, swinup_format format, uint32_t width, uint32_t height,
                                       swinup_memory memory = SWINUP_MEMORY_HOST, size_t row_pitch = 0) {
    swinup_resource r = input_resource(data, format, width, height, memory, row_pitch);
    r.data_mut = data;
    return r;
}

// A dispatch descriptor (swinup_dispatch_desc_init's defaults) with the frame's images; the render
// size is the colour's, which validation requires of colour, depth and render-size motion vectors.
inline swinup_dispatch_desc frame_dispatch_desc(const swinup_resource& color, const swinup_resource& depth,
                                                const swinup_resource& motion_vectors, const swinup_resource& output) {
    swinup_dispatch_desc d;
    swinup_dispatch_desc_init(&d);
    d.color = color;
    d.depth = depth;
    d.motion_vectors = motion_vectors;
    d.output = output;
    d.render_width = color.width;
    d.render_height = color.height;
    return d;
}

}  // namespace swinup
