// Continuous-position reads of an Image for the evaluation code (the TAAU's history weight, the
// temporal-stability warp): pixel centres sit at +0.5, reads outside clamp to the edge.
#pragma once

#include <algorithm>
#include <cmath>

#include "sequence/image.h"

namespace swinup::eval {

// Bilinear sample of channel c at (px, py).
inline float sample_bilinear(const Image& image, float px, float py, int c) {
    const float fx = px - 0.5f, fy = py - 0.5f;
    const int x0 = int(std::floor(fx)), y0 = int(std::floor(fy));
    const float tx = fx - float(x0), ty = fy - float(y0);
    auto at = [&](int x, int y) {
        return image.at(std::clamp(x, 0, image.width - 1), std::clamp(y, 0, image.height - 1), c);
    };
    const float top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * tx;
    const float bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * tx;
    return top + (bottom - top) * ty;
}

}  // namespace swinup::eval
