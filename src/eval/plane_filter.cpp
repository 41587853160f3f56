#include "eval/plane_filter.h"

#include <algorithm>
#include <stdexcept>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace swinup::eval {

namespace {

int check_taps(const std::vector<float>& taps) {
    if (taps.empty() || taps.size() % 2 == 0) {
        throw std::invalid_argument("plane filter: the tap count must be odd");
    }
    return int(taps.size() / 2);
}

}  // namespace

// Both passes loop over the taps outside and the pixels of a row inside, so the inner loop is a
// plain multiply-add over contiguous floats that the compiler vectorises.
Plane filter_rows(const Plane& in, const std::vector<float>& taps) {
    const int r = check_taps(taps);
    const int w = in.width;
    Plane out(in.width, in.height);
    tbb::parallel_for(tbb::blocked_range<int>(0, in.height), [&](const tbb::blocked_range<int>& rows) {
        std::vector<float> padded(size_t(w) + 2 * size_t(r));
        for (int y = rows.begin(); y < rows.end(); ++y) {
            const float* src = in.data.data() + size_t(y) * w;
            for (int i = 0; i < r; ++i) {
                padded[size_t(i)] = src[0];
                padded[size_t(r + w + i)] = src[w - 1];
            }
            std::copy(src, src + w, padded.begin() + r);
            float* dst = out.data.data() + size_t(y) * w;
            for (size_t k = 0; k < taps.size(); ++k) {
                const float t = taps[k];
                const float* p = padded.data() + k;
                for (int x = 0; x < w; ++x) dst[x] += t * p[x];
            }
        }
    });
    return out;
}

Plane filter_columns(const Plane& in, const std::vector<float>& taps) {
    const int r = check_taps(taps);
    const int w = in.width, h = in.height;
    Plane out(in.width, in.height);
    tbb::parallel_for(tbb::blocked_range<int>(0, h), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y < rows.end(); ++y) {
            float* dst = out.data.data() + size_t(y) * w;
            for (size_t k = 0; k < taps.size(); ++k) {
                const int sy = std::clamp(y + int(k) - r, 0, h - 1);
                const float t = taps[k];
                const float* src = in.data.data() + size_t(sy) * w;
                for (int x = 0; x < w; ++x) dst[x] += t * src[x];
            }
        }
    });
    return out;
}

Plane filter_separable(const Plane& in, const std::vector<float>& row_taps,
                       const std::vector<float>& column_taps) {
    return filter_columns(filter_rows(in, row_taps), column_taps);
}

}  // namespace swinup::eval
