// A tile's 16 f16 token rows of a residual stream [tokens][kC], stored back from shared memory
// 16 bytes at a time: how the fused block kernels (attention_fused.cu: a window's tokens;
// mlp_fused.cu: 16 consecutive tokens; block_fused.cu: a window's tokens) write their tile out in
// place. Tile row r is token
// row_token(r).token; a row whose `real` is false (past the last token) is not stored.
//
// The copies in (each kernel's load_*_rows) stay with the kernels: written through one function,
// nvcc orders the source and destination address arithmetic differently for one of them and the
// kernel's SASS changes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace swinup::cuda {

struct RowToken {
    int token;
    bool real;
};

// x_s: the tile's rows, row stride x_stride bytes. kThreads threads store them together (a warp,
// or a team of warps: warp_team.cuh), `lane` being the thread's index among them.
template <int kC, int kThreads = 32, class RowTokenOf>
__device__ __forceinline__ void store_token_rows16(uint16_t* x, const uint8_t* x_s, int x_stride, int lane,
                                                   RowTokenOf&& row_token) {
    constexpr int kChunks = 2 * kC / 16;
#pragma unroll
    for (int i = lane; i < 16 * kChunks; i += kThreads) {
        const int r = i / kChunks, c = i - r * kChunks;
        const RowToken rt = row_token(r);
        if (rt.real)
            *reinterpret_cast<uint4*>(x + static_cast<size_t>(rt.token) * kC + c * 8) =
                *reinterpret_cast<const uint4*>(x_s + r * x_stride + c * 16);
    }
}

}  // namespace swinup::cuda
