// The work loop of the persistent kernels (persistent_grid.cuh sizes their grid): a walker (one
// warp, a team of warps, or the whole CTA) takes the items first, first + step, first + 2 step,
// ... below count (windows, row tiles, pixel tiles), and while it computes one item the cp.async
// copies of the next are in flight. The fused kernels (attention_fused, mlp_fused, block_fused,
// head_fused, lite_tail_fused) walk per warp, the team kernels (attention_team, mlp_team) per team
// of warps, the GEMM (gemm_e4m3) per CTA; each brings only its two steps:
//   load(item, buf)    issues the item's cp.async copies into its buffer buf (0 or kBuffers - 1);
//                      the loop commits them;
//   compute(item, buf) works on the item once its copies have landed in buffer buf.
// The order of the copies, waits and barriers is the one every kernel had written out before
// this loop existed, so their loads and stores and the frames they compute did not change
// (test_cuda_fusion compares the fused kernels' bytes with the layer-by-layer launches').
#pragma once

#include "cuda/device/cp_async.cuh"

namespace swinup::cuda {

// Who walks the items: each warp its own (only __syncwarp between the steps; the kernel's
// shared operands, copied by all the CTA's threads, are published once by __syncthreads before
// the loop), or the CTA as a whole (__syncthreads between the steps).
enum class TileWalker { warp, cta };

template <TileWalker kWalker>
__device__ __forceinline__ void tile_walker_sync() {
    if constexpr (kWalker == TileWalker::warp) __syncwarp();
    else __syncthreads();
}

// kBuffers = 2: the next item's copies go to the other buffer before this item is computed (that
// buffer was last read in the previous iteration, before its closing barrier). kBuffers = 1 (when
// two buffers leave too little shared memory): the next item's copies are issued only after this
// item's closing barrier, so they do not overlap a computation. The copies the kernel issued
// before the loop (its weights) join the first item's commit group.
//
// The walker's own barrier is `walker_sync` (a warp's __syncwarp, a team's named barrier, or the
// CTA's __syncthreads when kCtaWalker); a walker smaller than the CTA (kCtaWalker false) first
// meets the whole CTA once, after its first item's copies, so that the CTA's shared operands
// (copied by all its threads before the loop) are in place for every walker.
template <int kBuffers, bool kCtaWalker, class WalkerSync, class Load, class Compute>
__device__ __forceinline__ void persistent_item_loop(int first, int step, int count, WalkerSync&& walker_sync,
                                                     Load&& load, Compute&& compute) {
    static_assert(kBuffers == 1 || kBuffers == 2, "one buffer, or a double buffer");
    int item = first;
    if (item < count) load(item, 0);
    cp_async_commit();
    if constexpr (!kCtaWalker) {
        cp_async_wait<0>();
        __syncthreads();  // the CTA's shared operands (and every walker's first item) in place
    }
    for (int buf = 0; item < count; item += step, buf = kBuffers == 2 ? buf ^ 1 : 0) {
        const int next = item + step;
        if (kBuffers == 2 && next < count) {
            load(next, buf ^ 1);
            cp_async_commit();
            cp_async_wait<1>();  // this item's copies have landed (this thread's)
        } else {
            cp_async_wait<0>();
        }
        walker_sync();  // ... and every thread's copies are visible to the walker
        compute(item, buf);
        walker_sync();  // buffer buf is read out before a later load refills it
        if (kBuffers == 1 && next < count) {
            load(next, 0);
            cp_async_commit();
        }
    }
    cp_async_wait<0>();  // no copy is left in flight at exit
}

// The loop with a warp or the CTA as the walker.
template <int kBuffers, TileWalker kWalker, class Load, class Compute>
__device__ __forceinline__ void persistent_tile_loop(int first, int step, int count, Load&& load,
                                                     Compute&& compute) {
    persistent_item_loop<kBuffers, kWalker == TileWalker::cta>(
        first, step, count, [] { tile_walker_sync<kWalker>(); }, load, compute);
}

}  // namespace swinup::cuda
