// The linear layers' matrix product in one fixed summation order:
//   y[r][o] = (((0 + x[r][0] w[0][o]) + x[r][1] w[1][o]) + ...) + x[r][in-1] w[in-1][o]
// each product added in k order, in f32. The order never depends on the vector width, the
// blocking or the processor, so every SIMD level (cpu/simd/simd_level.h) gives the same bits.
// The inputs hold e4m3 values (4 significant bits) and the weights e4m3 codes, so each product
// is exact in f32: a fused multiply-add rounds exactly like the product followed by the add,
// and the vector paths use FMA where the processor has it.
#pragma once

#include <cstddef>
#include <vector>

namespace swinup::cpu {

// The weights in the layout the kernels read: panels of 16 outputs, each panel `in` rows of 16
// floats (k-major), the last panel padded with zeros.
struct PackedMatrix {
    int in = 0;
    int out = 0;
    std::vector<float> panels;  // ceil(out / 16) x in x 16
};
constexpr int kMatmulPanel = 16;

// weights: out x in, row o = output o (the weights file's layout).
PackedMatrix pack_matrix(const float* weights, int in, int out);

// x: rows x m.in (row-major); y: rows x m.out (row-major), overwritten.
void matmul(const PackedMatrix& m, const float* x, int rows, float* y);

}  // namespace swinup::cpu
