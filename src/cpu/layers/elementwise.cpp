#include "cpu/layers/elementwise.h"

#include "core/e4m3.h"
#include "core/exact_math.h"
#include "core/half.h"

namespace swinup::cpu {

void round_array_to_e4m3(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_e4m3(x[i]);
}

void round_array_to_f16(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_f16(x[i]);
}

void add_round_f16(float* acc, const float* add, size_t n) {
    for (size_t i = 0; i < n; ++i) acc[i] = swinup::round_to_f16(acc[i] + add[i]);
}

void gelu_to_e4m3(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_e4m3(exact::gelu(x[i]));
}

void relu_to_e4m3(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = swinup::round_to_e4m3(x[i] > 0.0f ? x[i] : 0.0f);
}

}  // namespace swinup::cpu
