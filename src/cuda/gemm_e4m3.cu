#include "cuda/gemm_e4m3.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/exact_math.h"
#include "cuda/cuda_check.cuh"
#include "cuda/device_math.cuh"
#include "cuda/mma.cuh"

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

// y = t + bias with t = acc * scale (two roundings, as on every backend), then the epilogue.
__device__ __forceinline__ void store_pair(const GemmArgs& p, int m, int n, float acc0, float acc1) {
    const float y0 = exact::add(exact::mul(acc0, p.scale[n]), p.bias[n]);
    const float y1 = exact::add(exact::mul(acc1, p.scale[n + 1]), p.bias[n + 1]);
    const size_t at = static_cast<size_t>(m) * p.n + n;
    switch (p.epilogue) {
        case GemmEpilogue::store_f16:
            *reinterpret_cast<uint32_t*>(static_cast<uint16_t*>(p.out) + at) = f16x2(y0, y1);
            break;
        case GemmEpilogue::store_f32:
            *reinterpret_cast<float2*>(static_cast<float*>(p.out) + at) = make_float2(y0, y1);
            break;
        case GemmEpilogue::relu_e4m3:
            *reinterpret_cast<uint16_t*>(static_cast<uint8_t*>(p.out) + at) =
                e4m3x2(y0 > 0.0f ? y0 : 0.0f, y1 > 0.0f ? y1 : 0.0f);
            break;
        case GemmEpilogue::gelu_e4m3:
            *reinterpret_cast<uint16_t*>(static_cast<uint8_t*>(p.out) + at) =
                e4m3x2(gelu(y0, p.precision), gelu(y1, p.precision));
            break;
        case GemmEpilogue::residual_add_f16: {
            uint32_t* r = reinterpret_cast<uint32_t*>(static_cast<uint16_t*>(p.out) + at);
            const uint32_t old = *r;
            *r = f16x2(exact::add(f16_lo(old), y0), exact::add(f16_hi(old), y1));
            break;
        }
        case GemmEpilogue::expand_add_f16: {
            const int cf = p.n / 4;  // fine channels C'
            const int q = n / cf, c = n - q * cf;
            const int y = m / p.grid_width, x = m - y * p.grid_width;
            const size_t fine =
                static_cast<size_t>(2 * y + (q >> 1)) * (2 * p.grid_width) + 2 * x + (q & 1);
            const size_t i = fine * cf + c;
            float s0, s1;
            if (p.skip_f32) {
                const float2 s = *reinterpret_cast<const float2*>(static_cast<const float*>(p.skip) + i);
                s0 = s.x;
                s1 = s.y;
            } else {
                const uint32_t s = *reinterpret_cast<const uint32_t*>(static_cast<const uint16_t*>(p.skip) + i);
                s0 = f16_lo(s);
                s1 = f16_hi(s);
            }
            *reinterpret_cast<uint32_t*>(static_cast<uint16_t*>(p.out) + i) =
                f16x2(exact::add(y0, s0), exact::add(y1, s1));
            break;
        }
    }
}

// One CTA keeps the whole weight matrix in shared memory and walks row tiles of A (a grid-stride
// loop, so the weights are read once per CTA). Warp w owns rows [w * 16 * kMTiles, +16 * kMTiles)
// of the tile and sweeps N in steps of 16 (two n8 tiles per ldmatrix of W).
template <int kWarps, int kMTiles>
__global__ void __launch_bounds__(kWarps * 32) gemm_e4m3_kernel(const GemmArgs p) {
    constexpr int kThreads = kWarps * 32;
    constexpr int kBlockM = kWarps * kMTiles * 16;
    static_assert(kMTiles >= 1 && kWarps >= 1, "tile shape");
    extern __shared__ uint4 smem_words[];
    uint8_t* smem = reinterpret_cast<uint8_t*>(smem_words);
    const int stride = p.k_padded + kRowPad;                // bytes per shared row
    uint8_t* w_s = smem;                                     // (N, K + pad)
    uint8_t* a_s = smem + static_cast<size_t>(p.n) * stride; // (BLK_M, K + pad)
    const int chunks = p.k_padded / 16;                      // 16-byte chunks per row

    for (int i = threadIdx.x; i < p.n * chunks; i += kThreads) {
        const int r = i / chunks, c = i - r * chunks;
        *reinterpret_cast<uint4*>(w_s + r * stride + c * 16) =
            *reinterpret_cast<const uint4*>(p.w + static_cast<size_t>(r) * p.k_padded + c * 16);
    }

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane >> 2, t = lane & 3;
    const int warp_row = warp * kMTiles * 16;
    // ldmatrix row addresses: A matrices (rows 0-7 | 8-15) x (k 0-15 | 16-31) -> a[0..3];
    // W matrices (n 0-7, k 0-15), (n 0-7, k 16-31), (n 8-15, k 0-15), (n 8-15, k 16-31) -> b.
    const int a_ld_row = (lane & 7) + ((lane >> 3) & 1) * 8, a_ld_col = (lane >> 4) * 16;
    const int w_ld_row = (lane & 7) + (lane >> 4) * 8, w_ld_col = ((lane >> 3) & 1) * 16;
    const int tiles = (p.m + kBlockM - 1) / kBlockM;

    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int m0 = tile * kBlockM;
        __syncthreads();  // the previous tile's A reads are done
        for (int i = threadIdx.x; i < kBlockM * chunks; i += kThreads) {
            const int r = i / chunks, k = (i - r * chunks) * 16;
            const int m = m0 + r;
            uint4 v = make_uint4(0u, 0u, 0u, 0u);
            if (m < p.m && k < p.a_cols) v = *reinterpret_cast<const uint4*>(a_chunk(p, m, k));
            *reinterpret_cast<uint4*>(a_s + r * stride + k) = v;
        }
        __syncthreads();
        if (m0 + warp_row >= p.m) continue;  // this warp's rows are all past the end

        for (int n0 = 0; n0 < p.n; n0 += 16) {
            float acc[kMTiles][2][4];  // (m16 tile, n8 tile, fragment)
#pragma unroll
            for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
                for (int nt = 0; nt < 2; ++nt)
#pragma unroll
                    for (int j = 0; j < 4; ++j) acc[mt][nt][j] = 0.0f;
            for (int k0 = 0; k0 < p.k_padded; k0 += 32) {  // K chunks in increasing order
                uint32_t b[4];                              // (n8 tile 0: b0 b1, n8 tile 1: b0 b1)
                ldmatrix_x4(b, w_s + (n0 + w_ld_row) * stride + k0 + w_ld_col);
#pragma unroll
                for (int mt = 0; mt < kMTiles; ++mt) {
                    uint32_t a[4];  // (16 rows, 32 k)
                    ldmatrix_x4(a, a_s + (warp_row + mt * 16 + a_ld_row) * stride + k0 + a_ld_col);
                    mma_m16n8k32_e4m3(acc[mt][0], a, b[0], b[1]);
                    mma_m16n8k32_e4m3(acc[mt][1], a, b[2], b[3]);
                }
            }
#pragma unroll
            for (int mt = 0; mt < kMTiles; ++mt) {
                const int m = m0 + warp_row + mt * 16 + g;
#pragma unroll
                for (int nt = 0; nt < 2; ++nt) {
                    const int n = n0 + nt * 8 + 2 * t;
                    if (m < p.m) store_pair(p, m, n, acc[mt][nt][0], acc[mt][nt][1]);
                    if (m + 8 < p.m) store_pair(p, m + 8, n, acc[mt][nt][2], acc[mt][nt][3]);
                }
            }
        }
    }
}

void require(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("gemm_e4m3: ") + what);
}

template <int kWarps, int kMTiles>
void launch(const GemmArgs& p, cudaStream_t stream) {
    constexpr int kBlockM = kWarps * kMTiles * 16;
    const size_t smem = static_cast<size_t>(p.n + kBlockM) * (p.k_padded + kRowPad);
    auto kernel = gemm_e4m3_kernel<kWarps, kMTiles>;
    static int configured_smem = 0;  // raise the opt-in limit once per instantiation and size
    if (static_cast<int>(smem) > configured_smem) {
        SWINUP_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(smem)));
        configured_smem = static_cast<int>(smem);
    }
    int device = 0, sms = 0, per_sm = 0;
    SWINUP_CUDA_CHECK(cudaGetDevice(&device));
    SWINUP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SWINUP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kWarps * 32, smem));
    require(per_sm > 0, "the weight matrix does not fit in shared memory");
    const int tiles = (p.m + kBlockM - 1) / kBlockM;
    const int blocks = std::min(tiles, sms * per_sm);
    kernel<<<blocks, kWarps * 32, smem, stream>>>(p);
    SWINUP_CUDA_CHECK_LAUNCH();
}

}  // namespace

void gemm_e4m3(const GemmArgs& p, cudaStream_t stream) {
    require(p.a && p.w && p.scale && p.bias && p.out, "null operand");
    require(p.m > 0, "m must be positive");
    require(p.k_padded > 0 && p.k_padded % 32 == 0, "k_padded must be a positive multiple of 32");
    require(p.n > 0 && p.n % 16 == 0, "n must be a positive multiple of 16");
    require(p.lda > 0 && p.lda % 16 == 0, "lda must be a positive multiple of 16");
    require(p.a_cols > 0 && p.a_cols <= p.k_padded, "a_cols must be in (0, k_padded]");
    if (p.gather == GemmGather::space_to_depth) {
        require(p.a_cols == 4 * p.lda, "space_to_depth needs a_cols == 4 * lda");
        require(p.grid_width > 0 && p.m % p.grid_width == 0, "space_to_depth needs the grid width");
    } else {
        require(p.a_cols <= p.lda, "a_cols must not exceed lda");
    }
    if (p.epilogue == GemmEpilogue::expand_add_f16) {
        require(p.skip != nullptr, "expand_add_f16 needs a skip tensor");
        require(p.n % 4 == 0 && (p.n / 4) % 2 == 0, "expand_add_f16 needs n / 4 even");
        require(p.grid_width > 0 && p.m % p.grid_width == 0, "expand_add_f16 needs the grid width");
    }
    launch<4, 2>(p, stream);
}

}  // namespace swinup::cuda
