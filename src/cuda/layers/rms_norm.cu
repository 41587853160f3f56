#include "cuda/layers/rms_norm.cuh"

#include <stdexcept>
#include <string>

#include "numeric/exact_math.h"
#include "model/model_spec.h"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/device/device_math.cuh"
#include "cuda/device/dynamic_smem.cuh"
#include "cuda/layers/rms_norm_row.cuh"

namespace swinup::cuda {
namespace {

// Where output channel chunk [c, c + 8) of token m comes from.
__device__ __forceinline__ const uint16_t* x_chunk(const RmsNormArgs& p, int m, int c) {
    if (p.gather == NormGather::rows) return p.x + static_cast<size_t>(m) * p.channels + c;
    const int y = m / p.grid_width, x = m - y * p.grid_width;
    const int q = c / p.channels, cc = c - q * p.channels;
    const size_t fine = static_cast<size_t>(2 * y + (q >> 1)) * (2 * p.grid_width) + 2 * x + (q & 1);
    return p.x + fine * p.channels + cc;
}

// One warp per block, one token per lane: the channel-order sum is sequential by definition. The
// warp first copies its 32 tokens' rows into shared memory with coalesced 16-byte loads (a lane
// reading its own row straight from memory would touch 32 rows per load), each lane then runs the
// sequential sum and the scaling from shared memory, and the e4m3 rows leave through shared
// memory as coalesced 8-byte stores. The arithmetic is the same per token as one thread per token.
constexpr int kTokensPerBlock = 32;

// Shared row stride in 16-byte units: odd, so 8 lanes reading 16 bytes of 8 rows hit 8 bank quads.
__host__ __device__ __forceinline__ int x_row_units(int c_out) { return (c_out / 8) | 1; }
__host__ __device__ __forceinline__ int out_row_bytes(int c_out) { return c_out + 8; }
__host__ __device__ __forceinline__ size_t norm_smem_bytes(int c_out) {
    return static_cast<size_t>(kTokensPerBlock) * (16 * x_row_units(c_out) + out_row_bytes(c_out));
}

__global__ void __launch_bounds__(kTokensPerBlock) rms_norm_e4m3_kernel(const RmsNormArgs p) {
    extern __shared__ uint4 smem_words[];
    const int c_out = p.gather == NormGather::rows ? p.channels : 4 * p.channels;
    const int chunks = c_out / 8;  // 16-byte chunks (8 f16) per token
    const int x_stride = 16 * x_row_units(c_out), o_stride = out_row_bytes(c_out);
    uint8_t* x_s = reinterpret_cast<uint8_t*>(smem_words);
    uint8_t* o_s = x_s + static_cast<size_t>(kTokensPerBlock) * x_stride;
    const int m0 = blockIdx.x * kTokensPerBlock, lane = threadIdx.x;
    const int rows = min(kTokensPerBlock, p.tokens - m0);

    for (int i = lane; i < rows * chunks; i += kTokensPerBlock) {
        const int r = i / chunks, c = i - r * chunks;
        *reinterpret_cast<uint4*>(x_s + r * x_stride + c * 16) =
            *reinterpret_cast<const uint4*>(x_chunk(p, m0 + r, c * 8));
    }
    __syncwarp();
    if (lane < rows) {
        const uint8_t* xr = x_s + lane * x_stride;
        const float inv = rms_inverse(rms_sum_of_squares(xr, c_out), c_out, p.precision);
        uint8_t* orow = o_s + lane * o_stride;
        for (int c = 0; c < c_out; c += 8)
            *reinterpret_cast<uint2*>(orow + c) =
                rms_scale8_e4m3(*reinterpret_cast<const uint4*>(xr + c * 2), inv, p.gain + c);
    }
    __syncwarp();
    // The block's output rows are contiguous: rows * c_out bytes from token m0.
    uint8_t* out = p.out + static_cast<size_t>(m0) * c_out;
    for (int i = lane; i < rows * chunks; i += kTokensPerBlock) {
        const int r = i / chunks, c = i - r * chunks;
        *reinterpret_cast<uint2*>(out + r * c_out + c * 8) = *reinterpret_cast<const uint2*>(o_s + r * o_stride + c * 8);
    }
}

}  // namespace

void rms_norm_e4m3(const RmsNormArgs& p, cudaStream_t stream) {
    auto require = [](bool ok, const char* what) {
        if (!ok) throw std::invalid_argument(std::string("rms_norm_e4m3: ") + what);
    };
    require(p.x && p.gain && p.out, "null operand");
    require(p.channels > 0 && p.channels % 8 == 0, "channels must be a positive multiple of 8");
    require(p.tokens > 0, "tokens must be positive");
    if (p.gather == NormGather::space_to_depth)
        require(p.grid_width > 0 && p.tokens % p.grid_width == 0, "space_to_depth needs the grid width");
    const int c_out = p.gather == NormGather::rows ? p.channels : 4 * p.channels;
    const size_t smem = norm_smem_bytes(c_out);
    raise_dynamic_smem(rms_norm_e4m3_kernel, smem);
    rms_norm_e4m3_kernel<<<(p.tokens + kTokensPerBlock - 1) / kTokensPerBlock, kTokensPerBlock, smem, stream>>>(p);
    SWINUP_CUDA_CHECK_LAUNCH();
}

}  // namespace swinup::cuda
