// The two tensor-core instructions of the CUDA backend and the shared-memory fragment loader.
// Every kernel issues its matrix products through these, so the fused kernels that must equal the
// layer-by-layer ones byte for byte can share them too.
#pragma once

#include <cstdint>

namespace swinup::cuda {

// Both instructions take the same operands: four A words, two B words, and the f32 D fragment
// as the accumulator it adds to (D = A * B + D, in place). Only the shape and types differ, and
// asm's instruction must be a string literal, hence a macro over the one operand binding.
#define SWINUP_MMA_M16N8_F32_ACCUMULATE(shape_and_types)                                              \
    asm volatile("mma.sync.aligned." shape_and_types " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "         \
                 "{%0,%1,%2,%3};\n"                                                                    \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                       \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))

// D = A * B + D, A 16x32 e4m3 (row), B 32x8 e4m3 (col), D 16x8 f32. sm_89+.
// Fragments (PTX ISA, "mma.m16n8k32"; g = lane / 4, t = lane % 4):
//   a[0]: row g,   k 4t..4t+3     a[1]: row g+8, k 4t..4t+3
//   a[2]: row g,   k 16+4t..      a[3]: row g+8, k 16+4t..
//   b[0]: col g,   k 4t..4t+3     b[1]: col g,   k 16+4t..
//   d[0], d[1]: row g, cols 2t, 2t+1      d[2], d[3]: row g+8, cols 2t, 2t+1
__device__ __forceinline__ void mma_m16n8k32_e4m3(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                                  uint32_t b1) {
    SWINUP_MMA_M16N8_F32_ACCUMULATE("m16n8k32.row.col.f32.e4m3.e4m3.f32");
}

// D = A * B + D, A 16x16 f16 (row), B 16x8 f16 (col), D 16x8 f32.
//   a[0]: row g, k 2t,2t+1   a[1]: row g+8, k 2t,2t+1   a[2]: row g, k 8+2t..   a[3]: row g+8, k 8+2t..
//   b[0]: col g, k 2t,2t+1   b[1]: col g, k 8+2t, 8+2t+1
//   d as for m16n8k32.
__device__ __forceinline__ void mma_m16n8k16_f16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                                 uint32_t b1) {
    SWINUP_MMA_M16N8_F32_ACCUMULATE("m16n8k16.row.col.f32.f16.f16.f32");
}

#undef SWINUP_MMA_M16N8_F32_ACCUMULATE

// Four 8x8 b16 matrices from shared memory; lanes 8i..8i+7 give the row addresses of matrix i
// (16-byte aligned). Thread lane gets, of matrix i, row lane / 4, bytes 4 (lane % 4) .. +3: for
// 8-bit data exactly the m16n8k32 fragment word.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* smem_row) {
    const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem_row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// Two such matrices: lanes 0-7 and 8-15 give the row addresses (the others are ignored).
__device__ __forceinline__ void ldmatrix_x2(uint32_t (&r)[2], const void* smem_row) {
    const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem_row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
}

}  // namespace swinup::cuda
