#include "cuda/layers/window_attention.cuh"

#include <stdexcept>
#include <string>

#include "model/model_spec.h"
#include "model/window_map.h"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/layers/window_attention_head.cuh"

namespace swinup::cuda {
namespace {

constexpr int kWarpsPerBlock = 4;

template <int kD>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) window_attention_kernel(const WindowAttentionArgs p) {
    const int pair = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    if (pair >= window_count(p.width, p.height) * p.heads) return;
    const int window = pair / p.heads, head = pair - window * p.heads;
    const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
    const int c3 = 3 * p.channels;
    auto grid_token = [&](int token) { return window_token_index(window, token, p.width, p.height, p.shifted); };
    auto token_row = [&](int token) { return p.qkv + static_cast<size_t>(grid_token(token)) * c3; };
    // Window tokens g and g + 8: the queries of the S and O fragments, the keys of the K fragment.
    const int tok_lo = grid_token(g), tok_hi = grid_token(g + 8);
    const uint16_t* v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = token_row(2 * t + (k & 1) + 8 * (k >> 1)) + 2 * p.channels + head * kD;
    const bool masked = window_has_mask(window, p.width, p.height, p.shifted);
    const uint32_t mask[2] = {masked ? window_key_mask(window, g, p.width, p.height, p.shifted) : 0xffffu,
                              masked ? window_key_mask(window, g + 8, p.width, p.height, p.shifted) : 0xffffu};
    attend_window_head<kD>(p.qkv + static_cast<size_t>(tok_lo) * c3 + head * kD,
                           p.qkv + static_cast<size_t>(tok_hi) * c3 + head * kD, v, p.channels,
                           p.rel_bias + head * kWindowTokens * kWindowTokens, mask, p.precision,
                           p.out + static_cast<size_t>(tok_lo) * p.channels + head * kD,
                           p.out + static_cast<size_t>(tok_hi) * p.channels + head * kD);
}

}  // namespace

void window_attention(const WindowAttentionArgs& p, cudaStream_t stream) {
    auto require = [](bool ok, const char* what) {
        if (!ok) throw std::invalid_argument(std::string("window_attention: ") + what);
    };
    require(p.qkv && p.rel_bias && p.out, "null operand");
    require(p.width > 0 && p.height > 0 && p.width % kWindow == 0 && p.height % kWindow == 0,
            "the grid must be a positive multiple of 4 tokens in each direction");
    require(p.heads > 0 && p.channels % p.heads == 0, "channels must be a multiple of heads");
    const int pairs = window_count(p.width, p.height) * p.heads;
    const int blocks = (pairs + kWarpsPerBlock - 1) / kWarpsPerBlock;
    switch (p.channels / p.heads) {  // the head dim becomes the template argument here, once
        case 16: window_attention_kernel<16><<<blocks, kWarpsPerBlock * 32, 0, stream>>>(p); break;
        case 24: window_attention_kernel<24><<<blocks, kWarpsPerBlock * 32, 0, stream>>>(p); break;
        case 32: window_attention_kernel<32><<<blocks, kWarpsPerBlock * 32, 0, stream>>>(p); break;
        default: require(false, "head dim must be 16, 24 or 32");
    }
    SWINUP_CUDA_CHECK_LAUNCH();
}

}  // namespace swinup::cuda
