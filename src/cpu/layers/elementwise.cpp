#include "cpu/layers/elementwise.h"

// GCC 12 reports false "(may be) used uninitialized" warnings inside its own AVX-512 intrinsic
// headers (_mm512_undefined_ps); the warning is about the header, not this code. (clang has no
// such warnings and would warn about the unknown names.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "numeric/e4m3.h"
#include "numeric/exact_math.h"
#include "numeric/half.h"
#include "cpu/simd/avx2_math.h"
#include "cpu/simd/avx512_math.h"
#include "cpu/simd/simd_level.h"
#include "cpu/simd/simd_target.h"

namespace swinup::cpu {

namespace scalar {
namespace {

// The definitions, element by element.
inline void round_array_to_e4m3(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_e4m3(x[i]);
}

inline void round_array_to_f16(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_f16(x[i]);
}

inline void add_round_f16(const float* a, const float* b, float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = swinup::round_to_f16(a[i] + b[i]);
}

inline void gelu_to_e4m3(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_e4m3(exact::gelu(x[i]));
}

inline void relu_to_e4m3(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_e4m3(x[i] > 0.0f ? x[i] : 0.0f);
}

}  // namespace
}  // namespace scalar

#if SWINUP_SIMD_X86
SWINUP_TARGET_AVX512_BEGIN
namespace avx512 {
#include "cpu/layers/elementwise_kernels.inc"
}  // namespace avx512
SWINUP_TARGET_AVX512_END

SWINUP_TARGET_AVX2_BEGIN
namespace avx2 {
#include "cpu/layers/elementwise_kernels.inc"
}  // namespace avx2
SWINUP_TARGET_AVX2_END
#endif  // SWINUP_SIMD_X86

void round_array_to_e4m3(float* x, size_t n) { SWINUP_SIMD_DISPATCH(round_array_to_e4m3, x, n); }

void round_array_to_f16(float* x, size_t n) { SWINUP_SIMD_DISPATCH(round_array_to_f16, x, n); }

void add_round_f16(const float* a, const float* b, float* out, size_t n) {
    SWINUP_SIMD_DISPATCH(add_round_f16, a, b, out, n);
}

void gelu_to_e4m3(float* x, size_t n) { SWINUP_SIMD_DISPATCH(gelu_to_e4m3, x, n); }

void relu_to_e4m3(float* x, size_t n) { SWINUP_SIMD_DISPATCH(relu_to_e4m3, x, n); }

}  // namespace swinup::cpu
