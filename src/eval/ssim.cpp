#include "eval/ssim.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

namespace swinup::eval {

std::array<double, kSsimWindow> ssim_gaussian_taps() {
    std::array<double, kSsimWindow> taps{};
    double sum = 0.0;
    for (int i = 0; i < kSsimWindow; ++i) {
        const double x = i - kSsimWindow / 2;
        taps[i] = std::exp(-x * x / (2.0 * kSsimSigma * kSsimSigma));
        sum += taps[i];
    }
    for (double& t : taps) t /= sum;
    return taps;
}

namespace {

std::vector<float> luma_of(const Image& image) {
    std::vector<float> y(size_t(image.width) * image.height);
    for (size_t i = 0; i < y.size(); ++i) {
        const float* p = image.data.data() + i * image.channels;
        y[i] = 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
    }
    return y;
}

}  // namespace

double ssim(const Image& a, const Image& b) {
    if (a.width != b.width || a.height != b.height) {
        throw std::invalid_argument("ssim: image sizes differ (" + std::to_string(a.width) + "x" +
                                    std::to_string(a.height) + " vs " + std::to_string(b.width) +
                                    "x" + std::to_string(b.height) + ")");
    }
    if (a.channels < 3 || b.channels < 3) {
        throw std::invalid_argument("ssim: images need at least 3 channels");
    }
    if (a.width < kSsimWindow || a.height < kSsimWindow) {
        throw std::invalid_argument("ssim: image is " + std::to_string(a.width) + "x" +
                                    std::to_string(a.height) + ", smaller than the 11x11 window");
    }
    const int w = a.width, h = a.height;
    const int out_w = w - kSsimWindow + 1, out_h = h - kSsimWindow + 1;
    const std::vector<float> ya = luma_of(a), yb = luma_of(b);
    const auto taps = ssim_gaussian_taps();

    // Horizontal pass of the five moments (a, b, a^2, b^2, ab) into out_w x h rows; doubles keep
    // E[x^2] - E[x]^2 free of cancellation at the 1e-4 variances that matter next to C2.
    std::vector<double> horizontal(size_t(out_w) * h * 5);
    tbb::parallel_for(tbb::blocked_range<int>(0, h), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y < rows.end(); ++y) {
            const float* ra = ya.data() + size_t(y) * w;
            const float* rb = yb.data() + size_t(y) * w;
            for (int x = 0; x < out_w; ++x) {
                double m[5] = {0, 0, 0, 0, 0};
                for (int k = 0; k < kSsimWindow; ++k) {
                    const double va = ra[x + k], vb = rb[x + k], t = taps[k];
                    m[0] += t * va;
                    m[1] += t * vb;
                    m[2] += t * va * va;
                    m[3] += t * vb * vb;
                    m[4] += t * va * vb;
                }
                double* dst = horizontal.data() + (size_t(y) * out_w + x) * 5;
                for (int i = 0; i < 5; ++i) dst[i] = m[i];
            }
        }
    });
    const double total = tbb::parallel_reduce(
        tbb::blocked_range<int>(0, out_h), 0.0,
        [&](const tbb::blocked_range<int>& rows, double acc) {
            for (int y = rows.begin(); y < rows.end(); ++y) {
                for (int x = 0; x < out_w; ++x) {
                    double m[5] = {0, 0, 0, 0, 0};
                    for (int k = 0; k < kSsimWindow; ++k) {
                        const double* src = horizontal.data() + (size_t(y + k) * out_w + x) * 5;
                        for (int i = 0; i < 5; ++i) m[i] += taps[k] * src[i];
                    }
                    const double mu_a = m[0], mu_b = m[1];
                    const double var_a = m[2] - mu_a * mu_a;
                    const double var_b = m[3] - mu_b * mu_b;
                    const double cov = m[4] - mu_a * mu_b;
                    acc += ((2.0 * mu_a * mu_b + kSsimC1) * (2.0 * cov + kSsimC2)) /
                           ((mu_a * mu_a + mu_b * mu_b + kSsimC1) * (var_a + var_b + kSsimC2));
                }
            }
            return acc;
        },
        [](double x, double y) { return x + y; });
    return total / (double(out_w) * out_h);
}

}  // namespace swinup::eval
