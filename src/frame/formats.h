// Facts about the pixel formats of swinup_format: names, channels, element and pixel sizes.
// Used by the context's validation and by the backends' readers and writers.
#pragma once

#include <cstddef>

#include "swinup/swinup.h"

namespace swinup {

// "SWINUP_FORMAT_RGBA16F" etc.; "unknown swinup_format <n>" style text is made by the caller.
inline const char* format_name(swinup_format f) {
    switch (f) {
        case SWINUP_FORMAT_UNKNOWN: return "SWINUP_FORMAT_UNKNOWN";
        case SWINUP_FORMAT_RGBA16F: return "SWINUP_FORMAT_RGBA16F";
        case SWINUP_FORMAT_RGBA32F: return "SWINUP_FORMAT_RGBA32F";
        case SWINUP_FORMAT_RGB16F: return "SWINUP_FORMAT_RGB16F";
        case SWINUP_FORMAT_RGB32F: return "SWINUP_FORMAT_RGB32F";
        case SWINUP_FORMAT_R32F: return "SWINUP_FORMAT_R32F";
        case SWINUP_FORMAT_RG16F: return "SWINUP_FORMAT_RG16F";
        case SWINUP_FORMAT_RG32F: return "SWINUP_FORMAT_RG32F";
        case SWINUP_FORMAT_R10G10B10A2: return "SWINUP_FORMAT_R10G10B10A2";
        case SWINUP_FORMAT_RGBA8: return "SWINUP_FORMAT_RGBA8";
        case SWINUP_FORMAT_R8_UNORM: return "SWINUP_FORMAT_R8_UNORM";
        case SWINUP_FORMAT_R16F: return "SWINUP_FORMAT_R16F";
        case SWINUP_FORMAT_B10G11R11F: return "SWINUP_FORMAT_B10G11R11F";
        case SWINUP_FORMAT_D24_UNORM_S8: return "SWINUP_FORMAT_D24_UNORM_S8";
        case SWINUP_FORMAT_D32F_S8: return "SWINUP_FORMAT_D32F_S8";
    }
    return nullptr;  // not a value of the enum
}

// Channels per pixel (packed formats count their colour channels plus alpha); 0 when unknown.
inline int format_channels(swinup_format f) {
    switch (f) {
        case SWINUP_FORMAT_RGBA16F: case SWINUP_FORMAT_RGBA32F: case SWINUP_FORMAT_R10G10B10A2:
        case SWINUP_FORMAT_RGBA8: return 4;
        case SWINUP_FORMAT_RGB16F: case SWINUP_FORMAT_RGB32F: case SWINUP_FORMAT_B10G11R11F: return 3;
        case SWINUP_FORMAT_RG16F: case SWINUP_FORMAT_RG32F: return 2;
        case SWINUP_FORMAT_R32F: case SWINUP_FORMAT_R8_UNORM: case SWINUP_FORMAT_R16F:
        case SWINUP_FORMAT_D24_UNORM_S8: case SWINUP_FORMAT_D32F_S8: return 1;
        default: return 0;
    }
}

// Bytes of one element, which is also the alignment a pointer or row pitch needs: 1 for UNORM8
// masks, 2 for halves, 4 for floats and for the 32-bit packed formats (D32F_S8: its f32 depth);
// 0 when unknown.
inline size_t format_element_bytes(swinup_format f) {
    switch (f) {
        case SWINUP_FORMAT_R8_UNORM: return 1;
        case SWINUP_FORMAT_RGBA16F: case SWINUP_FORMAT_RGB16F: case SWINUP_FORMAT_RG16F: case SWINUP_FORMAT_R16F:
            return 2;
        case SWINUP_FORMAT_RGBA32F: case SWINUP_FORMAT_RGB32F: case SWINUP_FORMAT_R32F:
        case SWINUP_FORMAT_RG32F: case SWINUP_FORMAT_R10G10B10A2: case SWINUP_FORMAT_RGBA8:
        case SWINUP_FORMAT_B10G11R11F: case SWINUP_FORMAT_D24_UNORM_S8: case SWINUP_FORMAT_D32F_S8: return 4;
        default: return 0;
    }
}

// Bytes of one pixel.
inline size_t format_pixel_bytes(swinup_format f) {
    switch (f) {
        case SWINUP_FORMAT_R10G10B10A2: case SWINUP_FORMAT_RGBA8: case SWINUP_FORMAT_B10G11R11F:
        case SWINUP_FORMAT_D24_UNORM_S8: return 4;
        case SWINUP_FORMAT_D32F_S8: return 8;
        default: return format_element_bytes(f) * static_cast<size_t>(format_channels(f));
    }
}

inline bool format_is_half(swinup_format f) {
    return f == SWINUP_FORMAT_RGBA16F || f == SWINUP_FORMAT_RGB16F || f == SWINUP_FORMAT_RG16F ||
           f == SWINUP_FORMAT_R16F;
}

// How an input's pixel is stored when it is not one element per channel (input_image.h reads it
// through frame/packed_formats.h).
enum InputPacking : int {
    kPackedNone = 0,        // one f16 / f32 / UNORM8 element per channel
    kPackedB10G11R11F = 1,  // a 32-bit word of three unsigned floats
    kPackedR10G10B10A2 = 2, // a 32-bit word of UNORM10 x 3 and UNORM2
    kPackedD24S8 = 3,       // a 32-bit word, UNORM24 depth in the low bits
    kPackedD32FS8 = 4,      // 8 bytes: the f32 depth, then the stencil byte and 3 unused
};

inline InputPacking format_packing(swinup_format f) {
    switch (f) {
        case SWINUP_FORMAT_B10G11R11F: return kPackedB10G11R11F;
        case SWINUP_FORMAT_R10G10B10A2: return kPackedR10G10B10A2;
        case SWINUP_FORMAT_D24_UNORM_S8: return kPackedD24S8;
        case SWINUP_FORMAT_D32F_S8: return kPackedD32FS8;
        default: return kPackedNone;
    }
}

// Bytes between rows of a resource: its row_pitch, or the packed row when row_pitch is 0.
inline size_t resource_row_pitch(const swinup_resource& r) {
    return r.row_pitch != 0 ? r.row_pitch : static_cast<size_t>(r.width) * format_pixel_bytes(r.format);
}

}  // namespace swinup
