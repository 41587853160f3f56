// Peak signal-to-noise ratio of display-encoded images (display_encode.h), peak value 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sequence/image.h"

namespace swinup::eval {

// Mean squared difference over all pixels and the first 3 channels (R, G, B).
// Throws std::invalid_argument when sizes differ or an image has fewer than 3 channels.
double mean_squared_error(const Image& a, const Image& b);

// 10 log10(1 / mse) in dB; +infinity when mse == 0 (identical images).
double psnr_from_mse(double mse);

// psnr_from_mse(mean_squared_error(a, b)).
double psnr(const Image& a, const Image& b);

// Squared differences of R, G, B summed over the pixels where region[pixel] == `in` (one byte a
// pixel, row-major), and how many terms that is: pooled over frames, sum / count is the MSE of a
// region (the masked region of `swinup eval`, or everything outside it).
struct RegionSquaredError {
    double sum = 0.0;
    size_t count = 0;
    void add(const RegionSquaredError& other) {
        sum += other.sum;
        count += other.count;
    }
    // psnr_from_mse(sum / count); NaN when nothing was counted.
    double psnr_db() const;
};
RegionSquaredError region_squared_error(const Image& a, const Image& b, const std::vector<uint8_t>& region,
                                        uint8_t in);

}  // namespace swinup::eval
