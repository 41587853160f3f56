#include "cpu/reactive_mask.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "frame/formats.h"
#include "frame/input_image.h"
#include "frame/reactive_mask_pixel.h"

namespace swinup::cpu {

void write_reactive_mask(const swinup_reactive_mask_desc& desc) {
    const ReactiveMaskParams p = reactive_mask_params(desc);
    const InputImage opaque = input_image(desc.opaque_color);
    const InputImage final_color = input_image(desc.final_color);
    const swinup_resource& out = desc.output;
    const int width = static_cast<int>(desc.render_width);
    tbb::parallel_for(tbb::blocked_range<int>(0, static_cast<int>(desc.render_height)),
                      [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y != rows.end(); ++y) {
            uint8_t* row = static_cast<uint8_t*>(out.data_mut) + static_cast<size_t>(y) * resource_row_pitch(out);
            for (int x = 0; x < width; ++x) {
                float a[3], b[3];
                for (int c = 0; c < 3; ++c) {
                    a[c] = read_input(opaque, x, y, c);
                    b[c] = read_input(final_color, x, y, c);
                }
                write_mask_pixel(out.format, reactive_mask_value(a, b, p), row, x);
            }
        }
    });
}

}  // namespace swinup::cpu
