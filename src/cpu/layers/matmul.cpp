#include "cpu/layers/matmul.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "cpu/simd/simd_level.h"
#include "cpu/simd/simd_target.h"

// The kernels below pass vectors between inlined helpers only (matmul_avx2 and matmul_avx512
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

void matmul_scalar(const PackedMatrix& m, const float* x, int rows, float* y) {
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

#if SWINUP_SIMD_X86
SWINUP_TARGET_AVX2_BEGIN
namespace {
namespace avx2_kernels {
#include "cpu/layers/matmul_blocks.inc"
}  // namespace avx2_kernels
struct Avx2 {
    using Reg = __m256;
    static constexpr int kLanes = 8;
    static Reg zero() { return _mm256_setzero_ps(); }
    static Reg load(const float* p) { return _mm256_loadu_ps(p); }
    static Reg broadcast(const float* p) { return _mm256_broadcast_ss(p); }
    static Reg fmadd(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
    static void store(float* p, Reg v) { _mm256_storeu_ps(p, v); }
};
// 6 rows x 16 outputs: 12 accumulators, 2 panel registers and a broadcast of the 16 ymm.
// flatten: the accumulators stay in registers.
__attribute__((flatten)) void matmul_avx2(const PackedMatrix& m, const float* x, int rows, float* y) {
    avx2_kernels::matmul_blocks<Avx2, 6, 1>(m, x, rows, y);
}
}  // namespace
SWINUP_TARGET_AVX2_END

SWINUP_TARGET_AVX512_BEGIN
namespace {
namespace avx512_kernels {
#include "cpu/layers/matmul_blocks.inc"
}  // namespace avx512_kernels
struct Avx512 {
    using Reg = __m512;
    static constexpr int kLanes = 16;
    static Reg zero() { return _mm512_setzero_ps(); }
    static Reg load(const float* p) { return _mm512_loadu_ps(p); }
    static Reg broadcast(const float* p) { return _mm512_set1_ps(*p); }
    static Reg fmadd(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
    static void store(float* p, Reg v) { _mm512_storeu_ps(p, v); }
};
// 6 rows x 32 outputs: 12 accumulators of the 32 zmm.
__attribute__((flatten)) void matmul_avx512(const PackedMatrix& m, const float* x, int rows, float* y) {
    avx512_kernels::matmul_blocks<Avx512, 6, 2>(m, x, rows, y);
}
}  // namespace
SWINUP_TARGET_AVX512_END
#endif  // SWINUP_SIMD_X86

void matmul(const PackedMatrix& m, const float* x, int rows, float* y) {
#if SWINUP_SIMD_X86
    switch (simd_level()) {
        case SimdLevel::avx512: matmul_avx512(m, x, rows, y); return;
        case SimdLevel::avx2: matmul_avx2(m, x, rows, y); return;
        case SimdLevel::scalar: break;
    }
#endif
    matmul_scalar(m, x, rows, y);
}

}  // namespace swinup::cpu
