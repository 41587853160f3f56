#include "cuda/frame/post_network.cuh"

#include <stdexcept>
#include <type_traits>

#include "frame/output_encoding.h"
#include "frame/output_pixel.h"
#include "frame/pixel_ops.h"
#include "frame/recurrent_features.h"
#include "model/model_spec.h"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/device/device_math.cuh"
#include "swinup/swinup.h"

namespace swinup::cuda {
namespace {

// ---- recurrent state ------------------------------------------------------------------------
// The next frame's recurrent features of render pixel (x, y) from its head outputs 0..3
// (frame/recurrent_features.h, exact formula in both modes). Written by recurrent_kernel (exact
// mode) or by the fast output pre-pass, which reads the same 32-byte sector of the head row.
static_assert(kRecurrentFeatures == 4 && kHeadSigmaMajor == 4, "head outputs 0..3 are the recurrent features");
__device__ __forceinline__ void store_recurrent(const FrameParams& p, int x, int y, float4 h) {
    const float v[4] = {h.x, h.y, h.z, h.w};
    uint16_t r[4];
    recurrent_features(v, r);
    *reinterpret_cast<uint2*>(p.recurrent_out + (static_cast<size_t>(y) * p.width + x) * kRecurrentFeatures) =
        make_uint2(r[0] | (static_cast<uint32_t>(r[1]) << 16), r[2] | (static_cast<uint32_t>(r[3]) << 16));
}

// ---- output pass ----------------------------------------------------------------------------
// Fast mode's f16 of the history and the RGBA16F output: the hardware's cvt.rn.f16.f32 of
// px::half_range(), the same bits as px::encode_half_colour's software rounding (to nearest even,
// subnormals included).
struct HardwareHalfColour {
    __device__ __forceinline__ uint16_t operator()(float v) const { return f32_to_f16(px::half_range(v)); }
};

// The display pixel's linear colours: `kept` leaves as the next history (f16, finite:
// history_value), `out` in the output format, in the input's units (frame/output_encoding.h), as
// cpu/output_pass.cpp. They differ only under a reactive mask (output_pixel.h). Fast mode converts to f16 by HardwareHalfColour, and scales by
// pre_exposure / exposure once instead of a division per channel (output_units' two roundings).
template <bool kFast>
__device__ __forceinline__ void store_output(const FrameParams& p, const FramePlanes& planes, int x, int y,
                                             const float out[3], const float kept[3]) {
    using EncodeHalf = std::conditional_t<kFast, HardwareHalfColour, EncodeHalfColour>;
    const size_t pixel = static_cast<size_t>(y) * p.display_width + x;
    if (planes.linear_out) {
        for (int c = 0; c < 3; ++c) planes.linear_out[pixel * 3 + c] = out[c];
    }
    uint16_t hist[3];
    for (int c = 0; c < 3; ++c) hist[c] = EncodeHalf{}(kept[c]);
    *reinterpret_cast<uint2*>(p.history_out + pixel * 4) =
        make_uint2(static_cast<uint32_t>(hist[0]) | (static_cast<uint32_t>(hist[1]) << 16), hist[2]);
    const float e = *planes.exposure;
    float v[3];
    if (kFast) {
        const float units = exact::div(p.pre_exposure, e);
        for (int c = 0; c < 3; ++c) v[c] = out[c] * units;
    } else {
        for (int c = 0; c < 3; ++c) v[c] = output_units(out[c], e, p.pre_exposure);
    }
    const swinup_format format = static_cast<swinup_format>(p.output_format);
    if (p.output_surface != 0) {  // an imported image: the same pixel's words, stored through the surface
        uint32_t words[2];
        write_output_pixel(format, v, reinterpret_cast<uint8_t*>(words), 0, EncodeHalf{});
        if (format == SWINUP_FORMAT_RGBA16F) {
            surf2Dwrite(make_uint2(words[0], words[1]), p.output_surface, x * 8, y);
        } else {
            surf2Dwrite(words[0], p.output_surface, x * 4, y);
        }
        return;
    }
    uint8_t* row = static_cast<uint8_t*>(p.output) + static_cast<size_t>(y) * p.output_pitch;
    write_output_pixel(format, v, row, x, EncodeHalf{});
}

// Exact mode: output_pixel_with(), the CPU's definition, per display pixel. kTable: n's kernel and
// history weight are read from the table output_exact_render_pixels_kernel filled
// (KernelFromTable, what the CPU's output pass does: OutputKernels::exact_table); else evaluated
// from the head per display pixel (KernelFromHead, output_pixel()). The same values, so the same
// bits (test_cuda_output compares the two byte for byte, and both with the CPU).
//
// kMasks: the frame has masks (FrameParams::has_masks; the frame graphs are kept per masks'
// presence). Each pass is compiled twice, so that a frame without masks runs the code of a build
// without them: no test of an absent mask per pixel, and the history store writes the displayed
// colour's registers.
template <bool kMasks, bool kTable>
__global__ void output_kernel(const FrameParams* pp, FramePlanes planes) {
    const FrameParams& p = *pp;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= p.display_width) return;
    OutputCurrent cur;
    static_cast<FrameGeometry&>(cur) = p;
    cur.tc = planes.tc;
    cur.motion = planes.dilated;
    cur.head = planes.head;
    cur.head_stride = p.padded_width;
    cur.still_history_shift = p.still_history_shift;
    cur.masks = kMasks ? planes.masks : nullptr;
    OutputPrevious prev;
    prev.valid = p.history_valid != 0;
    prev.history = p.history_in;
    float out[3], kept[3];
    if (kTable) {
        output_pixel_with(cur, prev, x, y, KernelFromTable{planes.out_pixel_kernel, p.width}, out, kept);
    } else {
        output_pixel(cur, prev, x, y, out, kept);
    }
    store_output<false>(p, planes, x, y, out, kept);
}

// Exact mode, once per render pixel (OutputKernels::exact_table): its kernel and history weight
// (pixel_kernel(), the functions KernelFromHead evaluates per display pixel: two exp2, the sincos
// and the sigmoid, which at 3x each of the 9 display pixels whose nearest pixel it is evaluated
// again), and the recurrent state (store_recurrent, as fast mode's pre-pass: no recurrent_kernel).
template <bool kMasks>
__global__ void output_exact_render_pixels_kernel(const FrameParams* pp, FramePlanes planes) {
    const FrameParams& p = *pp;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= p.width) return;
    const size_t i = static_cast<size_t>(y) * p.width + x;
    const float* head = planes.head + (static_cast<size_t>(y) * p.padded_width + x) * kHeadOutputs;
    if (p.recurrent_out) store_recurrent(p, x, y, *reinterpret_cast<const float4*>(head));
    planes.out_pixel_kernel[i] =
        pixel_kernel(head, planes.dilated + i * 2, p.still_history_shift,
                     mask_at(kMasks ? planes.masks : nullptr, static_cast<int64_t>(i), kTransparencyMask));
}

// Fast mode, once per render pixel: what the display pixels read of it (at 3x, the 9 display pixels
// whose nearest pixel it is read its kernel and alpha, and 81 read its colour as a tap), with the
// exact mode's functions: sigma, angle, alpha and the history offset are the exact mode's values.
// The reciprocal sigmas carry sqrt(log2e / 2), so that a tap's weight is ex2(-(u'^2 + v'^2)).
// It also writes the recurrent state (store_recurrent) where FrameParams names a buffer for it,
// so that fast mode needs no recurrent_kernel pass over the head.
constexpr float kSqrtHalfLog2e = 0.849321800288019f;  // sqrt(0.5 * log2(e))
static_assert(kHeadSigmaMinor == kHeadSigmaMajor + 1 && kHeadAngle == kHeadSigmaMajor + 2 &&
                  kHeadAlpha == kHeadSigmaMajor + 3 && kHeadSigmaMajor % 4 == 0,
              "the output pass reads head outputs 4..7 as one float4");

__device__ __forceinline__ OutputAxis output_axis(int o, float scale, int size, float jitter) {
    OutputAxis a;
    a.c = output_position(o, scale);
    a.n = nearest_render_pixel(a.c, size);
    for (int k = 0; k < 3; ++k) {
        a.q[k] = px::clampi(a.n - 1 + k, 0, size - 1);
        a.d[k] = exact::sub(render_sample_position(a.q[k], jitter), a.c);
    }
    return a;
}

template <bool kMasks>
__global__ void output_render_pixels_kernel(const FrameParams* pp, FramePlanes planes) {
    const FrameParams& p = *pp;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= p.width) return;
    // The display axes (OutputAxis), spread over the render pixels: entry e is a column for
    // e < display_width, else row e - display_width. A grid stride, since a tiny render image can
    // have fewer pixels than the display has columns and rows.
    const int render_pixels = p.width * p.height;
    for (int e = y * p.width + x; e < p.display_width + p.display_height; e += render_pixels) {
        planes.out_axes[e] = e < p.display_width
                                 ? output_axis(e, p.scale_x, p.width, p.jitter_x)
                                 : output_axis(e - p.display_width, p.scale_y, p.height, p.jitter_y);
    }
    const size_t i = static_cast<size_t>(y) * p.width + x;
    const float* head = planes.head + (static_cast<size_t>(y) * p.padded_width + x) * kHeadOutputs;
    if (p.recurrent_out) store_recurrent(p, x, y, *reinterpret_cast<const float4*>(head));
    const float4 h = *reinterpret_cast<const float4*>(head + kHeadSigmaMajor);
    float sin_theta, cos_theta;
    px::kernel_sincos(h.z, &sin_theta, &cos_theta);
    planes.out_kernel[i] = make_float4(exact::div(kSqrtHalfLog2e, px::kernel_sigma(h.x)),
                                       exact::div(kSqrtHalfLog2e, px::kernel_sigma(h.y)), sin_theta, cos_theta);
    const float mv_x = planes.dilated[i * 2 + 0], mv_y = planes.dilated[i * 2 + 1];
    planes.out_color[i] = make_float4(planes.tc[i * 3 + 0], planes.tc[i * 3 + 1], planes.tc[i * 3 + 2],
                                      history_weight(h.w, mv_x, mv_y, p.still_history_shift,
                                                     mask_at(kMasks ? planes.masks : nullptr,
                                                             static_cast<int64_t>(i), kTransparencyMask)));
    planes.out_motion[i] = make_float2(exact::mul(mv_x, p.scale_x), exact::mul(mv_y, p.scale_y));
}

// Fast mode's history sample: the exact mode's Lanczos-3 (px::lanczos3_sample: the same taps,
// order and central-tap clamp), with the weights' polynomials and each tap's product and sum as
// FMAs instead of two roundings. The difference to exact is a few f32 ulps, far inside the pass's
// 2^-13 bound in t-space (tests/cuda/test_cuda_output.cpp).
//
// The pass is bound by instruction issue (ncu, docs/performance.md: 78% of issue slots, about
// 1,000 instructions a display pixel, 36 taps of them), so the taps' addressing is what this
// saves: where all 36 taps are inside the image (every pixel but a 3-pixel border), they are read
// from one row pointer per row at constant offsets, with no edge clamps; only the border takes
// the clamped columns and rows. Both read the same values, so they give the same bits. The
// history is never NaN (every backend stores finite f16), so the central range can use the
// min/max instructions.
template <class TapAt>
__device__ __forceinline__ void lanczos3_fast_taps(const TapAt& tap_at, const float wx[6], const float wy[6],
                                                   float out[3]) {
    float sum[3] = {0.0f, 0.0f, 0.0f};
    float lo[3] = {3.4e38f, 3.4e38f, 3.4e38f};
    float hi[3] = {-3.4e38f, -3.4e38f, -3.4e38f};
#pragma unroll
    for (int j = 0; j < 6; ++j) {
        float r[3] = {0.0f, 0.0f, 0.0f};
#pragma unroll
        for (int i = 0; i < 6; ++i) {
            const uint2 v = tap_at(i, j);  // f16 R, G, B, unused: one 8-byte load
            const float tap[3] = {f16_lo(v.x), f16_hi(v.x), f16_lo(v.y)};
#pragma unroll
            for (int c = 0; c < 3; ++c) {
                r[c] = __fmaf_rn(wx[i], tap[c], r[c]);
                if ((i == 2 || i == 3) && (j == 2 || j == 3)) {
                    lo[c] = fminf(lo[c], tap[c]);
                    hi[c] = fmaxf(hi[c], tap[c]);
                }
            }
        }
#pragma unroll
        for (int c = 0; c < 3; ++c) sum[c] = __fmaf_rn(wy[j], r[c], sum[c]);
    }
#pragma unroll
    for (int c = 0; c < 3; ++c) out[c] = fminf(fmaxf(sum[c], lo[c]), hi[c]);
}

__device__ __forceinline__ void lanczos3_fast(const uint16_t* history, int width, int height, float hx,
                                              float hy, float out[3]) {
    const float ux = hx - 0.5f, uy = hy - 0.5f;
    const int ix = px::floor_to_int(ux), iy = px::floor_to_int(uy);
    float wx[6], wy[6];
    px::lanczos3_weights<true>(ux - static_cast<float>(ix), wx);
    px::lanczos3_weights<true>(uy - static_cast<float>(iy), wy);
    const uint2* pixels = reinterpret_cast<const uint2*>(history);
    if (ix >= 2 && ix + 3 < width && iy >= 2 && iy + 3 < height) {
        const uint2* first = pixels + static_cast<size_t>(iy - 2) * width + (ix - 2);  // tap (-2, -2)
        lanczos3_fast_taps([&](int i, int j) { return __ldg(first + static_cast<size_t>(j) * width + i); }, wx,
                           wy, out);
    } else {
        int xs[6], ys[6];
#pragma unroll
        for (int k = 0; k < 6; ++k) {
            xs[k] = px::clampi(ix - 2 + k, 0, width - 1);
            ys[k] = px::clampi(iy - 2 + k, 0, height - 1);
        }
        lanczos3_fast_taps([&](int i, int j) { return __ldg(pixels + static_cast<size_t>(ys[j]) * width + xs[i]); },
                           wx, wy, out);
    }
}

// t(x) = log2(1 + x) and its inverse on the MUFU units (lg2.approx, ex2.approx).
__device__ __forceinline__ float fast_t(float x) { return fast_log2(1.0f + (x > 0.0f ? x : 0.0f)); }
__device__ __forceinline__ float fast_t_inverse(float y) { return fast_exp2(y) - 1.0f; }

// What a fast display pixel takes from its nearest render pixel n and the 3x3 taps around it: the
// current colour (the normalised kernel sum, or n's own colour where the weights vanish), the
// weight sum, n's alpha and history offset. output_fast_kernel and the tuple kernel both compute it
// with these two functions, so a pixel's current colour is one definition's in both.
struct FastNearest {
    float4 kernel;   // out_kernel[n]
    float4 taps[9];  // out_color of the taps, row by row
    float4 centre;   // out_color[n]
    float2 offset;   // out_motion[n]
};

__device__ __forceinline__ void load_fast_nearest(const FramePlanes& planes, int w, const OutputAxis& column,
                                                  const OutputAxis& row, FastNearest* nearest) {
    const size_t n = static_cast<size_t>(row.n) * w + column.n;
    nearest->kernel = planes.out_kernel[n];
#pragma unroll
    for (int j = 0; j < 3; ++j) {
        const float4* taps = planes.out_color + static_cast<size_t>(row.q[j]) * w;
#pragma unroll
        for (int i = 0; i < 3; ++i) nearest->taps[j * 3 + i] = taps[column.q[i]];
    }
    nearest->centre = planes.out_color[n];
    nearest->offset = planes.out_motion[n];
}

__device__ __forceinline__ void fast_current_colour(const FastNearest& nearest, const float dx[3], const float dy[3],
                                                    float current[3], float* weight_sum_out) {
    const float4 kernel = nearest.kernel;
    const float cos_x = kernel.w * kernel.x, sin_x = kernel.z * kernel.x;
    const float cos_y = kernel.w * kernel.y, sin_y = kernel.z * kernel.y;
    float ux[3], uy[3], vx[3], vy[3];
#pragma unroll
    for (int k = 0; k < 3; ++k) {
        ux[k] = cos_x * dx[k];
        uy[k] = sin_x * dy[k];
        vx[k] = sin_y * dx[k];
        vy[k] = cos_y * dy[k];
    }
    float sum[3] = {0.0f, 0.0f, 0.0f};
    float weight_sum = 0.0f;
#pragma unroll
    for (int j = 0; j < 3; ++j) {
#pragma unroll
        for (int i = 0; i < 3; ++i) {
            const float u = ux[i] + uy[j];
            const float v = vy[j] - vx[i];
            const float weight = fast_exp2(-(u * u + v * v));
            const float4 t = nearest.taps[j * 3 + i];
            sum[0] += weight * t.x;
            sum[1] += weight * t.y;
            sum[2] += weight * t.z;
            weight_sum += weight;
        }
    }
    const float4 centre = nearest.centre;
    current[0] = centre.x;
    current[1] = centre.y;
    current[2] = centre.z;
    if (!(weight_sum < 1e-20f)) {
        const float inv = fast_rcp(weight_sum);
        for (int c = 0; c < 3; ++c) current[c] = sum[c] * inv;
    }
    *weight_sum_out = weight_sum;
}

// Fast mode per display pixel: the exact mode's position, nearest pixel n, sample offsets (the
// pre-pass's OutputAxis tables, made by the same shared functions) and history position; the
// history's Lanczos-3 taps summed by FMAs (lanczos3_fast); the tap weights from n's
// precomputed kernel by ex2.approx, the normalisation by rcp.approx, t and t^-1 approximated.
template <bool kMasks>
__global__ void output_fast_kernel(const FrameParams* pp, FramePlanes planes) {
    const FrameParams& p = *pp;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= p.display_width) return;
    const int w = p.width;
    const OutputAxis column = planes.out_axes[x];
    const OutputAxis row = planes.out_axes[p.display_width + y];
    const float* dx = column.d;  // sample position - output position, per column and per row of taps
    const float* dy = row.d;
    FastNearest nearest;
    load_fast_nearest(planes, w, column, row, &nearest);
    float current[3], weight_sum;
    fast_current_colour(nearest, dx, dy, current, &weight_sum);
    const float4 centre = nearest.centre;  // n's t(colour) and alpha
    const size_t n = static_cast<size_t>(row.n) * w + column.n;

    const float2 offset = nearest.offset;
    const float hx = exact::add(static_cast<float>(x) + 0.5f, offset.x);
    const float hy = exact::add(static_cast<float>(y) + 0.5f, offset.y);
    const bool history_valid =
        p.history_valid != 0 && px::on_screen(hx, p.display_width) && px::on_screen(hy, p.display_height);
    float out[3], kept[3];  // the displayed colour, the colour kept as history
    if (history_valid) {
        float history[3];
        lanczos3_fast(p.history_in, p.display_width, p.display_height, hx, hy, history);
        // The fast weight sum's share; n's reactive mask raises it for the display and lowers it
        // for the history (output_pixel.h reactive_share, reactive_history_share).
        const float share = current_share(centre.w, weight_sum);
        const float reactive =
            mask_at(kMasks ? planes.masks : nullptr, static_cast<int64_t>(n), kReactiveMask);
        const float share_out = reactive_share(share, reactive);
        const float share_kept = reactive_history_share(share, reactive);
        for (int c = 0; c < 3; ++c) {
            const float th = fast_t(history[c]);
            const float d = current[c] - th;
            out[c] = fast_t_inverse(fmaf(share_out, d, th));
            kept[c] = reactive != 0.0f ? fast_t_inverse(fmaf(share_kept, d, th)) : out[c];
        }
    } else {
        for (int c = 0; c < 3; ++c) kept[c] = out[c] = fast_t_inverse(current[c]);
    }
    store_output<true>(p, planes, x, y, out, kept);
}

// ---- fast mode, a thread per 2 or 3 display pixels (OutputKernels::fast_tuples) --------------
// The pass is bound by instruction issue on L1 hits (docs/performance.md), and neighbouring
// display pixels read much the same: their nearest render pixel n is the same one for s display
// columns at scale s, and where their history positions are a whole display pixel apart (the same
// n: the same motion) their 6x6 Lanczos-3 tap windows overlap in all but one column. So one thread
// takes kPixels horizontally adjacent pixels and reads what they share once: n's kernel, colour
// taps, centre and motion while n stays the same, and the history taps of one row of 5 + kPixels
// columns per tap row. Each pixel's own arithmetic (its weights from its own offsets and history
// position, the same sums in the same order as output_fast_kernel's) is unchanged, so every pixel
// gets the bits output_fast_kernel gives it (test_cuda_output compares them byte for byte).

// One display pixel's state between its current colour and its blend.
struct FastPixel {
    float current[3];
    float weight_sum, alpha;
    size_t n;
    float hx, hy;       // history position (display pixels)
    bool valid;         // history_valid of output_fast_kernel
    int ix, iy;         // lanczos3_fast's first tap - (-2, -2)... its floor(h - 0.5)
    float wx[6], wy[6]; // lanczos3_fast's weights
    float history[3];
};

// lanczos3_fast's tap weights and window along one axis of history position h.
__device__ __forceinline__ void fast_history_axis(float h, int* i, float w[6]) {
    const float u = h - 0.5f;
    *i = px::floor_to_int(u);
    px::lanczos3_weights<true>(u - static_cast<float>(*i), w);
}

// lanczos3_fast_taps for kPixels pixels whose windows are one column apart (pixel k's first tap
// column is ix0 - 2 + k, all in tap row iy - 2 ..) and inside the image: each row's 5 + kPixels
// taps are loaded and converted once, and each pixel sums its own 6 in lanczos3_fast_taps' order.
template <int kPixels>
__device__ __forceinline__ void lanczos3_fast_shared(const uint16_t* history, int width, FastPixel (&pixels)[kPixels]) {
    constexpr int kColumns = 5 + kPixels;
    const uint2* first = reinterpret_cast<const uint2*>(history) + static_cast<size_t>(pixels[0].iy - 2) * width +
                         (pixels[0].ix - 2);  // pixel 0's tap (-2, -2)
    float sum[kPixels][3], lo[kPixels][3], hi[kPixels][3];
#pragma unroll
    for (int k = 0; k < kPixels; ++k)
#pragma unroll
        for (int c = 0; c < 3; ++c) {
            sum[k][c] = 0.0f;
            lo[k][c] = 3.4e38f;
            hi[k][c] = -3.4e38f;
        }
#pragma unroll
    for (int j = 0; j < 6; ++j) {
        float tap[kColumns][3];
#pragma unroll
        for (int i = 0; i < kColumns; ++i) {
            const uint2 v = __ldg(first + static_cast<size_t>(j) * width + i);
            tap[i][0] = f16_lo(v.x);
            tap[i][1] = f16_hi(v.x);
            tap[i][2] = f16_lo(v.y);
        }
#pragma unroll
        for (int k = 0; k < kPixels; ++k) {
            float r[3] = {0.0f, 0.0f, 0.0f};
#pragma unroll
            for (int i = 0; i < 6; ++i) {
#pragma unroll
                for (int c = 0; c < 3; ++c) {
                    r[c] = __fmaf_rn(pixels[k].wx[i], tap[i + k][c], r[c]);
                    if ((i == 2 || i == 3) && (j == 2 || j == 3)) {
                        lo[k][c] = fminf(lo[k][c], tap[i + k][c]);
                        hi[k][c] = fmaxf(hi[k][c], tap[i + k][c]);
                    }
                }
            }
#pragma unroll
            for (int c = 0; c < 3; ++c) sum[k][c] = __fmaf_rn(pixels[k].wy[j], r[c], sum[k][c]);
        }
    }
#pragma unroll
    for (int k = 0; k < kPixels; ++k)
#pragma unroll
        for (int c = 0; c < 3; ++c) pixels[k].history[c] = fminf(fmaxf(sum[k][c], lo[k][c]), hi[k][c]);
}

template <bool kMasks, int kPixels>
__global__ void output_fast_tuple_kernel(const FrameParams* pp, FramePlanes planes) {
    const FrameParams& p = *pp;
    const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * kPixels, y = blockIdx.y;
    // No return before the warp's vote below: every lane takes part in it.
    const int count = x0 < p.display_width ? min(kPixels, p.display_width - x0) : 0;
    const int w = p.width;
    const OutputAxis row = planes.out_axes[p.display_width + y];
    FastPixel pixels[kPixels];
    FastNearest nearest;
    int nearest_column = -1;  // the render column `nearest` was read for (the row is the thread's)
#pragma unroll
    for (int k = 0; k < kPixels; ++k) {
        if (k >= count) continue;
        const OutputAxis column = planes.out_axes[x0 + k];
        if (column.n != nearest_column) {
            load_fast_nearest(planes, w, column, row, &nearest);
            nearest_column = column.n;
        }
        FastPixel& px_ = pixels[k];
        fast_current_colour(nearest, column.d, row.d, px_.current, &px_.weight_sum);
        px_.alpha = nearest.centre.w;
        px_.n = static_cast<size_t>(row.n) * w + column.n;
        px_.hx = exact::add(static_cast<float>(x0 + k) + 0.5f, nearest.offset.x);
        px_.hy = exact::add(static_cast<float>(y) + 0.5f, nearest.offset.y);
        px_.valid = p.history_valid != 0 && px::on_screen(px_.hx, p.display_width) &&
                    px::on_screen(px_.hy, p.display_height);
        if (px_.valid) {
            fast_history_axis(px_.hx, &px_.ix, px_.wx);
            // The same n, so the same hy: the previous pixel's row weights are these (same bits).
            if (k > 0 && pixels[k - 1].valid && __float_as_uint(px_.hy) == __float_as_uint(pixels[k - 1].hy)) {
                px_.iy = pixels[k - 1].iy;
                for (int i = 0; i < 6; ++i) px_.wy[i] = pixels[k - 1].wy[i];
            } else {
                fast_history_axis(px_.hy, &px_.iy, px_.wy);
            }
        }
    }

    // The history: one window of 5 + kPixels columns where the pixels' windows line up inside the
    // image, else each pixel's own (lanczos3_fast, with the border's clamps). Decided per warp, so
    // that a warp never runs both paths; either gives the same bits.
    bool aligned = count == kPixels && pixels[0].valid;
#pragma unroll
    for (int k = 1; k < kPixels; ++k)
        aligned = aligned && pixels[k].valid && pixels[k].iy == pixels[0].iy && pixels[k].ix == pixels[0].ix + k;
    aligned = aligned && pixels[0].ix >= 2 && pixels[0].ix + kPixels + 2 < p.display_width && pixels[0].iy >= 2 &&
              pixels[0].iy + 3 < p.display_height;
    if (__all_sync(0xffffffffu, aligned || count == 0)) {
        if (count != 0) lanczos3_fast_shared<kPixels>(p.history_in, p.display_width, pixels);
    } else {
#pragma unroll
        for (int k = 0; k < kPixels; ++k)
            if (k < count && pixels[k].valid)
                lanczos3_fast(p.history_in, p.display_width, p.display_height, pixels[k].hx, pixels[k].hy,
                              pixels[k].history);
    }

#pragma unroll
    for (int k = 0; k < kPixels; ++k) {
        if (k >= count) continue;
        const FastPixel& px_ = pixels[k];
        float out[3], kept[3];  // the displayed colour, the colour kept as history
        if (px_.valid) {        // as output_fast_kernel
            const float share = current_share(px_.alpha, px_.weight_sum);
            const float reactive = mask_at(kMasks ? planes.masks : nullptr, static_cast<int64_t>(px_.n), kReactiveMask);
            const float share_out = reactive_share(share, reactive);
            const float share_kept = reactive_history_share(share, reactive);
            for (int c = 0; c < 3; ++c) {
                const float th = fast_t(px_.history[c]);
                const float d = px_.current[c] - th;
                out[c] = fast_t_inverse(fmaf(share_out, d, th));
                kept[c] = reactive != 0.0f ? fast_t_inverse(fmaf(share_kept, d, th)) : out[c];
            }
        } else {
            for (int c = 0; c < 3; ++c) kept[c] = out[c] = fast_t_inverse(px_.current[c]);
        }
        store_output<true>(p, planes, x0 + k, y, out, kept);
    }
}

// Pixels a thread of output_fast_tuple_kernel takes: 3 where the display columns fall on the
// render columns in threes (integer scales that are multiples of 3: 720p -> 4K), else 2 (2160p
// from 1080p's 2x falls in twos; other scales share what lines up and fall back elsewhere).
inline int fast_tuple_pixels(int width, int display_width) { return display_width % (3 * width) == 0 ? 3 : 2; }

__global__ void recurrent_kernel(const FrameParams* pp, const float* head) {
    const FrameParams& p = *pp;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= p.width) return;
    const float4 h = *reinterpret_cast<const float4*>(head + (static_cast<size_t>(y) * p.padded_width + x) * kHeadOutputs);
    store_recurrent(p, x, y, h);
}

}  // namespace

void launch_output(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                   swinup_precision precision, const OutputKernels& kernels, cudaStream_t stream) {
    const dim3 display = row_grid(host.display_width, host.display_height);
    if (precision == SWINUP_PRECISION_EXACT) {
        if (kernels.exact_table && !planes.out_pixel_kernel)
            throw std::invalid_argument("launch_output: the exact table needs the render pixel kernels' plane");
        const auto kernel = kernels.exact_table ? (host.has_masks ? output_kernel<true, true> : output_kernel<false, true>)
                                                : (host.has_masks ? output_kernel<true, false> : output_kernel<false, false>);
        kernel<<<display, kRowThreads, 0, stream>>>(params, planes);
        SWINUP_CUDA_CHECK_LAUNCH();
        return;
    }
    if (!planes.out_color || !planes.out_kernel || !planes.out_motion || !planes.out_axes)
        throw std::invalid_argument("launch_output: fast mode needs the per-render-pixel planes");
    if (kernels.fast_tuples) {
        const int pixels = fast_tuple_pixels(host.width, host.display_width);
        const auto kernel = pixels == 3 ? (host.has_masks ? output_fast_tuple_kernel<true, 3> : output_fast_tuple_kernel<false, 3>)
                                        : (host.has_masks ? output_fast_tuple_kernel<true, 2> : output_fast_tuple_kernel<false, 2>);
        kernel<<<row_grid((host.display_width + pixels - 1) / pixels, host.display_height), kRowThreads, 0, stream>>>(
            params, planes);
        SWINUP_CUDA_CHECK_LAUNCH();
        return;
    }
    (host.has_masks ? output_fast_kernel<true> : output_fast_kernel<false>)<<<display, kRowThreads, 0, stream>>>(
        params, planes);
    SWINUP_CUDA_CHECK_LAUNCH();
}

void launch_output_prepass(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                           swinup_precision precision, const OutputKernels& kernels, cudaStream_t stream) {
    const dim3 render = row_grid(host.width, host.height);
    if (precision == SWINUP_PRECISION_EXACT) {
        if (!kernels.exact_table) return;  // the display kernel evaluates everything per display pixel
        if (!planes.out_pixel_kernel)
            throw std::invalid_argument("launch_output_prepass: the exact table needs the render pixel kernels' plane");
        (host.has_masks ? output_exact_render_pixels_kernel<true> : output_exact_render_pixels_kernel<false>)
            <<<render, kRowThreads, 0, stream>>>(params, planes);
        SWINUP_CUDA_CHECK_LAUNCH();
        return;
    }
    if (!planes.out_color || !planes.out_kernel || !planes.out_motion || !planes.out_axes)
        throw std::invalid_argument("launch_output_prepass: fast mode needs the per-render-pixel planes");
    (host.has_masks ? output_render_pixels_kernel<true> : output_render_pixels_kernel<false>)
        <<<render, kRowThreads, 0, stream>>>(params, planes);
    SWINUP_CUDA_CHECK_LAUNCH();
}

bool output_prepass_writes_recurrent(swinup_precision precision, const OutputKernels& kernels) {
    return precision != SWINUP_PRECISION_EXACT || kernels.exact_table;
}

void launch_recurrent(const FrameParams& host, const FrameParams* params, const FramePlanes& planes,
                      cudaStream_t stream) {
    recurrent_kernel<<<row_grid(host.width, host.height), kRowThreads, 0, stream>>>(params, planes.head);
    SWINUP_CUDA_CHECK_LAUNCH();
}

}  // namespace swinup::cuda
