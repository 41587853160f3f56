// Reading and writing the pixels of validated host resources in any allowed format and row pitch.
// The context has already checked pointers, alignment, formats and sizes (api/context.cpp).
#pragma once

#include <cstdint>
#include <cstring>

#include "frame/formats.h"
#include "numeric/half.h"
#include "swinup/swinup.h"

namespace swinup::cpu {

// One row of an input resource, read channel by channel as floats (halves converted exactly).
class ResourceRow {
public:
    ResourceRow(const swinup_resource& r, int y)
        : row_(static_cast<const uint8_t*>(r.data) + static_cast<size_t>(y) * resource_row_pitch(r)),
          channels_(format_channels(r.format)),
          half_(format_is_half(r.format)) {}

    // Channel c of pixel x.
    float read(int x, int c) const {
        const size_t element = static_cast<size_t>(x) * static_cast<size_t>(channels_) + static_cast<size_t>(c);
        if (half_) {
            uint16_t h;
            std::memcpy(&h, row_ + element * 2, sizeof h);
            return f16_bits_to_f32(h);
        }
        float f;
        std::memcpy(&f, row_ + element * 4, sizeof f);
        return f;
    }

private:
    const uint8_t* row_;
    int channels_;
    bool half_;
};

// The start of row y of the output resource.
inline uint8_t* output_row(const swinup_resource& r, int y) {
    return static_cast<uint8_t*>(r.data_mut) + static_cast<size_t>(y) * resource_row_pitch(r);
}

}  // namespace swinup::cpu
