#include "cuda/rms_norm.cuh"

#include <stdexcept>
#include <string>

#include "core/exact_math.h"
#include "core/model_spec.h"
#include "cuda/cuda_check.cuh"
#include "cuda/device_math.cuh"

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

// One thread per token: the channel-order sum is sequential by definition, and tokens are many.
__global__ void rms_norm_e4m3_kernel(const RmsNormArgs p) {
    const int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= p.tokens) return;
    const int c_out = p.gather == NormGather::rows ? p.channels : 4 * p.channels;
    float sum = 0.0f;
    for (int c = 0; c < c_out; c += 8) {
        const uint4 v = *reinterpret_cast<const uint4*>(x_chunk(p, m, c));
        const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const float a = f16_lo(w[j]), b = f16_hi(w[j]);
            sum = exact::add(sum, exact::mul(a, a));
            sum = exact::add(sum, exact::mul(b, b));
        }
    }
    float inv;
    if (p.precision == SWINUP_PRECISION_EXACT) {
        const float mean = exact::div(sum, static_cast<float>(c_out));
        inv = exact::div(1.0f, exact::sqrt(exact::add(mean, kRmsEps)));
    } else {
        inv = fast_rsqrt(sum * (1.0f / static_cast<float>(c_out)) + kRmsEps);
    }
    uint8_t* out = p.out + static_cast<size_t>(m) * c_out;
    for (int c = 0; c < c_out; c += 8) {
        const uint4 v = *reinterpret_cast<const uint4*>(x_chunk(p, m, c));
        const uint32_t w[4] = {v.x, v.y, v.z, v.w};
        uint32_t packed[2];
#pragma unroll
        for (int j = 0; j < 4; j += 2) {
            const float y0 = exact::mul(exact::mul(f16_lo(w[j]), inv), p.gain[c + 2 * j]);
            const float y1 = exact::mul(exact::mul(f16_hi(w[j]), inv), p.gain[c + 2 * j + 1]);
            const float y2 = exact::mul(exact::mul(f16_lo(w[j + 1]), inv), p.gain[c + 2 * j + 2]);
            const float y3 = exact::mul(exact::mul(f16_hi(w[j + 1]), inv), p.gain[c + 2 * j + 3]);
            packed[j / 2] = static_cast<uint32_t>(e4m3x2(y0, y1)) | (static_cast<uint32_t>(e4m3x2(y2, y3)) << 16);
        }
        *reinterpret_cast<uint2*>(out + c) = make_uint2(packed[0], packed[1]);
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
    constexpr int kThreads = 128;
    rms_norm_e4m3_kernel<<<(p.tokens + kThreads - 1) / kThreads, kThreads, 0, stream>>>(p);
    SWINUP_CUDA_CHECK_LAUNCH();
}

}  // namespace swinup::cuda
