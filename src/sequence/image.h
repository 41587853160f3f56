// A float image in memory: width x height pixels of `channels` interleaved floats, row-major.
// The common currency of sequence I/O, the renderer, the baselines and the metrics.
#pragma once

#include <cstddef>
#include <vector>

namespace swinup {

struct Image {
    int width = 0;
    int height = 0;
    int channels = 0;
    std::vector<float> data;  // width * height * channels

    Image() = default;
    Image(int w, int h, int c, float fill = 0.0f)
        : width(w), height(h), channels(c), data(size_t(w) * h * c, fill) {}

    bool empty() const { return data.empty(); }
    float* pixel(int x, int y) { return data.data() + (size_t(y) * width + x) * channels; }
    const float* pixel(int x, int y) const { return data.data() + (size_t(y) * width + x) * channels; }
    float& at(int x, int y, int c) { return pixel(x, y)[c]; }
    float at(int x, int y, int c) const { return pixel(x, y)[c]; }
};

}  // namespace swinup
