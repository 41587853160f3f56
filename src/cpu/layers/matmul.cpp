#include "cpu/layers/matmul.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "cpu/simd/avx2_math.h"
#include "cpu/simd/avx512_math.h"
#include "cpu/simd/simd_level.h"
#include "cpu/simd/simd_target.h"

// The kernels below pass vectors between inlined helpers only (avx2::matmul and avx512::matmul
// are flattened), so no call crosses the ABI that -Wpsabi warns about.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace swinup::cpu {

PackedMatrix pack_matrix(const float* weights, int in, int out) {
    PackedMatrix m;
    m.in = in;
    m.out = out;
    const int panels = (out + kMatmulPanel - 1) / kMatmulPanel;
    m.panels.assign(size_t(panels) * in * kMatmulPanel, 0.0f);
    for (int o = 0; o < out; ++o) {
        float* panel = m.panels.data() + size_t(o / kMatmulPanel) * in * kMatmulPanel;
        for (int k = 0; k < in; ++k) panel[size_t(k) * kMatmulPanel + o % kMatmulPanel] = weights[size_t(o) * in + k];
    }
    return m;
}

namespace {

const float* panel_of(const PackedMatrix& m, int p) {
    return m.panels.data() + size_t(p) * m.in * kMatmulPanel;
}

// Writes the first `valid` of 16 computed outputs (the last panel may be partial).
inline void store_outputs(const float* acc, int valid, float* y) {
    std::memcpy(y, acc, sizeof(float) * size_t(valid));
}

}  // namespace

namespace scalar {
namespace {

void matmul(const PackedMatrix& m, const float* x, int rows, float* y) {
    const int panels = (m.out + kMatmulPanel - 1) / kMatmulPanel;
    for (int r = 0; r < rows; ++r) {
        const float* xr = x + size_t(r) * m.in;
        for (int p = 0; p < panels; ++p) {
            const float* w = panel_of(m, p);
            float acc[kMatmulPanel] = {};
            for (int k = 0; k < m.in; ++k) {
                const float xk = xr[k];
                for (int j = 0; j < kMatmulPanel; ++j) acc[j] = acc[j] + xk * w[size_t(k) * kMatmulPanel + j];
            }
            const int o = p * kMatmulPanel;
            store_outputs(acc, std::min(kMatmulPanel, m.out - o), y + size_t(r) * m.out + o);
        }
    }
}

}  // namespace
}  // namespace scalar

#if SWINUP_SIMD_X86
SWINUP_TARGET_AVX2_BEGIN
namespace avx2 {
namespace {
#include "cpu/layers/matmul_blocks.inc"
}  // namespace
}  // namespace avx2
SWINUP_TARGET_AVX2_END

SWINUP_TARGET_AVX512_BEGIN
namespace avx512 {
namespace {
#include "cpu/layers/matmul_blocks.inc"
}  // namespace
}  // namespace avx512
SWINUP_TARGET_AVX512_END
#endif  // SWINUP_SIMD_X86

void matmul(const PackedMatrix& m, const float* x, int rows, float* y) {
    SWINUP_SIMD_DISPATCH(matmul, m, x, rows, y);
}

}  // namespace swinup::cpu
