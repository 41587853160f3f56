#include "eval/hdr_flip.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <string>

namespace swinup::eval {

namespace {

// ACES filmic in Narkowicz's fit, (a x^2 + b x) / (c x^2 + d x + e), with the input scaled by 0.6
// as the reference does (folded into the coefficients).
constexpr double kAcesA = 0.6 * 0.6 * 2.51, kAcesB = 0.6 * 0.03, kAcesC = 0.6 * 0.6 * 2.43,
                 kAcesD = 0.6 * 0.59, kAcesE = 0.14;
constexpr double kExposureTarget = 0.85;  // the tone-mapped value of the brightest / median pixel

float scene_value(float v) { return std::isfinite(v) && v > 0.0f ? v : 0.0f; }

// The x >= 0 with tone_map(x) = target: the positive root of
// (a - t c) x^2 + (b - t d) x - t e = 0.
double inverse_tone_map(double target) {
    const double qa = kAcesA - target * kAcesC, qb = kAcesB - target * kAcesD, qc = -target * kAcesE;
    if (qa == 0.0) return -qc / qb;
    return (-qb + std::sqrt(qb * qb - 4.0 * qa * qc)) / (2.0 * qa);
}

void check_hdr(const Image& image, const char* what) { check_flip_input(image, "HDR-FLIP", what); }

// The image exposed by 2^c and tone mapped, 3 channels.
Image exposed_tone_mapped(const Image& image, double c) {
    const float scale = float(std::exp2(c));
    Image out(image.width, image.height, 3);
    const size_t pixels = size_t(image.width) * image.height;
    for (size_t i = 0; i < pixels; ++i) {
        const float* in = image.data.data() + i * image.channels;
        for (int k = 0; k < 3; ++k) {
            out.data[i * 3 + size_t(k)] = flip_aces_tone_map(scale * scene_value(in[k]));
        }
    }
    return out;
}

}  // namespace

float flip_aces_tone_map(float x) {
    const float v = (float(kAcesA) * x * x + float(kAcesB) * x) /
                    (float(kAcesC) * x * x + float(kAcesD) * x + float(kAcesE));
    return std::clamp(v, 0.0f, 1.0f);
}

FlipExposures hdr_flip_exposures(const Image& reference) {
    check_hdr(reference, "reference");
    const size_t pixels = size_t(reference.width) * reference.height;
    std::vector<float> luminance(pixels);
    for (size_t i = 0; i < pixels; ++i) {
        const float* p = reference.data.data() + i * reference.channels;
        luminance[i] = 0.2126f * scene_value(p[0]) + 0.7152f * scene_value(p[1]) +
                       0.0722f * scene_value(p[2]);
    }
    const float brightest = *std::max_element(luminance.begin(), luminance.end());
    const auto middle = luminance.begin() + long(pixels / 2);
    std::nth_element(luminance.begin(), middle, luminance.end());
    const double y_max = brightest > 0.0f ? double(brightest) : double(FLT_EPSILON);
    const double y_median = *middle > 0.0f ? double(*middle) : double(FLT_EPSILON);
    const double x85 = inverse_tone_map(kExposureTarget);
    FlipExposures e;
    e.start = std::log2(x85 / y_max);
    e.stop = std::log2(x85 / y_median);
    e.count = std::max(2, int(std::ceil(e.stop - e.start)));
    return e;
}

std::vector<std::vector<float>> hdr_flip_error_maps(const Image& reference,
                                                    const std::vector<const Image*>& tests,
                                                    double pixels_per_degree) {
    check_hdr(reference, "reference");
    for (const Image* test : tests) {
        check_hdr(*test, "test");
        if (test->width != reference.width || test->height != reference.height) {
            throw std::invalid_argument(
                "HDR-FLIP: image sizes differ (reference " + std::to_string(reference.width) + "x" +
                std::to_string(reference.height) + ", test " + std::to_string(test->width) + "x" +
                std::to_string(test->height) + ")");
        }
    }
    const FlipExposures exposures = hdr_flip_exposures(reference);
    std::vector<std::vector<float>> maps(tests.size(),
                                         std::vector<float>(reference.data.size() / reference.channels, 0.0f));
    for (int e = 0; e < exposures.count; ++e) {
        const double c = exposures.at(e);
        const LdrFlipReference exposed(exposed_tone_mapped(reference, c), pixels_per_degree);
        for (size_t t = 0; t < tests.size(); ++t) {
            const std::vector<float> error = exposed.error_map(exposed_tone_mapped(*tests[t], c));
            std::vector<float>& map = maps[t];
            for (size_t i = 0; i < map.size(); ++i) map[i] = std::max(map[i], error[i]);
        }
    }
    return maps;
}

std::vector<float> hdr_flip_error_map(const Image& reference, const Image& test,
                                      double pixels_per_degree) {
    return hdr_flip_error_maps(reference, {&test}, pixels_per_degree)[0];
}

}  // namespace swinup::eval
