// Per-pixel arithmetic shared by the CPU and CUDA pipelines (staging and output pass around the
// network): one definition for both, so that the two backends agree bit for bit outside the
// network (style.md). Every float operation that matters goes through exact:: so that nvcc cannot
// contract it into an FMA that the host would not use.
#pragma once

#include <cstdint>

#include "numeric/e4m3.h"
#include "numeric/exact_math.h"
#include "numeric/float_bits.h"
#include "numeric/half.h"
#include "numeric/host_device.h"

#if !defined(__CUDA_ARCH__) && defined(__F16C__)
#include <immintrin.h>
#endif

namespace swinup::px {

// ---- small helpers ----------------------------------------------------------------------------

SWINUP_HD bool is_finite(float x) { return (float_to_bits(x) & 0x7f800000u) != 0x7f800000u; }
SWINUP_HD float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
SWINUP_HD int clampi(int x, int lo, int hi) { return x < lo ? lo : (x > hi ? hi : x); }
SWINUP_HD float minf(float a, float b) { return a < b ? a : b; }
SWINUP_HD float maxf(float a, float b) { return a > b ? a : b; }

// f16 bits -> f32 for the samplers' inner loops: the hardware conversion where the host has one
// (exact, like every f16 -> f32 conversion), else the shared bit-level definition.
SWINUP_HD float load_half(uint16_t h) {
#if defined(__CUDA_ARCH__)
    float f;  // the hardware conversion: exact for every f16, as the software one
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#elif defined(__F16C__)
    return _cvtsh_ss(h);
#else
    return f16_bits_to_f32(h);
#endif
}

// Largest finite f16: history and RGBA16F output are clamped to it so that they never hold Inf.
constexpr float kHalfMax = 65504.0f;

// floor() of a float known to be within int range (callers check the range before calling).
SWINUP_HD int floor_to_int(float x) {
    const int i = static_cast<int>(x);  // truncates toward zero
    return (static_cast<float>(i) > x) ? i - 1 : i;
}

// True when a continuous position (pixel i covers [i, i+1)) lies on an image of `size` pixels.
// NaN compares false, so a NaN position is off screen.
SWINUP_HD bool on_screen(float pos, int size) { return pos >= 0.0f && pos < static_cast<float>(size); }

// ---- colour compression -----------------------------------------------------------------------

SWINUP_HD float t_of(float x) { return exact::tonemap_t(x); }
SWINUP_HD float t_inverse(float y) { return exact::tonemap_t_inverse(y); }

// ---- staging of the raw inputs (docs/model-spec.md, "Staging") -------------------------------

// sRGB's transfer function undone (IEC 61966-2-1), for colour given sRGB-encoded
// (SWINUP_FLAG_SRGB_INPUT): c <= 0.04045: c / 12.92, else ((c + 0.055) / 1.055)^2.4, the power as
// exp2(2.4 log2 x) of the exact-mode formulas, so every backend gets the same bits. Extended range:
// values above 1 follow the curve, negative ones are its mirror image; NaN and Inf pass unchanged
// (staging replaces them).
SWINUP_HD float srgb_to_linear(float c) {
    if (!is_finite(c)) return c;
    const float a = c < 0.0f ? -c : c;
    float linear;
    if (a <= 0.04045f) {
        linear = exact::div(a, 12.92f);
    } else {
        const float x = exact::div(exact::add(a, 0.055f), 1.055f);
        linear = exact::exp2(exact::mul(2.4f, exact::log2(x)));
    }
    return c < 0.0f ? -linear : linear;
}

// A colour channel as the engine gave it, made linear when it is sRGB-encoded.
SWINUP_HD float decode_colour(float raw, bool srgb) { return srgb ? srgb_to_linear(raw) : raw; }

// Colour: max(colour * exposure / pre_exposure, 0); NaN/Inf (in the input or after scaling) -> 0;
// LDR clamps to [0, 1]. *replaced is set when the value had to be replaced.
SWINUP_HD float stage_color(float raw, float exposure, float pre_exposure, bool ldr, bool* replaced) {
    float c = exact::div(exact::mul(raw, exposure), pre_exposure);
    *replaced = !is_finite(c);
    if (*replaced) c = 0.0f;
    c = maxf(c, 0.0f);
    if (ldr) c = minf(c, 1.0f);
    return c;
}

// Depth to reverse-Z (1 near, 0 far); NaN/Inf -> far.
SWINUP_HD float stage_depth(float raw, bool inverted, bool* replaced) {
    *replaced = !is_finite(raw);
    if (*replaced) return 0.0f;
    return inverted ? raw : exact::sub(1.0f, raw);
}

// Motion component times its scale (and divided by s for display-resolution vectors);
// NaN/Inf (in the input or after scaling) -> 0.
SWINUP_HD float stage_motion(float raw, float mv_scale, float divide_by, bool* replaced) {
    const float m = exact::div(exact::mul(raw, mv_scale), divide_by);
    *replaced = !is_finite(m);
    return *replaced ? 0.0f : m;
}

// The disocclusion cue: clamp((z_prev - z) / max(z_prev, z, 1e-6), -1, 1).
SWINUP_HD float disocclusion_cue(float z_prev, float z) {
    const float denominator = maxf(maxf(z_prev, z), 1e-6f);
    return clampf(exact::div(exact::sub(z_prev, z), denominator), -1.0f, 1.0f);
}

// A slot value as the network reads it: clamped to +-448, rounded to e4m3 (kept as a float).
SWINUP_HD float slot_value(float x) { return round_to_e4m3(clampf(x, -kE4m3Max, kE4m3Max)); }

// ---- Catmull-Rom history sampling (staging) ---------------------------------------------------

// The four Catmull-Rom (a = -0.5) weights of taps -1, 0, +1, +2 for a fraction f in [0, 1).
SWINUP_HD void catmull_rom_weights(float f, float w[4]) {
    const float f2 = exact::mul(f, f);
    const float f3 = exact::mul(f2, f);
    // w0 = -f/2 + f^2 - f^3/2, w1 = 1 - 5f^2/2 + 3f^3/2, w2 = f/2 + 2f^2 - 3f^3/2, w3 = -f^2/2 + f^3/2
    w[0] = exact::sub(exact::add(exact::mul(-0.5f, f), f2), exact::mul(0.5f, f3));
    w[1] = exact::add(exact::sub(1.0f, exact::mul(2.5f, f2)), exact::mul(1.5f, f3));
    w[2] = exact::sub(exact::add(exact::mul(0.5f, f), exact::mul(2.0f, f2)), exact::mul(1.5f, f3));
    w[3] = exact::add(exact::mul(-0.5f, f2), exact::mul(0.5f, f3));
}

// A separable sample of an RGB image of width x height at the continuous position (px, py)
// (pixel i's centre is at i + 0.5) with kTaps taps per axis (1 - kTaps/2 .. kTaps/2 from the pixel
// at or left of / above the position), weighted by `kWeights(fraction, w)` per axis, taps clamped
// to the edges, the result clamped per channel to the min/max of the 4 central taps (which kills
// the filter's ringing). `fetch(x, y, rgb)` reads one in-range pixel. The caller checks that the
// position is on screen. Sums run in a fixed order (columns within a row, then rows) so that every
// backend rounds alike. The history samplers below: Catmull-Rom (staging), Lanczos-3 (output pass).
//
// On an F16C host, a fetch that can also read a pixel as four floats in one SSE register
// (`fetch.rgba(x, y)`, the f16 history) has its three channels summed in that register: the same
// IEEE products and sums in the same order per channel (SSE lanes round like scalar SSE, and
// _mm_min_ps / _mm_max_ps choose exactly like minf / maxf), so the same bits with a third of the
// arithmetic instructions. The fourth lane carries the unused channel and is dropped.
#if !defined(__CUDA_ARCH__) && defined(__F16C__)
template <class Fetch>
concept RgbaVectorFetch = requires(const Fetch& f) { f.rgba(0, 0); };
#endif

template <int kTaps, void (*kWeights)(float, float*), class Fetch>
SWINUP_HD void clamped_separable_sample(const Fetch& fetch, int width, int height, float px, float py,
                                        float out[3]) {
    constexpr int kFirst = 1 - kTaps / 2;    // the first tap's offset: -1 of 4, -2 of 6
    constexpr int kCentral = kTaps / 2 - 1;  // the central taps: kCentral and kCentral + 1
    const float ux = exact::sub(px, 0.5f);
    const float uy = exact::sub(py, 0.5f);
    const int ix = floor_to_int(ux);
    const int iy = floor_to_int(uy);
    float wx[kTaps], wy[kTaps];
    kWeights(exact::sub(ux, static_cast<float>(ix)), wx);
    kWeights(exact::sub(uy, static_cast<float>(iy)), wy);
#if !defined(__CUDA_ARCH__) && defined(__F16C__)
    if constexpr (RgbaVectorFetch<Fetch>) {
        __m128 sum4 = _mm_setzero_ps();
        __m128 lo4 = _mm_set1_ps(3.4e38f);
        __m128 hi4 = _mm_set1_ps(-3.4e38f);
        for (int j = 0; j < kTaps; ++j) {
            const int y = clampi(iy + kFirst + j, 0, height - 1);
            __m128 row4 = _mm_setzero_ps();
            for (int i = 0; i < kTaps; ++i) {
                const __m128 tap = fetch.rgba(clampi(ix + kFirst + i, 0, width - 1), y);
                row4 = _mm_add_ps(row4, _mm_mul_ps(_mm_set1_ps(wx[i]), tap));
                if ((i == kCentral || i == kCentral + 1) && (j == kCentral || j == kCentral + 1)) {
                    lo4 = _mm_min_ps(lo4, tap);
                    hi4 = _mm_max_ps(hi4, tap);
                }
            }
            sum4 = _mm_add_ps(sum4, _mm_mul_ps(_mm_set1_ps(wy[j]), row4));
        }
        alignas(16) float sum[4], lo[4], hi[4];
        _mm_store_ps(sum, sum4);
        _mm_store_ps(lo, lo4);
        _mm_store_ps(hi, hi4);
        for (int c = 0; c < 3; ++c) out[c] = clampf(sum[c], lo[c], hi[c]);
        return;
    }
#endif
    float sum[3] = {0.0f, 0.0f, 0.0f};
    float lo[3] = {3.4e38f, 3.4e38f, 3.4e38f};
    float hi[3] = {-3.4e38f, -3.4e38f, -3.4e38f};
    for (int j = 0; j < kTaps; ++j) {
        const int y = clampi(iy + kFirst + j, 0, height - 1);
        float row[3] = {0.0f, 0.0f, 0.0f};
        for (int i = 0; i < kTaps; ++i) {
            const int x = clampi(ix + kFirst + i, 0, width - 1);
            float tap[3];
            fetch(x, y, tap);
            const bool central = (i == kCentral || i == kCentral + 1) && (j == kCentral || j == kCentral + 1);
            for (int c = 0; c < 3; ++c) {
                row[c] = exact::add(row[c], exact::mul(wx[i], tap[c]));
                if (central) {
                    lo[c] = minf(lo[c], tap[c]);
                    hi[c] = maxf(hi[c], tap[c]);
                }
            }
        }
        for (int c = 0; c < 3; ++c) sum[c] = exact::add(sum[c], exact::mul(wy[j], row[c]));
    }
    for (int c = 0; c < 3; ++c) out[c] = clampf(sum[c], lo[c], hi[c]);
}

// Catmull-Rom sample (4 x 4 taps), clamped to its central taps: staging's history slots.
template <class Fetch>
SWINUP_HD void catmull_rom_sample(const Fetch& fetch, int width, int height, float px, float py,
                                  float out[3]) {
    clamped_separable_sample<4, catmull_rom_weights>(fetch, width, height, px, py, out);
}

// ---- Lanczos-3 history sampling (the output pass) ---------------------------------------------

// Lanczos-3 weighs the history tap at distance d by sinc(d) sinc(d / 3), the six taps of a
// fraction normalised to sum 1. Evaluated as such, that is two sincos and seven divisions per axis,
// more GPU instructions than the 36 taps' sums; so the normalised weights are defined by three
// degree-7 polynomials fitted to them (python/scripts/research/fit_lanczos3_weights.py; largest
// error of a weight 1.9e-7, of their sum 1.1e-7), in u = f - 1/2 and h = f (1 - f) = 1/4 - u^2:
//   w(-2) = h q0(u), w(-1) = h q1(u), w(0) = (1/2 - u) + h q2(u),
//   w(+1) = (1/2 + u) + h q2(-u), w(+2) = h q1(-u), w(+3) = h q0(-u).
// The mirror symmetry of the taps makes three polynomials enough, each evaluated at +-u from its
// even and odd parts; the factor h makes the weights exactly (0, 0, 1, 0, 0, 0) at f = 0.

// a * b + c: in exact mode a product and a sum, each rounded (every backend rounds alike); with
// kFused one FMA (fast mode on the GPU, held to its bound against exact).
template <bool kFused>
SWINUP_HD float lanczos3_mul_add(float a, float b, float c) {
    return kFused ? exact::fma(a, b, c) : exact::add(exact::mul(a, b), c);
}

// q(u) and q(-u) of a degree-7 polynomial with coefficients c7 .. c0 (of u^7 .. u^0), from its
// even and odd parts in u2 = u^2.
template <bool kFused>
SWINUP_HD void lanczos3_poly(float u, float u2, float c7, float c6, float c5, float c4, float c3,
                             float c2, float c1, float c0, float* at_u, float* at_minus_u) {
    const float even = lanczos3_mul_add<kFused>(
        lanczos3_mul_add<kFused>(lanczos3_mul_add<kFused>(c6, u2, c4), u2, c2), u2, c0);
    const float odd = lanczos3_mul_add<kFused>(
        lanczos3_mul_add<kFused>(lanczos3_mul_add<kFused>(c7, u2, c5), u2, c3), u2, c1);
    *at_u = lanczos3_mul_add<kFused>(u, odd, even);
    *at_minus_u = lanczos3_mul_add<kFused>(-u, odd, even);
}

// The six Lanczos-3 weights of taps -2 .. +3 for a fraction f in [0, 1) (docs/model-spec.md,
// "Output pass"). Why Lanczos-3 and not Catmull-Rom:
// docs/journal/2026-12-03-lanczos3-history-706d643.md. kFused: fast mode's variant, each product
// and sum one FMA.
template <bool kFused = false>
SWINUP_HD void lanczos3_weights(float f, float w[6]) {
    const float u = exact::sub(f, 0.5f);
    const float u2 = exact::mul(u, u);
    const float h = exact::sub(0.25f, u2);
    float q0, q0m, q1, q1m, q2, q2m;  // q(u), q(-u)
    lanczos3_poly<kFused>(u, u2, 4.804119840e-02f, 2.341418900e-02f, -9.706742316e-02f, -7.223858684e-02f,
                  2.170617282e-01f, 3.880305216e-02f, -2.556954920e-01f, 9.782616794e-02f, &q0, &q0m);
    lanczos3_poly<kFused>(u, u2, -1.197173223e-01f, 3.557077795e-02f, 2.286744565e-01f, -1.961341314e-02f,
                  -4.672587812e-01f, 1.091381162e-01f, 7.246325016e-01f, -5.434781313e-01f, &q1, &q1m);
    lanczos3_poly<kFused>(u, u2, 2.345926762e-01f, -5.915982649e-02f, -4.555668831e-01f, 9.189238399e-02f,
                  7.939566374e-01f, -1.479432732e-01f, -1.346677065e+00f, 4.456519783e-01f, &q2, &q2m);
    w[0] = exact::mul(h, q0);
    w[1] = exact::mul(h, q1);
    w[2] = lanczos3_mul_add<kFused>(h, q2, exact::sub(0.5f, u));
    w[3] = lanczos3_mul_add<kFused>(h, q2m, exact::add(0.5f, u));
    w[4] = exact::mul(h, q1m);
    w[5] = exact::mul(h, q0m);
}

// Lanczos-3 sample (6 x 6 taps), clamped to its central 2 x 2 taps as Catmull-Rom: the output
// pass's history.
template <class Fetch>
SWINUP_HD void lanczos3_sample(const Fetch& fetch, int width, int height, float px, float py,
                               float out[3]) {
    clamped_separable_sample<6, lanczos3_weights<false>>(fetch, width, height, px, py, out);
}

// Bilinear sample of `channels` (<= 4) interleaved channels at the continuous position (px, py),
// taps clamped to the edges; `fetch(x, y, values)` reads one in-range pixel.
template <class Fetch>
SWINUP_HD void bilinear_sample(const Fetch& fetch, int width, int height, int channels, float px,
                               float py, float* out) {
    const float ux = exact::sub(px, 0.5f);
    const float uy = exact::sub(py, 0.5f);
    const int ix = floor_to_int(ux);
    const int iy = floor_to_int(uy);
    const float fx = exact::sub(ux, static_cast<float>(ix));
    const float fy = exact::sub(uy, static_cast<float>(iy));
    const int x0 = clampi(ix, 0, width - 1), x1 = clampi(ix + 1, 0, width - 1);
    const int y0 = clampi(iy, 0, height - 1), y1 = clampi(iy + 1, 0, height - 1);
    float a[4], b[4], c[4], d[4];
    fetch(x0, y0, a);
    fetch(x1, y0, b);
    fetch(x0, y1, c);
    fetch(x1, y1, d);
    const float gx = exact::sub(1.0f, fx), gy = exact::sub(1.0f, fy);
    for (int k = 0; k < channels; ++k) {
        const float top = exact::add(exact::mul(gx, a[k]), exact::mul(fx, b[k]));
        const float bottom = exact::add(exact::mul(gx, c[k]), exact::mul(fx, d[k]));
        out[k] = exact::add(exact::mul(gy, top), exact::mul(fy, bottom));
    }
}

// ---- the output pass's reconstruction kernel -------------------------------------------------

// sin and cos of an angle by a fixed sequence: Cody-Waite reduction by pi/2, Taylor polynomials on
// [-pi/4, pi/4] (errors < 3e-8), quadrant swap. The angle is a raw network output, so it is first
// clamped to +-1024 rad (far beyond anything trained) and NaN is read as 0.
SWINUP_HD void kernel_sincos(float theta, float* sin_out, float* cos_out) {
    if (!(theta == theta)) theta = 0.0f;
    theta = clampf(theta, -1024.0f, 1024.0f);
    const float k = exact::rint(exact::mul(theta, 0.636619772367581343f));  // theta * 2/pi
    constexpr float kHalfPiHi = 1.57079625129699707031f;  // pi/2 to 24 bits, its tail below
    constexpr float kHalfPiLo = 7.54978995489188216e-8f;
    float f = exact::fma(-k, kHalfPiHi, theta);
    f = exact::fma(-k, kHalfPiLo, f);
    const float f2 = exact::mul(f, f);
    float s = 2.75573192239858906e-6f;  // 1/9!
    s = exact::fma(s, f2, -1.98412698412698413e-4f);
    s = exact::fma(s, f2, 8.33333333333333322e-3f);
    s = exact::fma(s, f2, -1.66666666666666657e-1f);
    s = exact::fma(exact::mul(s, f2), f, f);
    float c = 2.48015873015873016e-5f;  // 1/8!
    c = exact::fma(c, f2, -1.38888888888888894e-3f);
    c = exact::fma(c, f2, 4.16666666666666644e-2f);
    c = exact::fma(c, f2, -0.5f);
    c = exact::fma(c, f2, 1.0f);
    const int quadrant = static_cast<int>(k) & 3;
    switch (quadrant) {
        case 0: *sin_out = s; *cos_out = c; break;
        case 1: *sin_out = c; *cos_out = -s; break;
        case 2: *sin_out = -s; *cos_out = -c; break;
        default: *sin_out = -c; *cos_out = s; break;
    }
}

// sigma of the kernel from a raw head output: exp2(clamp(h, -4, 2)) render pixels.
SWINUP_HD float kernel_sigma(float h) { return exact::exp2(clampf(h == h ? h : 0.0f, -4.0f, 2.0f)); }

// Weight of a sample at offset (dx, dy) render pixels from the output position: the offset is
// rotated by -theta into (u, v), w = exp2(-0.5 * log2e * ((u/sigma_major)^2 + (v/sigma_minor)^2)).
SWINUP_HD float kernel_weight(float dx, float dy, float sin_theta, float cos_theta,
                              float sigma_major, float sigma_minor) {
    const float u = exact::add(exact::mul(cos_theta, dx), exact::mul(sin_theta, dy));
    const float v = exact::sub(exact::mul(cos_theta, dy), exact::mul(sin_theta, dx));
    const float a = exact::div(u, sigma_major);
    const float b = exact::div(v, sigma_minor);
    const float e = exact::add(exact::mul(a, a), exact::mul(b, b));
    return exact::exp2(exact::mul(exact::mul(-0.5f, exact::kLog2e), e));
}

}  // namespace swinup::px
