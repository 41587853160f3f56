// The CUDA backend's building blocks against independent host computations: the device e4m3
// encoder against src/numeric/e4m3.h on every f16 value and on random f32 bit patterns, and the FP8
// GEMM against a double-precision reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "numeric/e4m3.h"
#include "numeric/half.h"
#include "gpu_test_support.h"

#ifdef SWINUP_HAVE_CUDA
#include "cuda/tools/cuda_tools.h"
#endif

namespace swinup {
namespace {

TEST(CudaKernels, E4m3EncoderEqualsCpuOnEveryF16Value) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    std::vector<float> values(65536);
    for (uint32_t h = 0; h < 65536; ++h) values[h] = f16_bits_to_f32(static_cast<uint16_t>(h));
    const std::vector<uint8_t> gpu = cuda_tools::encode_e4m3(values);
    int mismatches = 0;
    for (uint32_t h = 0; h < 65536; ++h) {
        const uint8_t cpu = f32_to_e4m3(values[h]);
        if (gpu[h] != cpu && ++mismatches <= 5)
            ADD_FAILURE() << "f16 0x" << std::hex << h << ": gpu 0x" << int(gpu[h]) << " cpu 0x" << int(cpu);
    }
    EXPECT_EQ(mismatches, 0);
#endif
}

TEST(CudaKernels, E4m3EncoderEqualsCpuOnRandomF32) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    std::mt19937 rng(11);
    std::vector<float> values(1 << 20);
    for (float& v : values) {
        // Half the draws near the e4m3 range (exponents 2^-12 .. 2^10), half any bit pattern.
        const uint32_t bits = static_cast<uint32_t>(rng());
        if (bits & 1u) {
            v = bits_to_float(bits);
        } else {
            const uint32_t exponent = 115u + static_cast<uint32_t>(rng() % 22u);
            v = bits_to_float((bits & 0x807fffffu) | (exponent << 23));
        }
    }
    const std::vector<uint8_t> gpu = cuda_tools::encode_e4m3(values);
    int mismatches = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        const uint8_t cpu = f32_to_e4m3(values[i]);
        if (gpu[i] != cpu && ++mismatches <= 5)
            ADD_FAILURE() << "f32 " << values[i] << ": gpu " << int(gpu[i]) << " cpu " << int(cpu);
    }
    EXPECT_EQ(mismatches, 0);
#endif
}

// y = scale * sum(a w) + bias against a double sum. The bound is relative to sum |a w| (the
// accumulator's scale): the tensor core's f32 accumulation stays far inside 2^-12 of it.
TEST(CudaKernels, GemmMatchesDoubleReference) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    std::mt19937 rng(5);
    auto code = [&] {
        uint8_t c;
        do c = static_cast<uint8_t>(rng()); while ((c & 0x7f) == 0x7f);  // no NaN codes
        return c;
    };
    for (const int k : {16, 64, 80, 512}) {
        const int m = 300, n = 48;  // m is not a multiple of the 128-row tile
        std::vector<uint8_t> a(size_t(m) * k), w(size_t(n) * k);
        for (auto& c : a) c = code();
        for (auto& c : w) c = code();
        std::vector<float> scale(n), bias(n);
        for (int o = 0; o < n; ++o) {
            scale[o] = std::ldexp(1.0f, int(rng() % 9) - 10);
            bias[o] = float(int(rng() % 2001) - 1000) / 256.0f;
        }
        const std::vector<float> y = cuda_tools::linear_f32(a, m, k, w, n, scale, bias);
        double worst = 0;
        for (int i = 0; i < m; ++i)
            for (int o = 0; o < n; ++o) {
                double acc = 0, mag = 0;
                for (int j = 0; j < k; ++j) {
                    const double p = double(e4m3_to_f32(a[size_t(i) * k + j])) * e4m3_to_f32(w[size_t(o) * k + j]);
                    acc += p;
                    mag += std::fabs(p);
                }
                const double ref = double(float(float(acc) * scale[o]) + bias[o]);
                const double err = std::fabs(double(y[size_t(i) * n + o]) - ref);
                const double allowed = std::ldexp(mag * scale[o], -12) + std::fabs(ref) * 1e-6 + 1e-30;
                worst = std::max(worst, err / allowed);
                ASSERT_LE(err, allowed) << "k " << k << " row " << i << " col " << o;
            }
        std::printf("[ measured ] gemm k=%d: worst error / (2^-12 sum|a w| scale) = %.3g\n", k, worst);
    }
#endif
}

}  // namespace
}  // namespace swinup
