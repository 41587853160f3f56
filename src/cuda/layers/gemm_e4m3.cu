#include "cuda/layers/gemm_e4m3.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "numeric/exact_math.h"
#include "cuda/device/cp_async.cuh"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/device/device_limits.cuh"
#include "cuda/device/device_math.cuh"
#include "cuda/device/dynamic_smem.cuh"
#include "cuda/device/mma.cuh"
#include "cuda/device/persistent_tile_loop.cuh"
#include "cuda/layers/rms_norm_row.cuh"

namespace swinup::cuda {
namespace {

// Shared-memory rows are padded by 16 bytes: with K % 32 == 0 the row stride is an odd number of
// 16-byte units, so the 8 rows of each ldmatrix phase hit 8 different bank quads (no conflicts).
constexpr int kRowPad = 16;

__device__ __forceinline__ const uint8_t* a_chunk(const GemmArgs& p, int m, int k) {
    if (p.gather == GemmGather::rows) return p.a + static_cast<size_t>(m) * p.lda + k;
    const int y = m / p.grid_width, x = m - y * p.grid_width;
    const int q = k / p.lda, c = k - q * p.lda;  // q = dy * 2 + dx
    const size_t fine = static_cast<size_t>(2 * y + (q >> 1)) * (2 * p.grid_width) + 2 * x + (q & 1);
    return p.a + fine * p.lda + c;
}

// The global operand an epilogue of 8 consecutive outputs of row m, columns n..n+7 reads besides
// y: the residual's 8 f16 (residual_add_f16) or the skip's 8 f16 / f32 (expand_add_f16), as raw
// words; nothing for the other epilogues. The kernel loads it before the K loop of the outputs'
// 16-column step (prefetch_row8), so the memory latency overlaps the mma chain instead of
// following it; each element is read and written by the one lane that owns it, so reading the
// in-place residual early sees the same value.
struct Row8Operand {
    uint4 lo = make_uint4(0, 0, 0, 0);  // f16: the 8 values; f32 skip: values 0..3
    uint4 hi = make_uint4(0, 0, 0, 0);  // f32 skip: values 4..7
};

// Fine-grid element index of output column n (n % 8 == 0) of coarse row m (expand_add_f16).
__device__ __forceinline__ size_t expand_index(const GemmArgs& p, int m, int n) {
    const int cf = p.n / 4;  // fine channels C' (% 8 == 0, so the 8 columns share q)
    const int q = n / cf, c = n - q * cf;
    const int y0 = m / p.grid_width, x0 = m - y0 * p.grid_width;
    const size_t fine = static_cast<size_t>(2 * y0 + (q >> 1)) * (2 * p.grid_width) + 2 * x0 + (q & 1);
    return fine * cf + c;
}

__device__ __forceinline__ Row8Operand prefetch_row8(const GemmArgs& p, int m, int n) {
    Row8Operand o;
    if (p.epilogue == GemmEpilogue::residual_add_f16) {
        o.lo = *reinterpret_cast<const uint4*>(static_cast<const uint16_t*>(p.out) + static_cast<size_t>(m) * p.n + n);
    } else if (p.epilogue == GemmEpilogue::add_f32_store_f16 || p.epilogue == GemmEpilogue::add_f32_relu_e4m3) {
        const uint4* k = reinterpret_cast<const uint4*>(static_cast<const float*>(p.skip) + static_cast<size_t>(m) * p.n + n);
        o.lo = k[0];
        o.hi = k[1];
    } else if (p.epilogue == GemmEpilogue::expand_add_f16) {
        const size_t i = expand_index(p, m, n);
        if (p.skip_f32) {
            const uint4* k = reinterpret_cast<const uint4*>(static_cast<const float*>(p.skip) + i);
            o.lo = k[0];
            o.hi = k[1];
        } else {
            o.lo = *reinterpret_cast<const uint4*>(static_cast<const uint16_t*>(p.skip) + i);
        }
    }
    return o;
}

// The epilogue of 8 consecutive outputs y[0..8) of row m, columns n..n+7 (n % 8 == 0), each
// element through the same operations as ever (f16 / e4m3 pairs are packed (n, n + 1), (n + 2,
// n + 3), ...: each element is rounded on its own, so the packing decides no value); the global
// accesses are one 16-byte (f16), two 16-byte (f32) or one 8-byte (e4m3) word per operand, the
// residual / skip words `operand` prefetched by prefetch_row8.
__device__ __forceinline__ void store_row8(const GemmArgs& p, int m, int n, const float (&y)[8],
                                           const Row8Operand& operand) {
    const size_t at = static_cast<size_t>(m) * p.n + n;
    switch (p.epilogue) {
        case GemmEpilogue::store_f16:
            *reinterpret_cast<uint4*>(static_cast<uint16_t*>(p.out) + at) =
                make_uint4(f16x2(y[0], y[1]), f16x2(y[2], y[3]), f16x2(y[4], y[5]), f16x2(y[6], y[7]));
            break;
        case GemmEpilogue::store_f32: {
            float4* o = reinterpret_cast<float4*>(static_cast<float*>(p.out) + at);
            o[0] = make_float4(y[0], y[1], y[2], y[3]);
            o[1] = make_float4(y[4], y[5], y[6], y[7]);
            break;
        }
        case GemmEpilogue::relu_e4m3: {
            float a[8];
#pragma unroll
            for (int j = 0; j < 8; ++j) a[j] = relu(y[j]);
            uint32_t w[2];
#pragma unroll
            for (int j = 0; j < 2; ++j)
                w[j] = static_cast<uint32_t>(e4m3x2(a[4 * j], a[4 * j + 1])) |
                       (static_cast<uint32_t>(e4m3x2(a[4 * j + 2], a[4 * j + 3])) << 16);
            *reinterpret_cast<uint2*>(static_cast<uint8_t*>(p.out) + at) = make_uint2(w[0], w[1]);
            break;
        }
        case GemmEpilogue::gelu_e4m3: {
            uint32_t w[2];
#pragma unroll
            for (int j = 0; j < 2; ++j)
                w[j] = static_cast<uint32_t>(gelu_e4m3x2(y[4 * j], y[4 * j + 1], p.precision)) |
                       (static_cast<uint32_t>(gelu_e4m3x2(y[4 * j + 2], y[4 * j + 3], p.precision)) << 16);
            *reinterpret_cast<uint2*>(static_cast<uint8_t*>(p.out) + at) = make_uint2(w[0], w[1]);
            break;
        }
        case GemmEpilogue::residual_add_f16: {
            const uint32_t o[4] = {operand.lo.x, operand.lo.y, operand.lo.z, operand.lo.w};
            uint32_t w[4];
#pragma unroll
            for (int j = 0; j < 4; ++j)
                w[j] = f16x2(exact::add(f16_lo(o[j]), y[2 * j]), exact::add(f16_hi(o[j]), y[2 * j + 1]));
            *reinterpret_cast<uint4*>(static_cast<uint16_t*>(p.out) + at) = make_uint4(w[0], w[1], w[2], w[3]);
            break;
        }
        case GemmEpilogue::add_f32_store_f16:
        case GemmEpilogue::add_f32_relu_e4m3: {
            // y + the addend in f32 (the CPU's `out + added`), then the store of store_f16 / relu_e4m3.
            const uint32_t kw[8] = {operand.lo.x, operand.lo.y, operand.lo.z, operand.lo.w,
                                    operand.hi.x, operand.hi.y, operand.hi.z, operand.hi.w};
            float a[8];
#pragma unroll
            for (int j = 0; j < 8; ++j) a[j] = exact::add(y[j], __uint_as_float(kw[j]));
            if (p.epilogue == GemmEpilogue::add_f32_store_f16) {
                *reinterpret_cast<uint4*>(static_cast<uint16_t*>(p.out) + at) =
                    make_uint4(f16x2(a[0], a[1]), f16x2(a[2], a[3]), f16x2(a[4], a[5]), f16x2(a[6], a[7]));
            } else {
#pragma unroll
                for (int j = 0; j < 8; ++j) a[j] = relu(a[j]);
                uint32_t w[2];
#pragma unroll
                for (int j = 0; j < 2; ++j)
                    w[j] = static_cast<uint32_t>(e4m3x2(a[4 * j], a[4 * j + 1])) |
                           (static_cast<uint32_t>(e4m3x2(a[4 * j + 2], a[4 * j + 3])) << 16);
                *reinterpret_cast<uint2*>(static_cast<uint8_t*>(p.out) + at) = make_uint2(w[0], w[1]);
            }
            break;
        }
        case GemmEpilogue::expand_add_f16: {
            const size_t i = expand_index(p, m, n);
            float s[8];
            if (p.skip_f32) {
                const uint32_t kw[8] = {operand.lo.x, operand.lo.y, operand.lo.z, operand.lo.w,
                                        operand.hi.x, operand.hi.y, operand.hi.z, operand.hi.w};
#pragma unroll
                for (int j = 0; j < 8; ++j) s[j] = __uint_as_float(kw[j]);
            } else {
                const uint32_t kw[4] = {operand.lo.x, operand.lo.y, operand.lo.z, operand.lo.w};
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    s[2 * j] = f16_lo(kw[j]);
                    s[2 * j + 1] = f16_hi(kw[j]);
                }
            }
            uint32_t w[4];
#pragma unroll
            for (int j = 0; j < 4; ++j)
                w[j] = f16x2(exact::add(y[2 * j], s[2 * j]), exact::add(y[2 * j + 1], s[2 * j + 1]));
            *reinterpret_cast<uint4*>(static_cast<uint16_t*>(p.out) + i) = make_uint4(w[0], w[1], w[2], w[3]);
            break;
        }
    }
}

// Epilogue staging, per warp: the f32 outputs y of one m16 tile and one 16-column step pass
// through shared memory, so that afterwards lane l owns row l % 16, columns 8 (l / 16) .. +7,
// and a warp's global access covers 16 rows x 32..64 contiguous bytes in one instruction (the
// fragment layout would store 4-byte pieces of 8 rows). The tile is 16 rows x 8 units of 8 bytes
// (one column pair, the fragment's d[0..1] / d[2..3]); unit u of row r lives at r * 8 + (u ^
// swizzle(r)). With swizzle(r) = ((r & 2) << 1) | ((r & 4) >> 1) (even: a 16-byte pair of units
// stays together) both the fragment's 8-byte writes (a half-warp: rows g..g+3, units 4 nt + t)
// and the row owners' 16-byte reads (a quarter-warp: rows 0..7 or 8..15, one unit pair each)
// touch 32 distinct banks.
constexpr int kStageUnits = 16 * 8;  // float2 units per warp
constexpr int kStageBytesPerWarp = kStageUnits * 8;
__device__ __forceinline__ int stage_unit(int row, int unit) {
    return row * 8 + (unit ^ (((row & 2) << 1) | ((row & 4) >> 1)));
}

// Issues the copies of A tile `tile` (kBlockM rows, zero-filled past M and past a_cols) into a_s.
template <int kThreads, int kBlockM>
__device__ __forceinline__ void load_a_tile(const GemmArgs& p, int tile, uint8_t* a_s, int stride, int chunks) {
    const int m0 = tile * kBlockM;
    for (int i = threadIdx.x; i < kBlockM * chunks; i += kThreads) {
        const int r = i / chunks, k = (i - r * chunks) * 16;
        const int m = m0 + r;
        const bool real = m < p.m && k < p.a_cols;
        cp_async_16(a_s + r * stride + k, real ? a_chunk(p, m, k) : p.a, real ? 16 : 0);
    }
}

// rms_norm gather: issues the copies of the f16 token rows of tile `tile` (zero-filled past M)
// into x_s (row stride x_stride bytes, an odd number of 16-byte units).
template <int kThreads, int kBlockM>
__device__ __forceinline__ void load_x_tile(const GemmArgs& p, int tile, uint8_t* x_s, int x_stride) {
    const int m0 = tile * kBlockM, chunks = p.lda / 16;
    for (int i = threadIdx.x; i < kBlockM * chunks; i += kThreads) {
        const int r = i / chunks, c = i - r * chunks;
        const int m = m0 + r;
        const bool real = m < p.m;
        cp_async_16(x_s + r * x_stride + c * 16, real ? p.a + static_cast<size_t>(m) * p.lda + c * 16 : p.a,
                    real ? 16 : 0);
    }
}

// rms_norm gather: the tile's A rows from its f16 rows, one thread per row, by the same pieces
// as rms_norm_e4m3_kernel (rms_norm_row.cuh): the channel-order sum, the inverse, the scaled
// e4m3 bytes. 16 channels (one 16-byte word of A) at a time; both shared strides are odd numbers
// of 16-byte units, so a quarter-warp's 8 rows hit 8 different bank quads.
template <int kBlockM>
__device__ __forceinline__ void normalise_tile(const GemmArgs& p, const uint8_t* x_s, int x_stride,
                                               const float* gain_s, uint8_t* a_s, int stride) {
    const int r = threadIdx.x;
    if (r >= kBlockM) return;
    const int c_out = p.a_cols;
    const uint8_t* xr = x_s + r * x_stride;
    const float inv = rms_inverse(rms_sum_of_squares(xr, c_out), c_out, p.precision);
    uint8_t* ar = a_s + r * stride;
    for (int c = 0; c < c_out; c += 16) {
        const uint2 lo = rms_scale8_e4m3(*reinterpret_cast<const uint4*>(xr + c * 2), inv, gain_s + c);
        const uint2 hi = rms_scale8_e4m3(*reinterpret_cast<const uint4*>(xr + c * 2 + 16), inv, gain_s + c + 8);
        *reinterpret_cast<uint4*>(ar + c) = make_uint4(lo.x, lo.y, hi.x, hi.y);
    }
}

// The copies of tile `tile` into `dst` (row stride `stride`): A rows, or kNorm the f16 rows.
template <int kThreads, int kBlockM, bool kNorm>
__device__ __forceinline__ void load_tile(const GemmArgs& p, int tile, uint8_t* dst, int stride, int chunks) {
    if constexpr (kNorm) load_x_tile<kThreads, kBlockM>(p, tile, dst, stride);
    else load_a_tile<kThreads, kBlockM>(p, tile, dst, stride, chunks);
}

// A CTA owns one slice of N (n_slice columns, blockIdx.x % slices): it keeps that slice of the
// weight matrix in shared memory and walks row tiles of A in a grid-stride loop (the CTA-wide
// persistent_tile_loop), the next tile's A copied (cp.async) while the current one is multiplied. Warp w owns rows [w * 16 * kMTiles,
// +16 * kMTiles) of the tile and sweeps its slice of N in steps of 16 (two n8 tiles per ldmatrix
// of W). Every output is still one accumulator over the K chunks in increasing order: the tiling
// decides only which CTA computes it. kNorm (the rms_norm gather): the cp.async double buffer
// holds the tiles' f16 rows instead, and each tile's e4m3 A rows are computed from them into one A
// buffer before it is multiplied (barriers before and after).
template <int kWarps, int kMTiles, bool kNorm, bool kPrefetch>
__global__ void __launch_bounds__(kWarps * 32) gemm_e4m3_kernel(const GemmArgs p, int n_slice) {
    constexpr int kThreads = kWarps * 32;
    constexpr int kBlockM = kWarps * kMTiles * 16;
    static_assert(kMTiles >= 1 && kWarps >= 1, "tile shape");
    static_assert(!kNorm || kBlockM <= kThreads, "one thread per row normalises the tile");
    extern __shared__ uint4 smem_words[];
    uint8_t* smem = reinterpret_cast<uint8_t*>(smem_words);
    const int stride = p.k_padded + kRowPad;                   // bytes per shared row
    const int chunks = p.k_padded / 16;                         // 16-byte chunks per row
    const int slices = p.n / n_slice;
    const int n_begin = static_cast<int>(blockIdx.x % slices) * n_slice;
    uint8_t* w_s = smem;                                        // (n_slice, K + pad)
    uint8_t* a_base = smem + static_cast<size_t>(n_slice) * stride;  // (BLK_M, K + pad) x 2 buffers (kNorm: 1)
    const int a_buf_bytes = kBlockM * stride;
    // kNorm: the f16 rows (BLK_M, 2K + 16) x 2 buffers, then the norm's K gains.
    uint8_t* x_base = a_base + (kNorm ? 1 : 2) * a_buf_bytes;
    const int x_stride = kNorm ? 2 * p.a_cols + 16 : 0;
    const int x_buf_bytes = kBlockM * x_stride;
    float* gain_s = reinterpret_cast<float*>(x_base + 2 * x_buf_bytes);
    // per column pair (n, n + 1) of the slice: (scale[n], scale[n + 1], bias[n], bias[n + 1])
    float4* sb_s = reinterpret_cast<float4*>(gain_s + (kNorm ? p.a_cols : 0));
    float2* stage = reinterpret_cast<float2*>(sb_s + n_slice / 2) + (threadIdx.x / 32) * kStageUnits;
    for (int i = threadIdx.x; i < n_slice / 2; i += kThreads) {
        const int n = n_begin + 2 * i;
        sb_s[i] = make_float4(p.scale[n], p.scale[n + 1], p.bias[n], p.bias[n + 1]);
    }
    if (kNorm) {
        for (int i = threadIdx.x; i < p.a_cols; i += kThreads) gain_s[i] = p.norm_gain[i];
    }

    for (int i = threadIdx.x; i < n_slice * chunks; i += kThreads) {
        const int r = i / chunks, c = i - r * chunks;
        cp_async_16(w_s + r * stride + c * 16, p.w + static_cast<size_t>(n_begin + r) * p.k_padded + c * 16, 16);
    }

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane >> 2, t = lane & 3;
    const int warp_row = warp * kMTiles * 16;
    // ldmatrix row addresses: A matrices (rows 0-7 | 8-15) x (k 0-15 | 16-31) -> a[0..3];
    // W matrices (n 0-7, k 0-15), (n 0-7, k 16-31), (n 8-15, k 0-15), (n 8-15, k 16-31) -> b.
    const int a_ld_row = (lane & 7) + ((lane >> 3) & 1) * 8, a_ld_col = (lane >> 4) * 16;
    const int w_ld_row = (lane & 7) + (lane >> 4) * 8, w_ld_col = ((lane >> 3) & 1) * 16;
    const int tiles = (p.m + kBlockM - 1) / kBlockM;
    const int tile_step = static_cast<int>(gridDim.x) / slices;

    // The W slice joins the first tile's commit group; the first iteration's barrier publishes both
    // (and, kNorm, the gains).
    auto load = [&](int tile, int buf) {
        load_tile<kThreads, kBlockM, kNorm>(p, tile, kNorm ? x_base + buf * x_buf_bytes : a_base + buf * a_buf_bytes,
                                            kNorm ? x_stride : stride, chunks);
    };
    auto compute = [&](int tile, int buf) {
        const uint8_t* a_s = a_base + (kNorm ? 0 : buf * a_buf_bytes);
        if constexpr (kNorm) {
            // The single A buffer was last read before the previous iteration's closing barrier.
            normalise_tile<kBlockM>(p, x_base + buf * x_buf_bytes, x_stride, gain_s, a_base, stride);
            __syncthreads();  // A rows complete before any warp multiplies
        }
        const int m0 = tile * kBlockM;
        if (m0 + warp_row < p.m) {  // else this warp's rows are all past the end
            // Stage -> global: lane owns row r of each m16 tile, columns 8h .. 8h + 7 of the step.
            const int r = lane & 15, h = lane >> 4;
            for (int n0 = n_begin; n0 < n_begin + n_slice; n0 += 16) {
                // kPrefetch (residual and expand epilogues): the residual / skip words are loaded
                // before the K loop; the other epilogues keep their registers free for occupancy.
                Row8Operand operand[kMTiles];
                if constexpr (kPrefetch) {
#pragma unroll
                    for (int mt = 0; mt < kMTiles; ++mt) {
                        const int m = m0 + warp_row + mt * 16 + r;
                        if (m < p.m) operand[mt] = prefetch_row8(p, m, n0 + 8 * h);
                    }
                }
                float acc[kMTiles][2][4];  // (m16 tile, n8 tile, fragment)
#pragma unroll
                for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
                    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
                        for (int j = 0; j < 4; ++j) acc[mt][nt][j] = 0.0f;
                for (int k0 = 0; k0 < p.k_padded; k0 += 32) {  // K chunks in increasing order
                    uint32_t b[4];                              // (n8 tile 0: b0 b1, n8 tile 1: b0 b1)
                    ldmatrix_x4(b, w_s + (n0 - n_begin + w_ld_row) * stride + k0 + w_ld_col);
#pragma unroll
                    for (int mt = 0; mt < kMTiles; ++mt) {
                        uint32_t a[4];  // (16 rows, 32 k)
                        ldmatrix_x4(a, a_s + (warp_row + mt * 16 + a_ld_row) * stride + k0 + a_ld_col);
                        mma_m16n8k32_e4m3(acc[mt][0], a, b[0], b[1]);
                        mma_m16n8k32_e4m3(acc[mt][1], a, b[2], b[3]);
                    }
                }
                float4 sb[2];  // per n8 tile: this thread's two columns' scale and bias
#pragma unroll
                for (int nt = 0; nt < 2; ++nt) sb[nt] = sb_s[(n0 - n_begin + nt * 8) / 2 + t];
#pragma unroll
                for (int mt = 0; mt < kMTiles; ++mt) {
                    // Fragment -> stage: y of rows g and g + 8, columns nt * 8 + 2t, +1.
#pragma unroll
                    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
                        for (int half = 0; half < 2; ++half)
                            stage[stage_unit(g + 8 * half, nt * 4 + t)] =
                                make_float2(scale_bias(acc[mt][nt][2 * half], sb[nt].x, sb[nt].z),
                                            scale_bias(acc[mt][nt][2 * half + 1], sb[nt].y, sb[nt].w));
                    __syncwarp();
                    // Stage -> global: this lane's row r, columns 8h .. 8h + 7 (units 4h .. 4h + 3).
                    const float4 lo = *reinterpret_cast<const float4*>(stage + stage_unit(r, 4 * h));
                    const float4 hi = *reinterpret_cast<const float4*>(stage + stage_unit(r, 4 * h + 2));
                    const float y[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
                    const int m = m0 + warp_row + mt * 16 + r;
                    if (m < p.m) {
                        if constexpr (!kPrefetch) operand[mt] = prefetch_row8(p, m, n0 + 8 * h);
                        store_row8(p, m, n0 + 8 * h, y, operand[mt]);
                    }
                    __syncwarp();  // the stage is rewritten by the next step
                }
            }
        }
    };
    persistent_tile_loop<2, TileWalker::cta>(static_cast<int>(blockIdx.x) / slices, tile_step, tiles, load, compute);
}

void require(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("gemm_e4m3: ") + what);
}

// Dynamic shared memory of a CTA: W slice, A buffers, (rms_norm: f16 row buffers and gains),
// scale/bias pairs, the warps' epilogue stages (the kernel's layout, in that order).
// The A tile buffers (two; rms_norm: one A buffer, two f16 row buffers and the gains).
size_t tile_buffer_bytes(const GemmArgs& p, int block_m) {
    const bool norm = p.gather == GemmGather::rms_norm;
    size_t bytes = static_cast<size_t>((norm ? 1 : 2) * block_m) * (p.k_padded + kRowPad);
    if (norm) bytes += static_cast<size_t>(2 * block_m) * (2 * p.a_cols + 16) + p.a_cols * sizeof(float);
    return bytes;
}

size_t smem_bytes(const GemmArgs& p, int n_slice, int block_m, int warps) {
    return static_cast<size_t>(n_slice) * (p.k_padded + kRowPad) + tile_buffer_bytes(p, block_m) +
           static_cast<size_t>(n_slice) / 2 * sizeof(float4) + warps * kStageBytesPerWarp;
}

template <int kWarps, int kMTiles, bool kNorm, bool kPrefetch>
void launch(const GemmArgs& p, int n_slice, int sms, cudaStream_t stream) {
    constexpr int kBlockM = kWarps * kMTiles * 16;
    const size_t smem = smem_bytes(p, n_slice, kBlockM, kWarps);
    auto kernel = gemm_e4m3_kernel<kWarps, kMTiles, kNorm, kPrefetch>;
    raise_dynamic_smem(kernel, smem);
    int per_sm = 0;
    SWINUP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kWarps * 32, smem));
    require(per_sm > 0, "the weight matrix does not fit in shared memory");
    const int slices = p.n / n_slice;
    const int tiles = (p.m + kBlockM - 1) / kBlockM;
    // A multiple of `slices` CTAs: CTA b owns slice b % slices, and the CTAs of one tile's slices
    // are neighbours (they run together and share the tile's A through L2).
    const int blocks = slices * std::min(tiles, std::max(1, sms * per_sm / slices));
    kernel<<<blocks, kWarps * 32, smem, stream>>>(p, n_slice);
    SWINUP_CUDA_CHECK_LAUNCH();
}

// Tile shape: 64-row tiles (measured faster than 128-row ones on an H200: fewer registers and less
// shared memory per CTA, so more warps per SM hide the copies' and the epilogue's latency), and
// slices of N (the W slice per CTA) while a CTA's shared memory is over ~56 KiB or the grid has
// fewer than two CTAs per SM. Neither knob changes any output's arithmetic.
//
// Large K (A tile buffers alone over 3/4 of the target: K >= 384, the fc2 of levels 2 and 3 and
// merge2): splitting N shrinks only the W slice, so it cannot bring the CTA near the target, and
// every split makes each CTA of a tile read that tile's A from L2 once more: the lite tube's fc2
// (K = 512, N = 128) ran 8 slices of 16 columns, 60 MB of A reads for a 7.5 MB A. There N is split
// only down to the device's shared-memory limit per block (and by the CTA-count rule): tube fc2
// 2 slices (106 KiB, 2 CTAs per SM), merge2 2 slices, level-2 fc2 1 slice.
void launch_shaped(const GemmArgs& p, cudaStream_t stream) {
    const int sms = device_limits().sms, smem_optin = device_limits().smem_optin;
    constexpr size_t kTargetSmem = 56 * 1024;
    constexpr int kWarps = 4, kBlockM = 64;
    int slices = 1;
    auto can_split = [&](int s) { return p.n % (16 * s) == 0; };
    auto smem = [&]() { return smem_bytes(p, p.n / slices, kBlockM, kWarps); };
    const bool a_dominates = 4 * tile_buffer_bytes(p, kBlockM) > 3 * kTargetSmem;
    const size_t limit = a_dominates ? static_cast<size_t>(smem_optin) : kTargetSmem;
    while (smem() > limit && can_split(2 * slices)) slices *= 2;
    while (static_cast<long long>((p.m + kBlockM - 1) / kBlockM) * slices < 2LL * sms &&
           can_split(2 * slices) && p.n / slices >= 32)
        slices *= 2;
    const bool reads_operand = p.epilogue == GemmEpilogue::residual_add_f16 ||
                               p.epilogue == GemmEpilogue::expand_add_f16 ||
                               p.epilogue == GemmEpilogue::add_f32_store_f16 ||
                               p.epilogue == GemmEpilogue::add_f32_relu_e4m3;
    // The residual / skip operand reaches the epilogue only through the prefetch (Row8Operand), so
    // every epilogue that reads one takes the kPrefetch instantiation, normalising or not.
    const bool norm = p.gather == GemmGather::rms_norm;
    if (norm && reads_operand) launch<kWarps, 1, true, true>(p, p.n / slices, sms, stream);
    else if (norm) launch<kWarps, 1, true, false>(p, p.n / slices, sms, stream);
    else if (reads_operand) launch<kWarps, 1, false, true>(p, p.n / slices, sms, stream);
    else launch<kWarps, 1, false, false>(p, p.n / slices, sms, stream);
}

}  // namespace

void gemm_e4m3(const GemmArgs& p, cudaStream_t stream) {
    require(p.a && p.w && p.scale && p.bias && p.out, "null operand");
    require(p.m > 0, "m must be positive");
    require(p.k_padded > 0 && p.k_padded % 32 == 0, "k_padded must be a positive multiple of 32");
    require(p.n > 0 && p.n % 16 == 0, "n must be a positive multiple of 16");
    require(p.lda > 0 && p.lda % 16 == 0, "lda must be a positive multiple of 16");
    require(p.a_cols > 0 && p.a_cols <= p.k_padded, "a_cols must be in (0, k_padded]");
    require(reinterpret_cast<uintptr_t>(p.out) % 16 == 0, "out must be 16-byte aligned (16-byte stores)");
    if (p.gather == GemmGather::space_to_depth) {
        require(p.a_cols == 4 * p.lda, "space_to_depth needs a_cols == 4 * lda");
        require(p.grid_width > 0 && p.m % p.grid_width == 0, "space_to_depth needs the grid width");
    } else if (p.gather == GemmGather::rms_norm) {
        require(p.norm_gain != nullptr, "rms_norm needs the norm's gain");
        require(p.a_cols == p.k_padded, "rms_norm needs C % 32 == 0 (a_cols == k_padded)");
        require(p.lda == 2 * p.a_cols, "rms_norm needs lda == 2 * a_cols (f16 rows)");
        require(reinterpret_cast<uintptr_t>(p.a) % 16 == 0, "rms_norm needs 16-byte aligned rows");
    } else {
        require(p.a_cols <= p.lda, "a_cols must not exceed lda");
    }
    if (p.epilogue == GemmEpilogue::expand_add_f16) {
        require(p.skip != nullptr, "expand_add_f16 needs a skip tensor");
        require(p.n % 4 == 0 && (p.n / 4) % 8 == 0, "expand_add_f16 needs n / 4 % 8 == 0");
        require(reinterpret_cast<uintptr_t>(p.skip) % 16 == 0, "skip must be 16-byte aligned");
        require(p.grid_width > 0 && p.m % p.grid_width == 0, "expand_add_f16 needs the grid width");
    }
    if (p.epilogue == GemmEpilogue::add_f32_store_f16 || p.epilogue == GemmEpilogue::add_f32_relu_e4m3) {
        require(p.skip != nullptr, "add_f32 epilogues need the addend");
        require(reinterpret_cast<uintptr_t>(p.skip) % 16 == 0, "the addend must be 16-byte aligned");
    }
    launch_shaped(p, stream);
}

}  // namespace swinup::cuda
