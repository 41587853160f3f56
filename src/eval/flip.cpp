#include "eval/flip.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <type_traits>
#include <stdexcept>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace swinup::eval {

namespace {

using Matrix3 = std::array<std::array<double, 3>, 3>;
using Vector3 = std::array<double, 3>;

// Linear sRGB (D65) to CIE XYZ (IEC 61966-2-1).
constexpr Matrix3 kRgbToXyz = {{{0.4124564, 0.3575761, 0.1804375},
                                {0.2126729, 0.7151522, 0.0721750},
                                {0.0193339, 0.1191920, 0.9503041}}};

// The contrast sensitivity of each opponent channel (achromatic, red-green, blue-yellow) as a sum
// of two Gaussians over visual degrees x: sum_i a_i sqrt(pi / b_i) exp(-pi^2 x^2 / b_i).
struct CsfChannel {
    double a1, b1, a2, b2;
};
constexpr std::array<CsfChannel, 3> kCsf = {{{1.0, 0.0047, 0.0, 1e-5},
                                             {1.0, 0.0053, 0.0, 1e-5},
                                             {34.1, 0.04, 13.5, 0.025}}};
constexpr double kCsfWidestB = 0.04;       // the widest Gaussian sets the common radius
constexpr double kFeatureWidthDeg = 0.082;  // edge and point detectors' width, degrees
constexpr double kColourExponent = 0.7;     // q_c
constexpr double kColourCutoff = 0.4;       // p_c: this share of the largest difference ...
constexpr double kColourCutoffError = 0.95;  // p_t: ... maps to this error

Matrix3 inverse(const Matrix3& m) {
    const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                       m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                       m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    Matrix3 r{};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            // Cofactor of m[j][i] (the transpose), from the rows and columns other than j and i.
            const int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
            r[i][j] = (m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]) / det;
        }
    }
    return r;
}

Vector3 multiply(const Matrix3& m, const Vector3& v) {
    return {m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2],
            m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
            m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2]};
}

// The colour conversions in float, with the constants they need precomputed once.
struct ColourSpace {
    float to_xyz[3][3];    // linear RGB -> XYZ divided by the white point (so white is 1, 1, 1)
    float from_xyz[3][3];  // the inverse: white-relative XYZ -> linear RGB

    ColourSpace() {
        const Matrix3 back = inverse(kRgbToXyz);
        for (int i = 0; i < 3; ++i) {
            const double white = kRgbToXyz[i][0] + kRgbToXyz[i][1] + kRgbToXyz[i][2];
            for (int j = 0; j < 3; ++j) {
                to_xyz[i][j] = float(kRgbToXyz[i][j] / white);
                const double white_j = kRgbToXyz[j][0] + kRgbToXyz[j][1] + kRgbToXyz[j][2];
                from_xyz[i][j] = float(back[i][j] * white_j);
            }
        }
    }
};

const ColourSpace& colour_space() {
    static const ColourSpace space;
    return space;
}

// The cube root of t > 0 by Newton's method from a first guess that divides the float's exponent
// by 3: libm's cbrtf was a fifth of FLIP's time. Three steps bring the guess's few percent down to
// 1.6e-7 relative (at most 2 ulp) over CIELAB's range, and the loop stays vectorisable.
float cube_root(float t) {
    uint32_t bits;
    std::memcpy(&bits, &t, sizeof bits);
    bits = bits / 3u + 709921077u;  // ~ (127 - 127 / 3) << 23: the exponent divided by 3
    float y;
    std::memcpy(&y, &bits, sizeof y);
    for (int step = 0; step < 3; ++step) y = (2.0f * y + t / (y * y)) * (1.0f / 3.0f);
    return y;
}

// CIELAB's cube-root response with its linear toe.
template <typename T>
T lab_f(T t) {
    constexpr T delta = T(6.0 / 29.0);
    if (!(t > delta * delta * delta)) return t / (T(3) * delta * delta) + T(4.0 / 29.0);
    if constexpr (std::is_same_v<T, float>) {
        return cube_root(t);
    } else {
        return std::cbrt(t);
    }
}

// Hunt-adjusted CIELAB (L, 0.01 L a, 0.01 L b) of white-relative XYZ.
template <typename T>
std::array<T, 3> hunt_lab(T x, T y, T z) {
    const T fx = lab_f(x), fy = lab_f(y), fz = lab_f(z);
    const T l = T(116) * fy - T(16);
    return {l, T(0.01) * l * T(500) * (fx - fy), T(0.01) * l * T(200) * (fy - fz)};
}

template <typename T>
T hyab(const std::array<T, 3>& p, const std::array<T, 3>& q) {
    return std::abs(p[0] - q[0]) + std::sqrt((p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
}

std::array<double, 3> hunt_lab_of_rgb(const Vector3& rgb) {
    const Vector3 xyz = multiply(kRgbToXyz, rgb);
    const Vector3 white = multiply(kRgbToXyz, {1.0, 1.0, 1.0});
    return hunt_lab(xyz[0] / white[0], xyz[1] / white[1], xyz[2] / white[2]);
}

// The largest colour difference, green against blue, after the colour exponent.
double max_colour_difference() {
    return std::pow(hyab(hunt_lab_of_rgb({0, 1, 0}), hunt_lab_of_rgb({0, 0, 1})), kColourExponent);
}

float unit_clamp(float v) { return v > 0.0f ? std::min(v, 1.0f) : 0.0f; }  // NaN -> 0

// Centred taps of f(offset in pixels) for offsets -radius..radius.
template <typename F>
std::vector<double> sample_taps(int radius, F f) {
    std::vector<double> taps(size_t(2 * radius + 1));
    for (int i = -radius; i <= radius; ++i) taps[size_t(i + radius)] = f(double(i));
    return taps;
}

// Outer taps below 1e-9 of the largest change nothing a float can hold once summed with the
// centre (the narrow achromatic Gaussian has ~1e-20 at the common radius): dropping them, in
// pairs to keep the taps centred, saves work and not precision.
std::vector<float> trimmed(const std::vector<double>& taps) {
    double largest = 0.0;
    for (double t : taps) largest = std::max(largest, std::abs(t));
    size_t drop = 0;
    while (2 * (drop + 1) < taps.size() && std::abs(taps[drop]) < 1e-9 * largest &&
           std::abs(taps[taps.size() - 1 - drop]) < 1e-9 * largest) {
        ++drop;
    }
    return std::vector<float>(taps.begin() + long(drop), taps.end() - long(drop));
}

struct CsfComponent {
    float weight;              // of this Gaussian's separable 2-D kernel in the channel's sum
    std::vector<float> taps;   // the 1-D Gaussian, unnormalised (the weight normalises the sum)
};

// Each channel's 2-D kernel sum_i a_i sqrt(pi / b_i) g_i(x) g_i(y), normalised to sum 1 over the
// (2r+1)^2 window, r = ceil(3 sqrt(b_max / (2 pi^2)) ppd) pixels; a Gaussian of a = 0 is left out.
std::array<std::vector<CsfComponent>, 3> csf_kernels(double ppd) {
    constexpr double pi = std::numbers::pi;
    const int radius = int(std::ceil(3.0 * std::sqrt(kCsfWidestB / (2.0 * pi * pi)) * ppd));
    std::array<std::vector<CsfComponent>, 3> kernels;
    for (int c = 0; c < 3; ++c) {
        std::vector<std::pair<double, std::vector<double>>> parts;
        double total = 0.0;
        for (const auto& ab : {std::pair{kCsf[c].a1, kCsf[c].b1}, std::pair{kCsf[c].a2, kCsf[c].b2}}) {
            // Plain copies, not a structured binding: clang 14 cannot capture a binding in a lambda.
            const double a = ab.first, b = ab.second;
            if (a == 0.0) continue;
            std::vector<double> g = sample_taps(radius, [&](double px) {
                const double deg = px / ppd;
                return std::exp(-pi * pi * deg * deg / b);
            });
            double sum = 0.0;
            for (double v : g) sum += v;
            const double amplitude = a * std::sqrt(pi / b);
            total += amplitude * sum * sum;
            parts.emplace_back(amplitude, std::move(g));
        }
        for (auto& [amplitude, g] : parts) kernels[size_t(c)].push_back({float(amplitude / total), trimmed(g)});
    }
    return kernels;
}

// The feature detectors' 1-D parts: a Gaussian of sigma = 0.5 * 0.082 degrees (normalised to sum
// 1), its first derivative and its second derivative, each derivative's positive taps normalised
// to sum 1 and negative taps to sum -1. The 2-D detectors are derivative (x) Gaussian and
// Gaussian (x) derivative; normalising the 1-D parts normalises their products the same way.
struct FeatureKernels {
    std::vector<float> gaussian, first, second;
};

std::vector<float> normalised_by_sign(std::vector<double> taps) {
    double positive = 0.0, negative = 0.0;
    for (double t : taps) (t > 0 ? positive : negative) += t;
    for (double& t : taps) t = t > 0 ? t / positive : (t < 0 ? t / -negative : 0.0);
    return std::vector<float>(taps.begin(), taps.end());
}

FeatureKernels feature_kernels(double ppd) {
    const double sigma = 0.5 * kFeatureWidthDeg * ppd;
    const int radius = int(std::ceil(3.0 * sigma));
    const auto gauss = [&](double x) { return std::exp(-x * x / (2.0 * sigma * sigma)); };
    std::vector<double> g = sample_taps(radius, gauss);
    double sum = 0.0;
    for (double v : g) sum += v;
    FeatureKernels k;
    for (double v : g) k.gaussian.push_back(float(v / sum));
    k.first = normalised_by_sign(sample_taps(radius, [&](double x) { return -x * gauss(x); }));
    k.second = normalised_by_sign(sample_taps(
        radius, [&](double x) { return (x * x / (sigma * sigma) - 1.0) * gauss(x); }));
    return k;
}

template <typename F>
void for_each_row(int height, F f) {
    tbb::parallel_for(tbb::blocked_range<int>(0, height), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y < rows.end(); ++y) f(y);
    });
}

void check_rgb(const Image& image, const char* what) { check_flip_input(image, "FLIP", what); }

}  // namespace

double flip_pixels_per_degree(double distance_m, double width_m, double width_px) {
    return distance_m * (width_px / width_m) * (std::numbers::pi / 180.0);
}

double flip_default_pixels_per_degree() { return flip_pixels_per_degree(0.7, 0.7, 3840.0); }

LdrFlipReference::LdrFlipReference(const Image& linear_rgb, double pixels_per_degree)
    : pixels_per_degree_(pixels_per_degree) {
    check_rgb(linear_rgb, "reference");
    if (!(pixels_per_degree > 0.0) || !std::isfinite(pixels_per_degree)) {
        throw std::invalid_argument("FLIP: pixels per degree must be positive, got " +
                                    std::to_string(pixels_per_degree));
    }
    width_ = linear_rgb.width;
    height_ = linear_rgb.height;
    reference_ = perceive(linear_rgb);
}

LdrFlipReference::Perceived LdrFlipReference::perceive(const Image& image) const {
    const ColourSpace& cs = colour_space();
    const int w = image.width, h = image.height;
    // YyCxCz (CIELAB without its cube root) and the white-relative luminance Y / Yn.
    Plane yy(w, h), cx(w, h), cz(w, h), luminance(w, h);
    for_each_row(h, [&](int y) {
        for (int x = 0; x < w; ++x) {
            const float* p = image.pixel(x, y);
            const float r = unit_clamp(p[0]), g = unit_clamp(p[1]), b = unit_clamp(p[2]);
            const float xn = cs.to_xyz[0][0] * r + cs.to_xyz[0][1] * g + cs.to_xyz[0][2] * b;
            const float yn = cs.to_xyz[1][0] * r + cs.to_xyz[1][1] * g + cs.to_xyz[1][2] * b;
            const float zn = cs.to_xyz[2][0] * r + cs.to_xyz[2][1] * g + cs.to_xyz[2][2] * b;
            const size_t i = size_t(y) * w + x;
            yy.data[i] = 116.0f * yn - 16.0f;
            cx.data[i] = 500.0f * (xn - yn);
            cz.data[i] = 200.0f * (yn - zn);
            luminance.data[i] = yn;
        }
    });

    // The contrast sensitivity filters, one sum of separable Gaussians per channel.
    const auto csf = csf_kernels(pixels_per_degree_);
    const std::array<Plane*, 3> channels = {&yy, &cx, &cz};
    for (int c = 0; c < 3; ++c) {
        Plane sum(w, h);
        for (const CsfComponent& part : csf[size_t(c)]) {
            const Plane filtered = filter_separable(*channels[size_t(c)], part.taps, part.taps);
            for (size_t i = 0; i < sum.data.size(); ++i) sum.data[i] += part.weight * filtered.data[i];
        }
        *channels[size_t(c)] = std::move(sum);
    }

    // Filtered colour back to linear RGB, clamped to the displayable range, then Hunt-adjusted CIELAB.
    Perceived out{Plane(w, h), Plane(w, h), Plane(w, h), Plane(), Plane()};
    for_each_row(h, [&](int y) {
        for (int x = 0; x < w; ++x) {
            const size_t i = size_t(y) * w + x;
            const float yn = (yy.data[i] + 16.0f) / 116.0f;
            const float xn = cx.data[i] / 500.0f + yn;
            const float zn = yn - cz.data[i] / 200.0f;
            float rgb[3];
            for (int k = 0; k < 3; ++k) {
                rgb[k] = unit_clamp(cs.from_xyz[k][0] * xn + cs.from_xyz[k][1] * yn +
                                    cs.from_xyz[k][2] * zn);
            }
            float xyz[3];
            for (int k = 0; k < 3; ++k) {
                xyz[k] = cs.to_xyz[k][0] * rgb[0] + cs.to_xyz[k][1] * rgb[1] + cs.to_xyz[k][2] * rgb[2];
            }
            const std::array<float, 3> lab = hunt_lab(xyz[0], xyz[1], xyz[2]);
            out.hunt_l.data[i] = lab[0];
            out.hunt_a.data[i] = lab[1];
            out.hunt_b.data[i] = lab[2];
        }
    });

    // Edges and points of the unfiltered luminance.
    const FeatureKernels fk = feature_kernels(pixels_per_degree_);
    const Plane rows_gaussian = filter_rows(luminance, fk.gaussian);
    const Plane rows_first = filter_rows(luminance, fk.first);
    const Plane rows_second = filter_rows(luminance, fk.second);
    const Plane edge_x = filter_columns(rows_first, fk.gaussian);
    const Plane edge_y = filter_columns(rows_gaussian, fk.first);
    const Plane point_x = filter_columns(rows_second, fk.gaussian);
    const Plane point_y = filter_columns(rows_gaussian, fk.second);
    out.edges = Plane(w, h);
    out.points = Plane(w, h);
    for_each_row(h, [&](int y) {
        for (int x = 0; x < w; ++x) {
            const size_t i = size_t(y) * w + x;
            // Magnitudes are at most sqrt(2) (normalised detectors on [0, 1]): no need for hypot.
            out.edges.data[i] = std::sqrt(edge_x.data[i] * edge_x.data[i] + edge_y.data[i] * edge_y.data[i]);
            out.points.data[i] =
                std::sqrt(point_x.data[i] * point_x.data[i] + point_y.data[i] * point_y.data[i]);
        }
    });
    return out;
}

std::vector<float> LdrFlipReference::error_map(const Image& linear_rgb) const {
    check_rgb(linear_rgb, "test");
    if (linear_rgb.width != width_ || linear_rgb.height != height_) {
        throw std::invalid_argument("FLIP: image sizes differ (reference " + std::to_string(width_) +
                                    "x" + std::to_string(height_) + ", test " +
                                    std::to_string(linear_rgb.width) + "x" +
                                    std::to_string(linear_rgb.height) + ")");
    }
    const Perceived test = perceive(linear_rgb);
    const Perceived& ref = reference_;
    static const float max_colour = float(max_colour_difference());
    const float cutoff = float(kColourCutoff) * max_colour;
    const float below_slope = float(kColourCutoffError) / cutoff;
    const float above_slope = float(1.0 - kColourCutoffError) / (max_colour - cutoff);
    const float inv_sqrt2 = float(1.0 / std::numbers::sqrt2);
    std::vector<float> error(size_t(width_) * height_);
    for_each_row(height_, [&](int y) {
        for (int x = 0; x < width_; ++x) {
            const size_t i = size_t(y) * width_ + x;
            const std::array<float, 3> p = {ref.hunt_l.data[i], ref.hunt_a.data[i], ref.hunt_b.data[i]};
            const std::array<float, 3> q = {test.hunt_l.data[i], test.hunt_a.data[i], test.hunt_b.data[i]};
            const float colour_distance = std::pow(hyab(p, q), float(kColourExponent));
            const float colour = colour_distance < cutoff
                                     ? below_slope * colour_distance
                                     : float(kColourCutoffError) + (colour_distance - cutoff) * above_slope;
            const float feature_difference =
                std::max(std::abs(ref.edges.data[i] - test.edges.data[i]),
                         std::abs(ref.points.data[i] - test.points.data[i]));
            const float feature = std::sqrt(inv_sqrt2 * feature_difference);  // ^q_f, q_f = 0.5
            error[i] = std::pow(colour, 1.0f - feature);
        }
    });
    return error;
}

Image srgb_decode_image(const Image& srgb) {
    check_rgb(srgb, "sRGB");
    Image out(srgb.width, srgb.height, 3);
    const size_t pixels = size_t(srgb.width) * srgb.height;
    for (size_t i = 0; i < pixels; ++i) {
        const float* in = srgb.data.data() + i * srgb.channels;
        for (int c = 0; c < 3; ++c) {
            const float v = unit_clamp(in[c]);
            out.data[i * 3 + size_t(c)] =
                v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f);
        }
    }
    return out;
}

std::vector<float> ldr_flip_error_map(const Image& reference_srgb, const Image& test_srgb,
                                      double pixels_per_degree) {
    const LdrFlipReference reference(srgb_decode_image(reference_srgb), pixels_per_degree);
    return reference.error_map(srgb_decode_image(test_srgb));
}

double mean_flip(const std::vector<float>& error_map) {
    if (error_map.empty()) return 0.0;
    double sum = 0.0;
    for (float v : error_map) sum += v;
    return sum / double(error_map.size());
}

void check_flip_input(const Image& image, const char* metric, const char* what) {
    if (image.width <= 0 || image.height <= 0 || image.data.empty()) {
        throw std::invalid_argument(std::string(metric) + ": the " + what + " image is empty");
    }
    if (image.channels < 3) {
        throw std::invalid_argument(std::string(metric) + ": the " + what + " image has " +
                                    std::to_string(image.channels) + " channels, needs at least 3 (RGB)");
    }
}

}  // namespace swinup::eval
