#include "output_decode.h"

#include <cstring>
#include <stdexcept>

#include "frame/packed_formats.h"
#include "numeric/half.h"

namespace swinup::cli {

size_t output_bytes_per_pixel(swinup_format format) {
    switch (format) {
        case SWINUP_FORMAT_RGBA16F: return 8;
        case SWINUP_FORMAT_R10G10B10A2: return 4;
        case SWINUP_FORMAT_RGBA8: return 4;
        case SWINUP_FORMAT_B10G11R11F: return 4;
        default: throw std::invalid_argument("not an output format");
    }
}

Image decode_output(const std::vector<uint8_t>& bytes, swinup_format format, int width, int height) {
    const size_t pixels = size_t(width) * size_t(height);
    if (bytes.size() != pixels * output_bytes_per_pixel(format)) {
        throw std::invalid_argument("output buffer size does not match its format and size");
    }
    Image image(width, height, 4);
    float* out = image.data.data();
    for (size_t i = 0; i < pixels; ++i) {
        switch (format) {
            case SWINUP_FORMAT_RGBA16F: {
                uint16_t h[4];
                std::memcpy(h, bytes.data() + i * 8, sizeof(h));
                for (size_t c = 0; c < 4; ++c) out[i * 4 + c] = f16_bits_to_f32(h[c]);
                break;
            }
            case SWINUP_FORMAT_R10G10B10A2: {
                uint32_t v;  // R in the low bits (swinup.h)
                std::memcpy(&v, bytes.data() + i * 4, sizeof(v));
                out[i * 4 + 0] = static_cast<float>(v & 1023u) / 1023.0f;
                out[i * 4 + 1] = static_cast<float>((v >> 10) & 1023u) / 1023.0f;
                out[i * 4 + 2] = static_cast<float>((v >> 20) & 1023u) / 1023.0f;
                out[i * 4 + 3] = static_cast<float>(v >> 30) / 3.0f;
                break;
            }
            case SWINUP_FORMAT_B10G11R11F: {
                uint32_t v;
                std::memcpy(&v, bytes.data() + i * 4, sizeof(v));
                for (int c = 0; c < 4; ++c) out[i * 4 + c] = px::b10g11r11f_channel(v, c);  // alpha 1
                break;
            }
            default: {  // RGBA8, R first in memory
                for (size_t c = 0; c < 4; ++c) {
                    out[i * 4 + c] = static_cast<float>(bytes[i * 4 + c]) / 255.0f;
                }
                break;
            }
        }
    }
    return image;
}

}  // namespace swinup::cli
