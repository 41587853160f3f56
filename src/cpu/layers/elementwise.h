// Element-wise steps of the network over float arrays, each the exact rounding point of
// docs/model-spec.md: values are kept as floats that hold exact e4m3 or f16 values.
// Each function gives the same bits as applying the scalar definition (numeric/e4m3.h, numeric/half.h,
// numeric/exact_math.h) element by element; vectorised where the CPU allows.
#pragma once

#include <cstddef>

namespace swinup::cpu {

// x[i] = round_to_e4m3(x[i]) (round to nearest even, saturate to +-448).
void round_array_to_e4m3(float* x, size_t n);

// x[i] = round_to_f16(x[i]).
void round_array_to_f16(float* x, size_t n);

// Residual add: out[i] = round_to_f16(a[i] + b[i]) (the sum in f32, one rounding to f16).
// out may be a or b.
void add_round_f16(const float* a, const float* b, float* out, size_t n);
inline void add_round_f16(float* acc, const float* add, size_t n) { add_round_f16(acc, add, acc, n); }

// x[i] = round_to_e4m3(exact::gelu(x[i])).
void gelu_to_e4m3(float* x, size_t n);

// x[i] = round_to_e4m3(max(x[i], 0)).
void relu_to_e4m3(float* x, size_t n);

}  // namespace swinup::cpu
