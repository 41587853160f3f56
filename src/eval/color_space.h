// Small colour helpers of the temporal upscaler: YCoCg (a cheap, invertible luma/chroma basis in
// which an axis-aligned neighbourhood box hugs the colours of a neighbourhood far better than in
// RGB) and Rec. 709 luma.
#pragma once

namespace swinup::eval {

struct Rgb {
    float r = 0, g = 0, b = 0;
};

struct YCoCg {
    float y = 0, co = 0, cg = 0;
};

inline YCoCg rgb_to_ycocg(const Rgb& c) {
    return {0.25f * c.r + 0.5f * c.g + 0.25f * c.b, 0.5f * c.r - 0.5f * c.b,
            -0.25f * c.r + 0.5f * c.g - 0.25f * c.b};
}

inline Rgb ycocg_to_rgb(const YCoCg& c) {
    return {c.y + c.co - c.cg, c.y + c.cg, c.y - c.co - c.cg};
}

inline float luma709(const Rgb& c) { return 0.2126f * c.r + 0.7152f * c.g + 0.0722f * c.b; }

}  // namespace swinup::eval
