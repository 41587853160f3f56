// 16-byte asynchronous global -> shared copies (cp.async, sm_80+), for kernels that stage their
// operands while they compute (the GEMM's A tiles, the fused kernels' token rows and weights).
#pragma once

#include <cstdint>

namespace swinup::cuda {

// src_bytes == 0 writes 16 zero bytes and reads nothing: how rows past the end become exact zeros.
__device__ __forceinline__ void cp_async_16(void* smem_dst, const void* src, int src_bytes) {
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(smem_dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// The CTA copies a rows x cols byte matrix (cols % 16 == 0, rows contiguous in src) into shared
// rows of dst_stride bytes: how the fused kernels stage their weight matrices once per CTA.
__device__ __forceinline__ void cp_async_matrix(uint8_t* dst, int dst_stride, const uint8_t* src, int rows, int cols) {
    const int chunks = cols / 16;
    for (int i = static_cast<int>(threadIdx.x); i < rows * chunks; i += static_cast<int>(blockDim.x)) {
        const int r = i / chunks, c = i - r * chunks;
        cp_async_16(dst + r * dst_stride + c * 16, src + static_cast<size_t>(r) * cols + c * 16, 16);
    }
}

}  // namespace swinup::cuda
