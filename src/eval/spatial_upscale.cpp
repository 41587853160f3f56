#include "eval/spatial_upscale.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "eval/resample_kernels.h"

namespace swinup::eval {

const char* spatial_filter_name(SpatialFilter filter) {
    switch (filter) {
        case SpatialFilter::nearest:
            return "nearest";
        case SpatialFilter::bilinear:
            return "bilinear";
        case SpatialFilter::catmull_rom:
            return "bicubic";
        case SpatialFilter::lanczos3:
            return "lanczos3";
    }
    return "?";
}

namespace {

// For every output coordinate along one axis: the first source index and the normalised weights of
// the 2 * radius taps that follow it (indices already clamped to the source).
struct AxisTaps {
    int taps = 0;
    std::vector<int> index;     // out_size * taps
    std::vector<float> weight;  // out_size * taps
};

float kernel_value(SpatialFilter filter, float x) {
    switch (filter) {
        case SpatialFilter::bilinear:
            return bilinear_kernel(x);
        case SpatialFilter::catmull_rom:
            return catmull_rom_kernel(x);
        case SpatialFilter::lanczos3:
            return lanczos3_kernel(x);
        case SpatialFilter::nearest:
            break;
    }
    return 0.0f;
}

int kernel_radius(SpatialFilter filter) {
    switch (filter) {
        case SpatialFilter::bilinear:
            return kBilinearRadius;
        case SpatialFilter::catmull_rom:
            return kCatmullRomRadius;
        case SpatialFilter::lanczos3:
            return kLanczos3Radius;
        case SpatialFilter::nearest:
            break;
    }
    return 1;
}

AxisTaps axis_taps(int in_size, int out_size, float jitter, SpatialFilter filter) {
    AxisTaps axis;
    const double scale = double(out_size) / double(in_size);
    if (filter == SpatialFilter::nearest) {
        axis.taps = 1;
        axis.index.resize(size_t(out_size));
        axis.weight.assign(size_t(out_size), 1.0f);
        for (int o = 0; o < out_size; ++o) {
            // Sample p is nearest to u when |p + 0.5 + jitter - u| is smallest: p = floor(u -
            // jitter).
            const double u = (double(o) + 0.5) / scale;
            axis.index[size_t(o)] = std::clamp(int(std::floor(u - double(jitter))), 0, in_size - 1);
        }
        return axis;
    }
    const int radius = kernel_radius(filter);
    axis.taps = 2 * radius;
    axis.index.resize(size_t(out_size) * axis.taps);
    axis.weight.resize(size_t(out_size) * axis.taps);
    for (int o = 0; o < out_size; ++o) {
        // f: the output position in "sample index" units (sample p sits at f == p).
        const double f = (double(o) + 0.5) / scale - 0.5 - double(jitter);
        const int first = int(std::floor(f)) - radius + 1;
        float sum = 0.0f;
        for (int t = 0; t < axis.taps; ++t) {
            const float wgt = kernel_value(filter, float(f - double(first + t)));
            axis.index[size_t(o) * axis.taps + t] = std::clamp(first + t, 0, in_size - 1);
            axis.weight[size_t(o) * axis.taps + t] = wgt;
            sum += wgt;
        }
        for (int t = 0; t < axis.taps; ++t) axis.weight[size_t(o) * axis.taps + t] /= sum;
    }
    return axis;
}

}  // namespace

Image spatial_upscale(const Image& render, int out_width, int out_height, float jitter_x,
                      float jitter_y, SpatialFilter filter) {
    if (render.empty() || render.width <= 0 || render.height <= 0 || render.channels <= 0) {
        throw std::invalid_argument("spatial_upscale: empty input image");
    }
    if (out_width <= 0 || out_height <= 0) {
        throw std::invalid_argument("spatial_upscale: output size must be positive");
    }
    if (!std::isfinite(jitter_x) || !std::isfinite(jitter_y)) {
        throw std::invalid_argument("spatial_upscale: jitter is not finite");
    }
    const int channels = render.channels;
    const AxisTaps ax = axis_taps(render.width, out_width, jitter_x, filter);
    const AxisTaps ay = axis_taps(render.height, out_height, jitter_y, filter);

    // Horizontal pass: render.height rows of out_width pixels.
    Image horizontal(out_width, render.height, channels);
    tbb::parallel_for(
        tbb::blocked_range<int>(0, render.height), [&](const tbb::blocked_range<int>& r) {
            for (int y = r.begin(); y < r.end(); ++y) {
                for (int x = 0; x < out_width; ++x) {
                    float* dst = horizontal.pixel(x, y);
                    for (int t = 0; t < ax.taps; ++t) {
                        const float wgt = ax.weight[size_t(x) * ax.taps + t];
                        const float* src = render.pixel(ax.index[size_t(x) * ax.taps + t], y);
                        for (int c = 0; c < channels; ++c) dst[c] += wgt * src[c];
                    }
                }
            }
        });
    Image out(out_width, out_height, channels);
    tbb::parallel_for(
        tbb::blocked_range<int>(0, out_height), [&](const tbb::blocked_range<int>& r) {
            for (int y = r.begin(); y < r.end(); ++y) {
                for (int t = 0; t < ay.taps; ++t) {
                    const float wgt = ay.weight[size_t(y) * ay.taps + t];
                    const float* src_row = horizontal.pixel(0, ay.index[size_t(y) * ay.taps + t]);
                    float* dst_row = out.pixel(0, y);
                    for (size_t i = 0; i < size_t(out_width) * channels; ++i)
                        dst_row[i] += wgt * src_row[i];
                }
            }
        });
    return out;
}

}  // namespace swinup::eval
