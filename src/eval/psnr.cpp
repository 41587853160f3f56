#include "eval/psnr.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace swinup::eval {

namespace {

void check_comparable(const Image& a, const Image& b, const char* who) {
    if (a.width != b.width || a.height != b.height) {
        throw std::invalid_argument(std::string(who) + ": image sizes differ (" +
                                    std::to_string(a.width) + "x" + std::to_string(a.height) +
                                    " vs " + std::to_string(b.width) + "x" +
                                    std::to_string(b.height) + ")");
    }
    if (a.channels < 3 || b.channels < 3) {
        throw std::invalid_argument(std::string(who) + ": images need at least 3 channels");
    }
    if (a.width <= 0 || a.height <= 0) {
        throw std::invalid_argument(std::string(who) + ": empty image");
    }
}

}  // namespace

double mean_squared_error(const Image& a, const Image& b) {
    check_comparable(a, b, "mean_squared_error");
    const size_t pixels = size_t(a.width) * a.height;
    double sum = 0.0;
    for (size_t i = 0; i < pixels; ++i) {
        const float* pa = a.data.data() + i * a.channels;
        const float* pb = b.data.data() + i * b.channels;
        for (int c = 0; c < 3; ++c) {
            const double d = double(pa[c]) - double(pb[c]);
            sum += d * d;
        }
    }
    return sum / double(pixels * 3);
}

double psnr_from_mse(double mse) {
    if (mse <= 0.0) return std::numeric_limits<double>::infinity();
    return -10.0 * std::log10(mse);
}

double psnr(const Image& a, const Image& b) { return psnr_from_mse(mean_squared_error(a, b)); }

double RegionSquaredError::psnr_db() const {
    return count == 0 ? std::numeric_limits<double>::quiet_NaN() : psnr_from_mse(sum / double(count));
}

RegionSquaredError region_squared_error(const Image& a, const Image& b, const std::vector<uint8_t>& region,
                                        uint8_t in) {
    check_comparable(a, b, "region_squared_error");
    const size_t pixels = size_t(a.width) * a.height;
    if (region.size() != pixels) {
        throw std::invalid_argument("region_squared_error: the region is not the images' size");
    }
    RegionSquaredError e;
    for (size_t i = 0; i < pixels; ++i) {
        if (region[i] != in) continue;
        const float* pa = a.data.data() + i * a.channels;
        const float* pb = b.data.data() + i * b.channels;
        for (int c = 0; c < 3; ++c) {
            const double d = double(pa[c]) - double(pb[c]);
            e.sum += d * d;
        }
        e.count += 3;
    }
    return e;
}

}  // namespace swinup::eval
