#include "eval/display_encode.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace swinup::eval {

float srgb_encode(float linear) {
    const float x = std::clamp(linear, 0.0f, 1.0f);
    if (x <= 0.0031308f) return 12.92f * x;
    return 1.055f * std::pow(x, 1.0f / 2.4f) - 0.055f;
}

float display_encode_value(float linear, float exposure, bool hdr) {
    float v = linear * exposure;
    if (!std::isfinite(v) || v < 0.0f) v = 0.0f;
    v = hdr ? v / (1.0f + v) : std::min(v, 1.0f);
    return srgb_encode(v);
}

Image display_encode(const Image& linear, float exposure, bool hdr) {
    if (linear.channels < 3) {
        throw std::invalid_argument("display_encode: image has " + std::to_string(linear.channels) +
                                    " channels, needs at least 3 (RGB)");
    }
    Image out(linear.width, linear.height, 3);
    const size_t pixels = size_t(linear.width) * linear.height;
    for (size_t i = 0; i < pixels; ++i) {
        const float* in = linear.data.data() + i * linear.channels;
        float* o = out.data.data() + i * 3;
        for (int c = 0; c < 3; ++c) o[c] = display_encode_value(in[c], exposure, hdr);
    }
    return out;
}

}  // namespace swinup::eval
