// Separable filtering of one float plane (width x height, row-major) with clamp-to-edge borders:
// the pixel outside the image is the nearest edge pixel. FLIP's filters (flip.h) are sums of
// separable 2-D kernels, so one 2-D filter is a pass along the rows and a pass along the columns.
#pragma once

#include <cstddef>
#include <vector>

namespace swinup::eval {

struct Plane {
    int width = 0;
    int height = 0;
    std::vector<float> data;  // width * height

    Plane() = default;
    Plane(int w, int h) : width(w), height(h), data(size_t(w) * size_t(h), 0.0f) {}
};

// out(x, y) = sum_k taps[k] * in(x + k - r, y) with r = taps.size() / 2 (an odd count, centred).
Plane filter_rows(const Plane& in, const std::vector<float>& taps);

// out(x, y) = sum_k taps[k] * in(x, y + k - r).
Plane filter_columns(const Plane& in, const std::vector<float>& taps);

// filter_columns(filter_rows(in, row_taps), column_taps): the 2-D kernel row_taps (x) column_taps.
Plane filter_separable(const Plane& in, const std::vector<float>& row_taps,
                       const std::vector<float>& column_taps);

}  // namespace swinup::eval
