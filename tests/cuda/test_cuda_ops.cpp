// Every CUDA kernel on its own against the CPU reference, one table row per case {kernel,
// shape, precision}, in the spirit of ggml's test-backend-ops. Each case builds its inputs on the
// host (odd sizes, edge sizes, NaN / Inf where the spec says what becomes of them), runs the
// kernel once through cuda_tools::run_kernel on guarded device buffers, and checks
//   - the guard bytes before and after every buffer are untouched, and every input buffer is
//     unchanged (single_kernel.h);
//   - the outputs against the CPU reference, with the bound docs/cuda-kernels.md states:
//       exact where the spec says bit-identical: the norms, the frame passes (exposure, input
//       planes, staging, the exact output pass, the recurrent state), head_mlp_input and
//       head_mlp_add; NaN outputs count as equal when both are NaN;
//       the GEMMs: the GPU's output is the CPU epilogue's (the same scale, bias and rounding
//       functions) of an accumulator within 2^-12 sum|a w| of the exact sum ("Bounds against
//       the CPU backend");
//       window attention and the fused blocks: the per-layer bound, relative RMS 2e-2 exact,
//       5e-2 fast; the fused kernels besides equal the layer-by-layer launches byte for byte;
//       the fast output pass: |t(fast) - t(exact)| <= 2^-13 per value, at most one pixel in 10^3
//       beyond.
// Without a GPU every case reports skipped. A `[ measured ]` line per case gives the numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "api/resource_desc.h"
#include "cpu/input_planes.h"
#include "cpu/layers/elementwise.h"
#include "cpu/layers/head.h"
#include "cpu/layers/linear.h"
#include "cpu/layers/matmul.h"
#include "cpu/layers/patch_expand.h"
#include "cpu/layers/patch_merge.h"
#include "cpu/layers/rms_norm.h"
#include "cpu/layers/window_attention.h"
#include "cpu/output_pass.h"
#include "cpu/staging.h"
#include "frame/frame_counts.h"
#include "frame/frame_geometry.h"
#include "frame/frame_sequence.h"
#include "frame/output_pixel.h"
#include "frame/stage_pixel.h"
#include "gpu_test_support.h"
#include "model/model_spec.h"
#include "model/window_map.h"
#include "numeric/e4m3.h"
#include "numeric/exact_math.h"
#include "numeric/float_bits.h"
#include "numeric/half.h"
#include "swinup/swinup.h"

#ifdef SWINUP_HAVE_CUDA
#include "cuda/tools/single_kernel.h"
#endif

namespace swinup {
namespace {

// One row of the table: the kernel (and its variant), its shape (the meaning of each number is the
// runner's, given in the table's comments) and the precision.
struct OpCase {
    std::string op;
    std::vector<int> shape;
    swinup_precision precision = SWINUP_PRECISION_EXACT;
};

std::string case_name(const OpCase& c) {
    std::string name = c.op;
    for (int v : c.shape) {
        name += '_';
        name += std::to_string(v);
    }
    name += c.precision == SWINUP_PRECISION_EXACT ? "_exact" : "_fast";
    return name;
}
std::string test_name(const testing::TestParamInfo<OpCase>& info) { return case_name(info.param); }
void PrintTo(const OpCase& c, std::ostream* os) { *os << case_name(c); }

constexpr swinup_precision kExact = SWINUP_PRECISION_EXACT;
constexpr swinup_precision kFast = SWINUP_PRECISION_FAST;

// The table. Shapes:
//   gemm_*             {M, N, K}; expand: {coarse w, coarse h, C'} with K = 64, N = 4 C';
//                      space_to_depth: {coarse w, coarse h, fine C} (K = 4 fine C);
//                      rms_norm gather: {M, N, C}
//   rms_norm           {tokens, C};   rms_norm_merge {fine w, fine h, C}
//   window_attention   {w, h, C, heads, shifted}
//   head_mlp_input / head_mlp_add {pixels}
//   attention_fused    {w, h, C, heads, shifted};  mlp_fused {tokens, C}
//   block_fused        {w, h, C, heads, shifted}
//   lite_tail_fused*   {w1, h1};  head_fused* {pixels}
//   exposure           {w, h, mode: 0 auto, 1 texture, 2 value}
//   input_planes       {w, h, colour format, mv at display resolution, ldr, depth inverted}
//   staging            {w, h, display w, display h, history}
//   output_*           {w, h, display w, display h, history}
//   recurrent          {w, h, padded w}
const std::vector<OpCase> kCases = {
    // The GEMM, every epilogue and gather; M not a multiple of the 64-row tile, K not of 32.
    {"gemm_store_f32", {1, 16, 16}, kExact},
    {"gemm_store_f32", {63, 16, 32}, kExact},
    {"gemm_store_f32", {300, 48, 80}, kExact},
    {"gemm_store_f32", {130, 32, 512}, kExact},
    {"gemm_store_f32", {64, 128, 96}, kExact},
    {"gemm_store_f32_nan_row", {77, 48, 64}, kExact},
    {"gemm_store_f16", {77, 96, 64}, kExact},
    {"gemm_store_f16", {5, 384, 128}, kExact},
    {"gemm_relu_e4m3", {50, 64, 48}, kExact},
    {"gemm_gelu_e4m3", {129, 256, 64}, kExact},
    {"gemm_gelu_e4m3", {129, 256, 64}, kFast},
    {"gemm_residual_f16", {96, 64, 64}, kExact},
    {"gemm_residual_f16", {33, 128, 512}, kExact},
    {"gemm_expand_f16_skip", {4, 3, 32}, kExact},
    {"gemm_expand_f32_skip", {8, 5, 32}, kExact},
    {"gemm_space_to_depth", {6, 5, 16}, kExact},
    {"gemm_rms_norm", {70, 96, 32}, kExact},
    {"gemm_rms_norm", {70, 96, 32}, kFast},
    {"gemm_rms_norm", {200, 64, 64}, kExact},
    // RMSNorm: rows (odd C too) with a row holding +Inf, one holding NaN and one of zeros; the
    // merge's 2x2 gather.
    {"rms_norm", {1, 8}, kExact},
    {"rms_norm", {33, 32}, kExact},
    {"rms_norm", {100, 64}, kExact},
    {"rms_norm", {40, 96}, kExact},
    {"rms_norm", {17, 128}, kExact},
    {"rms_norm", {33, 32}, kFast},
    {"rms_norm", {100, 64}, kFast},
    {"rms_norm_merge", {8, 6, 32}, kExact},
    {"rms_norm_merge", {16, 4, 64}, kExact},
    {"rms_norm_merge", {8, 6, 32}, kFast},
    // Window attention, head dims 16, 32, 24 and 32, shifted (masked windows) and not.
    {"window_attention", {4, 4, 32, 2, 0}, kExact},
    {"window_attention", {8, 12, 64, 2, 1}, kExact},
    {"window_attention", {12, 8, 96, 4, 1}, kExact},
    {"window_attention", {8, 8, 128, 4, 0}, kExact},
    {"window_attention", {8, 12, 64, 2, 1}, kFast},
    {"window_attention", {12, 8, 96, 4, 1}, kFast},
    // The head MLP's element-wise launches.
    {"head_mlp_input", {32}, kExact},
    {"head_mlp_input", {1000}, kExact},
    {"head_mlp_add", {32}, kExact},
    {"head_mlp_add", {1000}, kExact},
    // The fused kernels: every supported C, one window or tile, several per warp, shifted.
    {"attention_fused", {4, 4, 32, 2, 0}, kExact},
    {"attention_fused", {20, 16, 32, 2, 1}, kExact},
    {"attention_fused", {12, 8, 64, 2, 1}, kExact},
    {"attention_fused", {8, 12, 96, 4, 0}, kExact},
    {"attention_fused", {8, 8, 128, 4, 1}, kExact},
    {"attention_fused", {12, 8, 64, 2, 1}, kFast},
    {"attention_fused", {8, 8, 128, 4, 1}, kFast},
    {"mlp_fused", {1, 32}, kExact},
    {"mlp_fused", {300, 32}, kExact},
    {"mlp_fused", {77, 64}, kExact},
    {"mlp_fused", {48, 96}, kExact},
    {"mlp_fused", {40, 128}, kExact},
    {"mlp_fused", {77, 64}, kFast},
    {"mlp_fused", {40, 128}, kFast},
    // The fused Swin block (C = 32, 64, 96): one window, several, and grids whose windows
    // outnumber an H200's warps of the kernel (132 x 2 x 14, 132 x 16, 132 x 6), so that warps
    // walk several windows (the double buffer's next-window copy at C = 32, the one-buffer refill
    // at 64 and 96).
    {"block_fused", {4, 4, 32, 2, 0}, kExact},
    {"block_fused", {20, 16, 32, 2, 1}, kExact},
    {"block_fused", {12, 8, 64, 2, 1}, kExact},
    {"block_fused", {8, 12, 96, 4, 0}, kExact},
    {"block_fused", {8, 12, 96, 4, 1}, kFast},
    {"block_fused", {20, 16, 32, 2, 1}, kFast},
    {"block_fused", {512, 256, 32, 2, 1}, kFast},
    {"block_fused", {256, 160, 64, 2, 0}, kExact},
    {"block_fused", {128, 112, 96, 4, 1}, kExact},
    {"lite_tail_fused", {16, 1}, kExact},
    {"lite_tail_fused", {32, 3}, kExact},
    {"lite_tail_fused", {32, 3}, kFast},
    {"lite_tail_fused_mlp", {16, 2}, kExact},
    {"lite_tail_fused_mlp", {32, 3}, kFast},
    {"head_fused", {32}, kExact},
    {"head_fused", {1024}, kExact},
    {"head_fused", {96}, kFast},
    {"head_fused_mlp", {96}, kExact},
    {"head_fused_mlp", {1024}, kFast},
    // The frame passes around the network.
    {"exposure", {37, 21, 0}, kExact},
    {"exposure", {8, 3, 1}, kExact},
    {"exposure", {8, 3, 2}, kExact},
    {"input_planes", {37, 21, SWINUP_FORMAT_RGBA32F, 0, 0, 0}, kExact},
    {"input_planes", {37, 21, SWINUP_FORMAT_RGB16F, 1, 1, 1}, kExact},
    {"input_planes", {5, 3, SWINUP_FORMAT_RGBA16F, 0, 1, 0}, kExact},
    {"staging", {37, 21, 74, 42, 1}, kExact},
    {"staging", {32, 32, 48, 48, 0}, kExact},
    {"staging", {13, 7, 39, 21, 1}, kExact},
    {"output_rgba16f", {40, 24, 120, 72, 1}, kExact},
    {"output_rgba16f", {13, 7, 26, 14, 0}, kExact},
    {"output_r10g10b10a2", {36, 20, 72, 40, 1}, kExact},
    {"output_rgba8", {30, 20, 45, 30, 1}, kExact},
    {"output_rgba16f", {40, 24, 120, 72, 1}, kFast},
    {"output_rgba16f", {4, 3, 12, 9, 1}, kFast},
    {"recurrent", {37, 21, 64}, kExact},
    {"recurrent", {1, 1, 32}, kExact},
};

#ifdef SWINUP_HAVE_CUDA
using cuda_tools::KernelBuffers;
using cuda_tools::KernelCall;
using cuda_tools::KernelRun;

// ---- bytes and values ---------------------------------------------------------------------------
template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
    std::vector<uint8_t> b(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
    return b;
}
template <class T>
std::vector<T> values_of(const std::vector<uint8_t>& b) {
    std::vector<T> v(b.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
    return v;
}
constexpr uint8_t kPoison = 0xcd;  // output buffers start as this: an unwritten output shows
std::vector<uint8_t> poison(size_t bytes) { return std::vector<uint8_t>(bytes, kPoison); }

// Every element through `convert`: e4m3 codes and f16 bits to floats and back.
template <class To, class From>
std::vector<To> converted(const std::vector<From>& from, To (*convert)(From)) {
    std::vector<To> to(from.size());
    for (size_t i = 0; i < to.size(); ++i) to[i] = convert(from[i]);
    return to;
}
std::vector<float> decode_e4m3(const std::vector<uint8_t>& codes) { return converted(codes, e4m3_to_f32); }
std::vector<float> decode_f16(const std::vector<uint16_t>& bits) { return converted(bits, f16_bits_to_f32); }
std::vector<uint8_t> encode_e4m3(const std::vector<float>& v) { return converted(v, f32_to_e4m3); }
std::vector<uint16_t> encode_f16(const std::vector<float>& v) { return converted(v, f32_to_f16_bits); }

// ---- random inputs ----------------------------------------------------------------------------
struct Random {
    std::mt19937 rng;
    explicit Random(uint32_t seed) : rng(seed) {}
    float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); }
    float normal(float sigma) { return std::normal_distribution<float>(0.0f, sigma)(rng); }
    // e4m3 codes of N(0, sigma) values (never NaN).
    std::vector<uint8_t> e4m3(size_t n, float sigma) {
        std::vector<uint8_t> c(n);
        for (auto& x : c) x = f32_to_e4m3(normal(sigma));
        return c;
    }
    // Any non-NaN e4m3 code: the whole range, 448 and subnormals included.
    std::vector<uint8_t> e4m3_any(size_t n) {
        std::vector<uint8_t> c(n);
        for (auto& x : c) {
            do x = static_cast<uint8_t>(rng()); while ((x & 0x7f) == 0x7f);
        }
        return c;
    }
    std::vector<uint16_t> f16(size_t n, float sigma) {
        std::vector<uint16_t> h(n);
        for (auto& x : h) x = f32_to_f16_bits(normal(sigma));
        return h;
    }
    std::vector<float> floats(size_t n, float lo, float hi) {
        std::vector<float> v(n);
        for (auto& x : v) x = uniform(lo, hi);
        return v;
    }
    // Power-of-two scales 2^-8 .. 2^0 (the weights' per-channel scales are such), signed biases.
    std::vector<float> scales(size_t n, int low = -8, int high = 0) {
        std::vector<float> v(n);
        for (auto& x : v) x = std::ldexp(1.0f, low + int(rng() % unsigned(high - low + 1)));
        return v;
    }
};

// ---- checks -----------------------------------------------------------------------------------
// One kernel launch through cuda_tools; fails the test on damaged guards and on any input
// buffer (a name not in `written`) that came back changed.
KernelRun launch(const KernelCall& call, const std::set<std::string>& written) {
    const KernelRun run = cuda_tools::run_kernel(call);
    for (const std::string& d : run.damaged) ADD_FAILURE() << call.kernel << ": " << d;
    for (const auto& [name, bytes] : call.buffers) {
        if (!written.count(name)) {
            EXPECT_TRUE(run.buffers.at(name) == bytes) << call.kernel << " changed its input buffer " << name;
        }
    }
    return run;
}

bool same_value(float a, float b) { return float_to_bits(a) == float_to_bits(b) || (std::isnan(a) && std::isnan(b)); }

// Bit-identical float arrays (NaN equal to NaN).
void expect_same_floats(const std::vector<float>& gpu, const std::vector<float>& cpu, const std::string& what) {
    ASSERT_EQ(gpu.size(), cpu.size()) << what;
    size_t bad = 0;
    for (size_t i = 0; i < cpu.size(); ++i)
        if (!same_value(gpu[i], cpu[i]) && ++bad <= 5)
            ADD_FAILURE() << what << "[" << i << "]: gpu " << gpu[i] << " cpu " << cpu[i];
    EXPECT_EQ(bad, 0u) << what << ": values that differ";
}
template <class T>
void expect_same_codes(const std::vector<T>& gpu, const std::vector<T>& cpu, const std::string& what) {
    ASSERT_EQ(gpu.size(), cpu.size()) << what;
    size_t bad = 0;
    for (size_t i = 0; i < cpu.size(); ++i)
        if (gpu[i] != cpu[i] && ++bad <= 5)
            ADD_FAILURE() << what << "[" << i << "]: gpu 0x" << std::hex << unsigned(gpu[i]) << " cpu 0x"
                          << unsigned(cpu[i]) << std::dec;
    EXPECT_EQ(bad, 0u) << what << ": codes that differ";
}
// The per-layer bounds of docs/cuda-kernels.md (tests/cuda/test_cuda_network.cpp): relative RMS
// against the CPU, NaN positions identical.
double layer_bound(swinup_precision p) { return p == kExact ? 2e-2 : 5e-2; }
void expect_within_layer_bound(const std::vector<float>& gpu, const std::vector<float>& cpu, swinup_precision p,
                               const std::string& what) {
    ASSERT_EQ(gpu.size(), cpu.size()) << what;
    std::vector<float> g, c;
    size_t nan_mismatch = 0;
    for (size_t i = 0; i < cpu.size(); ++i) {
        if (std::isnan(cpu[i]) || std::isnan(gpu[i])) {
            nan_mismatch += std::isnan(cpu[i]) != std::isnan(gpu[i]);
            continue;
        }
        g.push_back(gpu[i]);
        c.push_back(cpu[i]);
    }
    EXPECT_EQ(nan_mismatch, 0u) << what << ": NaN in one and not the other";
    const double err = gpu_test::relative_rms(g, c);
    size_t identical = 0;
    for (size_t i = 0; i < c.size(); ++i) identical += float_to_bits(g[i]) == float_to_bits(c[i]);
    std::printf("[ measured ] %s: relative RMS %.3e (bound %.0e), %zu of %zu values identical\n", what.c_str(), err,
                layer_bound(p), identical, c.size());
    EXPECT_LE(err, layer_bound(p)) << what;
}

// ---- the GEMM -----------------------------------------------------------------------------------
enum Epilogue { kStoreF16 = 0, kStoreF32, kReluE4m3, kGeluE4m3, kResidualF16, kExpandF16 };  // GemmEpilogue's order
enum Gather { kRows = 0, kSpaceToDepth, kRmsNorm };                                           // GemmGather's order

// A linear layer's operands: codes [n][k], their zero-padded device layout [n][k_padded].
struct LinearOperands {
    int in = 0, out = 0;
    std::vector<uint8_t> w;
    std::vector<float> scale, bias;
    cpu::Linear cpu() const {
        cpu::Linear l;
        l.in = in;
        l.out = out;
        const std::vector<float> decoded = decode_e4m3(w);
        l.weight = cpu::pack_matrix(decoded.data(), in, out);
        l.scale = scale;
        l.bias = bias;
        return l;
    }
    int k_padded() const { return (in + 31) / 32 * 32; }
    std::vector<uint8_t> padded(int rows_padded = 0) const {
        const int rows = std::max(rows_padded, out);
        std::vector<uint8_t> p(size_t(rows) * k_padded(), 0);
        for (int o = 0; o < out; ++o) std::memcpy(&p[size_t(o) * k_padded()], &w[size_t(o) * in], size_t(in));
        return p;
    }
};
LinearOperands random_linear(Random& r, int in, int out, float bias_range = 0.5f) {
    LinearOperands l;
    l.in = in;
    l.out = out;
    l.w = r.e4m3(size_t(in) * out, 1.0f / std::sqrt(float(in)));
    l.scale = r.scales(size_t(out), -2, 1);
    l.bias = r.floats(size_t(out), -bias_range, bias_range);
    return l;
}

// A GemmArgs call for a linear layer; gather / epilogue specifics are added by the caller.
KernelCall gemm_call(const LinearOperands& l, std::vector<uint8_t> a, int lda, int m, Epilogue e,
                     std::vector<uint8_t> out, swinup_precision p, int n_padded = 0) {
    KernelCall c;
    c.kernel = "gemm_e4m3";
    c.precision = p;
    const int n = std::max(n_padded, l.out);
    c.ints = {{"m", m}, {"n", n}, {"k_padded", l.k_padded()}, {"lda", lda}, {"a_cols", l.in},
              {"gather", kRows}, {"epilogue", e}, {"grid_width", m}};
    std::vector<float> scale = l.scale, bias = l.bias;
    scale.resize(size_t(n), 0.0f);
    bias.resize(size_t(n), 0.0f);
    c.buffers = {{"a", std::move(a)}, {"w", l.padded(n)}, {"scale", bytes_of(scale)}, {"bias", bytes_of(bias)},
                 {"out", std::move(out)}};
    return c;
}
// e4m3 rows [m][k] as the GEMM's A: rows of lda = k rounded up to 16 bytes.
std::vector<uint8_t> a_rows(const std::vector<uint8_t>& a, int m, int k) {
    const int lda = (k + 15) / 16 * 16;
    std::vector<uint8_t> p(size_t(m) * lda, 0);
    for (int i = 0; i < m; ++i) std::memcpy(&p[size_t(i) * lda], &a[size_t(i) * k], size_t(k));
    return p;
}

// The epilogue as the CPU computes it, on an f32 accumulator: t = acc * scale; y = t + bias; then
// the layer's rounding. `operand`: the residual's old value or the expand's skip.
float cpu_epilogue(Epilogue e, float acc, float scale, float bias, float operand) {
    const float y = exact::add(exact::mul(acc, scale), bias);
    switch (e) {
        case kStoreF16: return round_to_f16(y);
        case kStoreF32: return y;
        case kReluE4m3: return round_to_e4m3(y > 0.0f ? y : 0.0f);
        case kGeluE4m3: return round_to_e4m3(exact::gelu(y));
        case kResidualF16: return round_to_f16(exact::add(operand, y));
        case kExpandF16: return round_to_f16(exact::add(y, operand));
    }
    return y;
}

// The GEMM bound: the GPU's value must be the CPU epilogue's of some f32 accumulator within
// E = 2^-12 sum|a w| of the exact sum (docs/cuda-kernels.md, "Bounds against the CPU backend":
// the tensor core's accumulation measured about 2^-22 of it). The epilogues are monotonic in the
// accumulator except GELU near its minimum, where it is flat; the ends and the exact sum bracket
// the allowed values. Rows holding a NaN operand must be NaN in every column.
struct GemmCheck {
    size_t values = 0, outside = 0, identical = 0;
    double worst = 0;  // |gpu - epilogue(exact)| / (allowed half-width), over finite values
};
void check_gemm_value(GemmCheck& s, Epilogue e, double exact_acc, double magnitude, float scale, float bias,
                      float operand, float gpu, const std::string& where) {
    ++s.values;
    const float mid = cpu_epilogue(e, float(exact_acc), scale, bias, operand);
    if (std::isnan(mid)) {  // a NaN operand (or Inf - Inf): NaN whatever the accumulator
        if (!std::isnan(gpu) && ++s.outside <= 5) ADD_FAILURE() << where << ": gpu " << gpu << ", the CPU's is NaN";
        return;
    }
    const double err = std::ldexp(magnitude, -12);
    const float lo = std::nextafter(float(exact_acc - err), -INFINITY);
    const float hi = std::nextafter(float(exact_acc + err), INFINITY);
    const float a = cpu_epilogue(e, lo, scale, bias, operand), b = cpu_epilogue(e, hi, scale, bias, operand);
    const float min_v = std::min({a, b, mid}), max_v = std::max({a, b, mid});
    s.identical += float_to_bits(gpu) == float_to_bits(mid);
    if (!(gpu >= min_v && gpu <= max_v)) {
        if (++s.outside <= 5)
            ADD_FAILURE() << where << ": gpu " << gpu << " outside [" << min_v << ", " << max_v << "] (exact sum "
                          << exact_acc << ")";
        return;
    }
    const double half = std::max(double(max_v) - double(min_v), 1e-30);
    s.worst = std::max(s.worst, std::fabs(double(gpu) - double(mid)) / half);
}

// Exact sum and sum |a w| in double (exact: each e4m3 product is exact and a K <= 512 sum of them
// needs fewer than 53 bits).
void exact_dot(const float* a, const float* w, int k, double* acc, double* magnitude) {
    double s = 0, m = 0;
    for (int j = 0; j < k; ++j) {
        const double p = double(a[j]) * double(w[j]);
        s += p;
        m += std::fabs(p);
    }
    *acc = s;
    *magnitude = m;
}

void run_gemm(const OpCase& c) {
    Random r(uint32_t(c.shape[0] * 131 + c.shape[1] * 7 + c.shape[2]));
    const std::string& op = c.op;
    if (op == "gemm_expand_f16_skip" || op == "gemm_expand_f32_skip") {
        // expand: coarse w x h tokens of K = 64 e4m3 rows -> N = 4 C' columns, depth-to-space
        // onto the fine grid with the skip added.
        const int w = c.shape[0], h = c.shape[1], cp = c.shape[2], k = 64, m = w * h, n = 4 * cp;
        const bool f32_skip = op == "gemm_expand_f32_skip";
        const LinearOperands l = random_linear(r, k, n);
        const std::vector<uint8_t> a = r.e4m3(size_t(m) * k, 1.0f);
        const size_t fine = size_t(4) * m * cp;
        std::vector<float> skip(fine);
        for (auto& v : skip) v = f32_skip ? r.normal(1.0f) : round_to_f16(r.normal(1.0f));
        KernelCall call = gemm_call(l, a_rows(a, m, k), k, m, kExpandF16, poison(fine * 2), c.precision);
        call.ints["grid_width"] = w;
        call.ints["skip_f32"] = f32_skip ? 1 : 0;
        call.buffers["skip"] = f32_skip ? bytes_of(skip) : bytes_of(encode_f16(skip));
        const KernelRun run = launch(call, {"out"});
        const std::vector<float> out = decode_f16(values_of<uint16_t>(run.buffers.at("out")));
        const std::vector<float> af = decode_e4m3(a), wf = decode_e4m3(l.w);
        GemmCheck s;
        for (int t = 0; t < m; ++t)
            for (int o = 0; o < n; ++o) {
                const int q = o / cp, ch = o % cp, x = t % w, y = t / w;
                const size_t f = (size_t(2 * y + q / 2) * (2 * w) + 2 * x + q % 2) * cp + ch;
                double acc, mag;
                exact_dot(&af[size_t(t) * k], &wf[size_t(o) * k], k, &acc, &mag);
                check_gemm_value(s, kExpandF16, acc, mag, l.scale[o], l.bias[o], skip[f], out[f],
                                 "token " + std::to_string(t) + " col " + std::to_string(o));
            }
        EXPECT_EQ(s.outside, 0u);
        std::printf("[ measured ] %s: %zu of %zu values the CPU's bits, worst |gpu - cpu| %.2g of the bound\n",
                    op.c_str(), s.identical, s.values, s.worst);
        return;
    }

    const int m = op == "gemm_space_to_depth" ? c.shape[0] * c.shape[1] : c.shape[0];
    const int n = op == "gemm_space_to_depth" ? 32 : c.shape[1];
    const int k = op == "gemm_space_to_depth" ? 4 * c.shape[2] : c.shape[2];
    Epilogue e = kStoreF32;
    if (op == "gemm_store_f16") e = kStoreF16;
    if (op == "gemm_relu_e4m3") e = kReluE4m3;
    if (op == "gemm_gelu_e4m3") e = kGeluE4m3;
    if (op == "gemm_residual_f16") e = kResidualF16;
    if (op == "gemm_space_to_depth" || op == "gemm_rms_norm") e = kStoreF16;
    LinearOperands l = random_linear(r, k, n);
    if (e == kReluE4m3) {  // outputs past 448 too: the encoder saturates
        l.w = r.e4m3_any(size_t(n) * k);
        l.scale = r.scales(size_t(n), -12, -2);
    }
    std::vector<float> af;  // the A rows the CPU multiplies (e4m3 values)
    std::vector<uint8_t> a_bytes;
    KernelCall call;
    const int out_bytes = e == kStoreF32 ? 4 : (e == kReluE4m3 || e == kGeluE4m3) ? 1 : 2;
    std::vector<float> residual;  // kResidualF16: the old outputs
    if (op == "gemm_space_to_depth") {
        // The lite embedding's gather: coarse token (x, y) reads its 2x2 fine rows of k / 4 bytes.
        const int w = c.shape[0], h = c.shape[1], fc = c.shape[2];
        const std::vector<uint8_t> fine = r.e4m3(size_t(4) * m * fc, 1.0f);
        af.resize(size_t(m) * k);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int q = 0; q < 4; ++q)
                    for (int ch = 0; ch < fc; ++ch)
                        af[(size_t(y) * w + x) * k + q * fc + ch] =
                            e4m3_to_f32(fine[(size_t(2 * y + q / 2) * (2 * w) + 2 * x + q % 2) * fc + ch]);
        call = gemm_call(l, fine, fc, m, e, poison(size_t(m) * n * out_bytes), c.precision);
        call.ints["gather"] = kSpaceToDepth;
        call.ints["grid_width"] = w;
    } else if (op == "gemm_rms_norm") {
        // The fused norm: f16 rows normalised into the A tile (the norm kernel's bytes).
        const std::vector<uint16_t> x = r.f16(size_t(m) * k, 1.0f);
        const std::vector<float> gain = r.floats(size_t(k), 0.5f, 1.5f);
        af.resize(size_t(m) * k);
        cpu::rms_norm_e4m3(decode_f16(x).data(), m, k, gain.data(), af.data());
        call = gemm_call(l, bytes_of(x), 2 * k, m, e, poison(size_t(m) * n * out_bytes), c.precision);
        call.ints["gather"] = kRmsNorm;
        call.buffers["norm_gain"] = bytes_of(gain);
    } else {
        std::vector<uint8_t> a = r.e4m3(size_t(m) * k, 1.0f);
        if (op == "gemm_store_f32_nan_row") a[size_t(5) * k + 3] = kE4m3NaN;  // row 5: every output NaN
        af = decode_e4m3(a);
        std::vector<uint8_t> out = poison(size_t(m) * n * out_bytes);
        if (e == kResidualF16) {
            std::vector<uint16_t> old = r.f16(size_t(m) * n, 2.0f);
            old[3] = 0x7c00;  // +Inf stays Inf (plus a finite y)
            old[7] = 0x7e00;  // NaN stays NaN
            residual = decode_f16(old);
            out = bytes_of(old);
        }
        call = gemm_call(l, a_rows(a, m, k), (k + 15) / 16 * 16, m, e, std::move(out), c.precision);
    }
    const KernelRun run = launch(call, {"out"});
    const std::vector<uint8_t>& ob = run.buffers.at("out");
    std::vector<float> out;
    if (out_bytes == 4) out = values_of<float>(ob);
    else if (out_bytes == 2) out = decode_f16(values_of<uint16_t>(ob));
    else out = decode_e4m3(ob);
    const std::vector<float> wf = decode_e4m3(l.w);
    if (c.precision == kFast) {
        // Fast mode's GELU (f16x2 tanh.approx) and norm (rsqrt.approx): the per-layer bound
        // against the CPU's exact layer.
        std::vector<float> cpu_out(size_t(m) * n);
        cpu::linear(l.cpu(), af.data(), m, cpu_out.data());
        if (e == kGeluE4m3) cpu::gelu_to_e4m3(cpu_out.data(), cpu_out.size());
        if (e == kStoreF16) cpu::round_array_to_f16(cpu_out.data(), cpu_out.size());
        ASSERT_TRUE(e == kGeluE4m3 || e == kStoreF16) << "fast mode changes only GELU and the norm";
        expect_within_layer_bound(out, cpu_out, c.precision, op + " fast");
        return;
    }
    GemmCheck s;
    for (int i = 0; i < m; ++i)
        for (int o = 0; o < n; ++o) {
            double acc, mag;
            exact_dot(&af[size_t(i) * k], &wf[size_t(o) * k], k, &acc, &mag);
            const float operand = e == kResidualF16 ? residual[size_t(i) * n + o] : 0.0f;
            check_gemm_value(s, e, acc, mag, l.scale[o], l.bias[o], operand, out[size_t(i) * n + o],
                             "row " + std::to_string(i) + " col " + std::to_string(o));
        }
    EXPECT_EQ(s.outside, 0u);
    std::printf("[ measured ] %s %dx%dx%d: %zu of %zu values the CPU's bits, worst |gpu - cpu| %.2g of the bound\n",
                op.c_str(), m, n, k, s.identical, s.values, s.worst);
}

// ---- RMSNorm ------------------------------------------------------------------------------------
// f16 rows with an Inf row, a NaN row and a zero row (the spec's IEEE sequence: Inf -> inverse 0
// -> NaN where x is Inf, 0 elsewhere; NaN throughout; zeros -> 0).
std::vector<uint16_t> norm_rows(Random& r, int rows, int channels) {
    std::vector<uint16_t> x = r.f16(size_t(rows) * channels, 1.5f);
    if (rows > 3) {
        x[size_t(1) * channels + 2] = 0x7c00;
        x[size_t(2) * channels + 1] = 0x7e00;
        std::fill(x.begin() + 3 * channels, x.begin() + 4 * channels, uint16_t{0});
    }
    return x;
}

void compare_norm(const std::vector<uint8_t>& gpu, const std::vector<float>& cpu, swinup_precision p,
                  const std::string& what) {
    if (p == kExact) {
        expect_same_codes(gpu, encode_e4m3(cpu), what);  // spec: bit-identical
    } else {
        expect_within_layer_bound(decode_e4m3(gpu), cpu, p, what);
    }
}

void run_rms_norm(const OpCase& c) {
    Random r(uint32_t(c.shape[0] * 17 + c.shape[1]));
    if (c.op == "rms_norm_merge") {
        const int fw = c.shape[0], fh = c.shape[1], ch = c.shape[2], cw = fw / 2, tokens = (fw / 2) * (fh / 2);
        const std::vector<uint16_t> x = norm_rows(r, fw * fh, ch);
        const std::vector<float> gain = r.floats(size_t(4) * ch, 0.5f, 1.5f);
        KernelCall call;
        call.kernel = "rms_norm_e4m3";
        call.precision = c.precision;
        call.ints = {{"channels", ch}, {"gather", 1}, {"tokens", tokens}, {"grid_width", cw}};
        call.buffers = {{"x", bytes_of(x)}, {"gain", bytes_of(gain)}, {"out", poison(size_t(tokens) * 4 * ch)}};
        const KernelRun run = launch(call, {"out"});
        const std::vector<float> xf = decode_f16(x);
        std::vector<float> gathered(size_t(tokens) * 4 * ch), cpu(gathered.size());
        for (int t = 0; t < tokens; ++t)
            cpu::gather_quadrants(xf.data(), fw, ch, t % cw, t / cw, &gathered[size_t(t) * 4 * ch]);
        cpu::rms_norm_e4m3(gathered.data(), tokens, 4 * ch, gain.data(), cpu.data());
        compare_norm(run.buffers.at("out"), cpu, c.precision, "rms_norm merge");
        return;
    }
    const int tokens = c.shape[0], ch = c.shape[1];
    const std::vector<uint16_t> x = norm_rows(r, tokens, ch);
    const std::vector<float> gain = r.floats(size_t(ch), 0.5f, 1.5f);
    KernelCall call;
    call.kernel = "rms_norm_e4m3";
    call.precision = c.precision;
    call.ints = {{"channels", ch}, {"gather", 0}, {"tokens", tokens}, {"grid_width", tokens}};
    call.buffers = {{"x", bytes_of(x)}, {"gain", bytes_of(gain)}, {"out", poison(size_t(tokens) * ch)}};
    const KernelRun run = launch(call, {"out"});
    std::vector<float> cpu(size_t(tokens) * ch);
    cpu::rms_norm_e4m3(decode_f16(x).data(), tokens, ch, gain.data(), cpu.data());
    compare_norm(run.buffers.at("out"), cpu, c.precision, "rms_norm");
}

// ---- window attention ---------------------------------------------------------------------------
// The CPU's attention over every window of the grid: qkv rows gathered through the window map,
// Swin's mask where the window has one, the outputs scattered back (swin_block.cpp's order).
std::vector<float> cpu_attention(const std::vector<float>& qkv, int w, int h, int ch, int heads,
                                 const std::vector<float>& rel_bias, bool shifted) {
    std::vector<float> out(size_t(w) * h * ch), win_qkv(size_t(kWindowTokens) * 3 * ch), win_out(size_t(kWindowTokens) * ch);
    for (int win = 0; win < window_count(w, h); ++win) {
        int index[kWindowTokens];
        for (int t = 0; t < kWindowTokens; ++t) {
            index[t] = window_token_index(win, t, w, h, shifted);
            std::memcpy(&win_qkv[size_t(t) * 3 * ch], &qkv[size_t(index[t]) * 3 * ch], sizeof(float) * 3 * ch);
        }
        uint32_t mask[kWindowTokens];
        const bool masked = window_has_mask(win, w, h, shifted);
        for (int q = 0; masked && q < kWindowTokens; ++q) mask[q] = window_key_mask(win, q, w, h, shifted);
        cpu::window_attention(win_qkv.data(), ch, heads, rel_bias.data(), masked ? mask : nullptr, win_out.data());
        for (int t = 0; t < kWindowTokens; ++t)
            std::memcpy(&out[size_t(index[t]) * ch], &win_out[size_t(t) * ch], sizeof(float) * ch);
    }
    return out;
}

void run_window_attention(const OpCase& c) {
    const int w = c.shape[0], h = c.shape[1], ch = c.shape[2], heads = c.shape[3];
    const bool shifted = c.shape[4] != 0;
    Random r(uint32_t(w * 13 + h * 7 + ch));
    const std::vector<uint16_t> qkv = r.f16(size_t(w) * h * 3 * ch, 1.0f);
    const std::vector<uint16_t> rel = r.f16(size_t(heads) * kWindowTokens * kWindowTokens, 0.5f);
    KernelCall call;
    call.kernel = "window_attention";
    call.precision = c.precision;
    call.ints = {{"width", w}, {"height", h}, {"channels", ch}, {"heads", heads}, {"shifted", shifted ? 1 : 0}};
    call.buffers = {{"qkv", bytes_of(qkv)}, {"rel_bias", bytes_of(rel)}, {"out", poison(size_t(w) * h * ch)}};
    const KernelRun run = launch(call, {"out"});
    const std::vector<float> cpu = cpu_attention(decode_f16(qkv), w, h, ch, heads, decode_f16(rel), shifted);
    expect_within_layer_bound(decode_e4m3(run.buffers.at("out")), cpu, c.precision, "window_attention");
}

// ---- the head MLP's element-wise launches ------------------------------------------------------------
void run_head_mlp_elementwise(const OpCase& c) {
    const int pixels = c.shape[0];
    Random r(static_cast<uint32_t>(pixels));
    if (c.op == "head_mlp_input") {
        const std::vector<uint8_t> normed = r.e4m3_any(size_t(pixels) * 32), staged = r.e4m3_any(size_t(pixels) * kSlots);
        KernelCall call;
        call.kernel = "head_mlp_input";
        call.ints = {{"pixels", pixels}};
        call.buffers = {{"normed", normed}, {"staged", staged}, {"out", poison(size_t(pixels) * 48)}};
        const KernelRun run = launch(call, {"out"});
        std::vector<uint8_t> cpu(size_t(pixels) * 48);
        for (int p = 0; p < pixels; ++p) {
            std::memcpy(&cpu[size_t(p) * 48], &normed[size_t(p) * 32], 32);
            std::memcpy(&cpu[size_t(p) * 48 + 32], &staged[size_t(p) * kSlots], kSlots);
        }
        expect_same_codes(run.buffers.at("out"), cpu, "head_mlp_input");
        return;
    }
    // head[p][k] += y3[p][k] for k < 8 (IEEE adds: Inf, NaN and -0 follow); k >= 8 untouched.
    std::vector<float> y3 = r.floats(size_t(pixels) * 16, -4.0f, 4.0f), head = r.floats(size_t(pixels) * 16, -4.0f, 4.0f);
    head[0] = INFINITY;
    y3[1] = -INFINITY;
    head[2] = std::numeric_limits<float>::quiet_NaN();
    head[3] = -0.0f;
    y3[3] = -0.0f;
    head[9] = -0.0f;  // an untouched output keeps its sign
    head[16] = INFINITY;
    y3[16] = -INFINITY;  // Inf - Inf = NaN
    KernelCall call;
    call.kernel = "head_mlp_add";
    call.ints = {{"pixels", pixels}};
    call.buffers = {{"y3", bytes_of(y3)}, {"head", bytes_of(head)}};
    const KernelRun run = launch(call, {"head"});
    std::vector<float> cpu = head;
    for (int p = 0; p < pixels; ++p)
        for (int k = 0; k < 8; ++k) cpu[size_t(p) * 16 + k] = exact::add(head[size_t(p) * 16 + k], y3[size_t(p) * 16 + k]);
    expect_same_floats(values_of<float>(run.buffers.at("head")), cpu, "head_mlp_add");  // bits: -0 is not +0
}

// ---- the fused blocks -----------------------------------------------------------------------------
struct BlockOperands {
    int ch = 0, heads = 0;
    std::vector<float> norm1, norm2;
    LinearOperands qkv, proj, fc1, fc2;
    std::vector<uint16_t> rel_bias;
};
BlockOperands random_block(Random& r, int ch, int heads) {
    BlockOperands b;
    b.ch = ch;
    b.heads = heads;
    b.norm1 = r.floats(size_t(ch), 0.5f, 1.5f);
    b.norm2 = r.floats(size_t(ch), 0.5f, 1.5f);
    b.qkv = random_linear(r, ch, 3 * ch);
    b.proj = random_linear(r, ch, ch);
    b.fc1 = random_linear(r, ch, 4 * ch);
    b.fc2 = random_linear(r, 4 * ch, ch);
    b.rel_bias = r.f16(size_t(heads) * kWindowTokens * kWindowTokens, 0.5f);
    return b;
}

// The layer-by-layer launches of a block's attention half on the GPU (network_cuda.cu's
// attention_half_unfused with the norm kernel): the bytes the fused kernel must equal.
std::vector<uint8_t> gpu_attention_unfused(const BlockOperands& b, const std::vector<uint8_t>& x, int w, int h,
                                           bool shifted, swinup_precision p) {
    const int tokens = w * h, ch = b.ch;
    KernelCall norm;
    norm.kernel = "rms_norm_e4m3";
    norm.precision = p;
    norm.ints = {{"channels", ch}, {"gather", 0}, {"tokens", tokens}, {"grid_width", w}};
    norm.buffers = {{"x", x}, {"gain", bytes_of(b.norm1)}, {"out", poison(size_t(tokens) * ch)}};
    const std::vector<uint8_t> normed = launch(norm, {"out"}).buffers.at("out");
    const std::vector<uint8_t> qkv =
        launch(gemm_call(b.qkv, normed, ch, tokens, kStoreF16, poison(size_t(tokens) * 6 * ch), p), {"out"})
            .buffers.at("out");
    KernelCall att;
    att.kernel = "window_attention";
    att.precision = p;
    att.ints = {{"width", w}, {"height", h}, {"channels", ch}, {"heads", b.heads}, {"shifted", shifted ? 1 : 0}};
    att.buffers = {{"qkv", qkv}, {"rel_bias", bytes_of(b.rel_bias)}, {"out", poison(size_t(tokens) * ch)}};
    const std::vector<uint8_t> attended = launch(att, {"out"}).buffers.at("out");
    return launch(gemm_call(b.proj, attended, ch, tokens, kResidualF16, x, p), {"out"}).buffers.at("out");
}

std::vector<uint8_t> gpu_mlp_unfused(const BlockOperands& b, const std::vector<uint8_t>& x, int tokens,
                                     swinup_precision p) {
    const int ch = b.ch;
    KernelCall norm;
    norm.kernel = "rms_norm_e4m3";
    norm.precision = p;
    norm.ints = {{"channels", ch}, {"gather", 0}, {"tokens", tokens}, {"grid_width", tokens}};
    norm.buffers = {{"x", x}, {"gain", bytes_of(b.norm2)}, {"out", poison(size_t(tokens) * ch)}};
    const std::vector<uint8_t> normed = launch(norm, {"out"}).buffers.at("out");
    const std::vector<uint8_t> hidden =
        launch(gemm_call(b.fc1, normed, ch, tokens, kGeluE4m3, poison(size_t(tokens) * 4 * ch), p), {"out"})
            .buffers.at("out");
    return launch(gemm_call(b.fc2, hidden, 4 * ch, tokens, kResidualF16, x, p), {"out"}).buffers.at("out");
}

void run_attention_fused(const OpCase& c) {
    const int w = c.shape[0], h = c.shape[1], ch = c.shape[2], heads = c.shape[3], tokens = w * h;
    const bool shifted = c.shape[4] != 0;
    Random r(uint32_t(w * 5 + h * 3 + ch));
    const BlockOperands b = random_block(r, ch, heads);
    const std::vector<uint16_t> x = r.f16(size_t(tokens) * ch, 1.0f);
    if (!cuda_tools::fused_kernel_fits("attention_fused", ch, heads, false))
        GTEST_SKIP() << "attention_fused does not fit this device for C = " << ch;
    KernelCall call;
    call.kernel = "attention_fused";
    call.precision = c.precision;
    call.ints = {{"width", w}, {"height", h}, {"channels", ch}, {"heads", heads}, {"shifted", shifted ? 1 : 0}};
    call.buffers = {{"x", bytes_of(x)}, {"norm_gain", bytes_of(b.norm1)}, {"w_qkv", b.qkv.w},
                    {"scale_qkv", bytes_of(b.qkv.scale)}, {"bias_qkv", bytes_of(b.qkv.bias)},
                    {"rel_bias", bytes_of(b.rel_bias)}, {"w_proj", b.proj.w},
                    {"scale_proj", bytes_of(b.proj.scale)}, {"bias_proj", bytes_of(b.proj.bias)}};
    const KernelRun run = launch(call, {"x"});
    const std::vector<uint8_t>& fused = run.buffers.at("x");
    EXPECT_TRUE(fused == gpu_attention_unfused(b, bytes_of(x), w, h, shifted, c.precision))
        << "attention_fused differs from the layer-by-layer launches";

    // The CPU: norm1 -> qkv -> f16 -> attention per window -> proj -> residual, token order.
    const std::vector<float> xf = decode_f16(x);
    std::vector<float> normed(size_t(tokens) * ch), qkv(size_t(tokens) * 3 * ch), proj(size_t(tokens) * ch), cpu = xf;
    cpu::rms_norm_e4m3(xf.data(), tokens, ch, b.norm1.data(), normed.data());
    cpu::linear(b.qkv.cpu(), normed.data(), tokens, qkv.data());
    cpu::round_array_to_f16(qkv.data(), qkv.size());
    const std::vector<float> attended = cpu_attention(qkv, w, h, ch, heads, decode_f16(b.rel_bias), shifted);
    cpu::linear(b.proj.cpu(), attended.data(), tokens, proj.data());
    cpu::add_round_f16(cpu.data(), proj.data(), cpu.size());
    expect_within_layer_bound(decode_f16(values_of<uint16_t>(fused)), cpu, c.precision, "attention_fused");
}

void run_mlp_fused(const OpCase& c) {
    const int tokens = c.shape[0], ch = c.shape[1];
    Random r(uint32_t(tokens * 3 + ch));
    const BlockOperands b = random_block(r, ch, 2);
    const std::vector<uint16_t> x = r.f16(size_t(tokens) * ch, 1.0f);
    if (!cuda_tools::fused_kernel_fits("mlp_fused", ch, 0, false))
        GTEST_SKIP() << "mlp_fused does not fit this device for C = " << ch;
    KernelCall call;
    call.kernel = "mlp_fused";
    call.precision = c.precision;
    call.ints = {{"m", tokens}, {"channels", ch}};
    call.buffers = {{"x", bytes_of(x)}, {"norm_gain", bytes_of(b.norm2)}, {"w1", b.fc1.w},
                    {"scale1", bytes_of(b.fc1.scale)}, {"bias1", bytes_of(b.fc1.bias)}, {"w2", b.fc2.w},
                    {"scale2", bytes_of(b.fc2.scale)}, {"bias2", bytes_of(b.fc2.bias)}};
    const KernelRun run = launch(call, {"x"});
    const std::vector<uint8_t>& fused = run.buffers.at("x");
    EXPECT_TRUE(fused == gpu_mlp_unfused(b, bytes_of(x), tokens, c.precision))
        << "mlp_fused differs from the layer-by-layer launches";

    const std::vector<float> xf = decode_f16(x);
    std::vector<float> normed(size_t(tokens) * ch), hidden(size_t(tokens) * 4 * ch), y(size_t(tokens) * ch), cpu = xf;
    cpu::rms_norm_e4m3(xf.data(), tokens, ch, b.norm2.data(), normed.data());
    cpu::linear(b.fc1.cpu(), normed.data(), tokens, hidden.data());
    cpu::gelu_to_e4m3(hidden.data(), hidden.size());
    cpu::linear(b.fc2.cpu(), hidden.data(), tokens, y.data());
    cpu::add_round_f16(cpu.data(), y.data(), cpu.size());
    expect_within_layer_bound(decode_f16(values_of<uint16_t>(fused)), cpu, c.precision, "mlp_fused");
}

// The block kernel's buffers from a block's operands (single_kernel.h: block_fused).
KernelCall block_fused_call(const BlockOperands& b, const std::vector<uint8_t>& x, int w, int h, bool shifted,
                            swinup_precision p) {
    KernelCall call;
    call.kernel = "block_fused";
    call.precision = p;
    call.ints = {{"width", w}, {"height", h}, {"channels", b.ch}, {"heads", b.heads}, {"shifted", shifted ? 1 : 0}};
    call.buffers = {{"x", x},
                    {"norm1_gain", bytes_of(b.norm1)},
                    {"w_qkv", b.qkv.w},
                    {"scale_qkv", bytes_of(b.qkv.scale)},
                    {"bias_qkv", bytes_of(b.qkv.bias)},
                    {"rel_bias", bytes_of(b.rel_bias)},
                    {"w_proj", b.proj.w},
                    {"scale_proj", bytes_of(b.proj.scale)},
                    {"bias_proj", bytes_of(b.proj.bias)},
                    {"norm2_gain", bytes_of(b.norm2)},
                    {"w1", b.fc1.w},
                    {"scale1", bytes_of(b.fc1.scale)},
                    {"bias1", bytes_of(b.fc1.bias)},
                    {"w2", b.fc2.w},
                    {"scale2", bytes_of(b.fc2.scale)},
                    {"bias2", bytes_of(b.fc2.bias)}};
    return call;
}

// The fused block against the layer-by-layer launches of both halves and against the two half
// kernels one after the other (attention_fused, then mlp_fused over all tokens), random
// operands: the same bytes. The halves are checked against the CPU above.
void run_block_fused(const OpCase& c) {
    const int w = c.shape[0], h = c.shape[1], ch = c.shape[2], heads = c.shape[3], tokens = w * h;
    const bool shifted = c.shape[4] != 0;
    Random r(uint32_t(w * 7 + h * 5 + ch));
    const BlockOperands b = random_block(r, ch, heads);
    const std::vector<uint16_t> x = r.f16(size_t(tokens) * ch, 1.0f);
    if (!cuda_tools::fused_kernel_fits("block_fused", ch, heads, false))
        GTEST_SKIP() << "block_fused does not fit this device for C = " << ch;
    const KernelRun run = launch(block_fused_call(b, bytes_of(x), w, h, shifted, c.precision), {"x"});
    const std::vector<uint8_t>& fused = run.buffers.at("x");
    const std::vector<uint8_t> attended = gpu_attention_unfused(b, bytes_of(x), w, h, shifted, c.precision);
    EXPECT_TRUE(fused == gpu_mlp_unfused(b, attended, tokens, c.precision))
        << "block_fused differs from the layer-by-layer launches";
    EXPECT_TRUE(fused != bytes_of(x)) << "block_fused left x as it was";

    if (!cuda_tools::fused_kernel_fits("attention_fused", ch, heads, false) ||
        !cuda_tools::fused_kernel_fits("mlp_fused", ch, 0, false))
        return;
    KernelCall attention;
    attention.kernel = "attention_fused";
    attention.precision = c.precision;
    attention.ints = {{"width", w}, {"height", h}, {"channels", ch}, {"heads", heads}, {"shifted", shifted ? 1 : 0}};
    attention.buffers = {{"x", bytes_of(x)}, {"norm_gain", bytes_of(b.norm1)}, {"w_qkv", b.qkv.w},
                         {"scale_qkv", bytes_of(b.qkv.scale)}, {"bias_qkv", bytes_of(b.qkv.bias)},
                         {"rel_bias", bytes_of(b.rel_bias)}, {"w_proj", b.proj.w},
                         {"scale_proj", bytes_of(b.proj.scale)}, {"bias_proj", bytes_of(b.proj.bias)}};
    KernelCall mlp;
    mlp.kernel = "mlp_fused";
    mlp.precision = c.precision;
    mlp.ints = {{"m", tokens}, {"channels", ch}};
    mlp.buffers = {{"x", launch(attention, {"x"}).buffers.at("x")}, {"norm_gain", bytes_of(b.norm2)},
                   {"w1", b.fc1.w}, {"scale1", bytes_of(b.fc1.scale)}, {"bias1", bytes_of(b.fc1.bias)},
                   {"w2", b.fc2.w}, {"scale2", bytes_of(b.fc2.scale)}, {"bias2", bytes_of(b.fc2.bias)}};
    EXPECT_TRUE(fused == launch(mlp, {"x"}).buffers.at("x")) << "block_fused differs from the two half kernels";
}

// ---- the head: lite's fused tail and full's fused head --------------------------------------------------
struct HeadOperands {
    std::vector<float> gain;  // 32
    LinearOperands linear;    // 32 -> 16
    bool mlp = false;
    LinearOperands fc1, fc2, fc3;  // 48 -> 64 -> 64 -> 8
    cpu::Head cpu() const {
        cpu::Head h;
        h.gain = gain;
        h.linear = linear.cpu();
        h.has_mlp = mlp;
        if (mlp) {
            h.mlp_fc1 = fc1.cpu();
            h.mlp_fc2 = fc2.cpu();
            h.mlp_fc3 = fc3.cpu();
        }
        return h;
    }
    // The buffers the fused kernels read (network_cuda.cu's layout: fc1's K padded to 64, fc3's
    // rows to 16 with zero scale and bias).
    void add_buffers(KernelBuffers& b) const {
        b["head_gain"] = bytes_of(gain);
        b["head_w"] = linear.padded();
        b["head_scale"] = bytes_of(linear.scale);
        b["head_bias"] = bytes_of(linear.bias);
        if (!mlp) return;
        auto padded16 = [](std::vector<float> v) { v.resize(16, 0.0f); return bytes_of(v); };
        b["fc1_w"] = fc1.padded();
        b["fc1_scale"] = bytes_of(fc1.scale);
        b["fc1_bias"] = bytes_of(fc1.bias);
        b["fc2_w"] = fc2.padded();
        b["fc2_scale"] = bytes_of(fc2.scale);
        b["fc2_bias"] = bytes_of(fc2.bias);
        b["fc3_w"] = fc3.padded(16);
        b["fc3_scale"] = padded16(fc3.scale);
        b["fc3_bias"] = padded16(fc3.bias);
    }
};
HeadOperands random_head(Random& r, bool mlp) {
    HeadOperands h;
    h.gain = r.floats(32, 0.5f, 1.5f);
    h.linear = random_linear(r, 32, kHeadOutputs);
    h.mlp = mlp;
    if (mlp) {
        h.fc1 = random_linear(r, kHeadMlpInputs, kHeadMlpHidden);
        h.fc2 = random_linear(r, kHeadMlpHidden, kHeadMlpHidden);
        h.fc3 = random_linear(r, kHeadMlpHidden, kHeadMlpOutputs);
    }
    return h;
}

// The head's layer-by-layer launches on the GPU (network_cuda.cu's unfused head): the norm, the
// head linear (f32), and with the MLP head_mlp_input, fc1, fc2 (ReLU -> e4m3), fc3 (f32, 16
// columns) and head_mlp_add.
std::vector<uint8_t> gpu_head_unfused(const HeadOperands& h, const std::vector<uint8_t>& d0,
                                      const std::vector<uint8_t>& staged, int pixels, swinup_precision p) {
    KernelCall norm;
    norm.kernel = "rms_norm_e4m3";
    norm.precision = p;
    norm.ints = {{"channels", 32}, {"gather", 0}, {"tokens", pixels}, {"grid_width", pixels}};
    norm.buffers = {{"x", d0}, {"gain", bytes_of(h.gain)}, {"out", poison(size_t(pixels) * 32)}};
    const std::vector<uint8_t> normed = launch(norm, {"out"}).buffers.at("out");
    std::vector<uint8_t> head =
        launch(gemm_call(h.linear, normed, 32, pixels, kStoreF32, poison(size_t(pixels) * 64), p), {"out"})
            .buffers.at("out");
    if (!h.mlp) return head;
    KernelCall in;
    in.kernel = "head_mlp_input";
    in.ints = {{"pixels", pixels}};
    in.buffers = {{"normed", normed}, {"staged", staged}, {"out", poison(size_t(pixels) * 48)}};
    const std::vector<uint8_t> x = launch(in, {"out"}).buffers.at("out");
    const std::vector<uint8_t> h1 =
        launch(gemm_call(h.fc1, x, 48, pixels, kReluE4m3, poison(size_t(pixels) * 64), p), {"out"}).buffers.at("out");
    const std::vector<uint8_t> h2 =
        launch(gemm_call(h.fc2, h1, 64, pixels, kReluE4m3, poison(size_t(pixels) * 64), p), {"out"}).buffers.at("out");
    const std::vector<uint8_t> y3 =
        launch(gemm_call(h.fc3, h2, 64, pixels, kStoreF32, poison(size_t(pixels) * 64), p, 16), {"out"})
            .buffers.at("out");
    KernelCall add;
    add.kernel = "head_mlp_add";
    add.ints = {{"pixels", pixels}};
    add.buffers = {{"y3", y3}, {"head", head}};
    return launch(add, {"head"}).buffers.at("head");
}

void run_head_fused(const OpCase& c) {
    const int pixels = c.shape[0];
    const bool mlp = c.op == "head_fused_mlp";
    Random r(uint32_t(pixels + (mlp ? 1 : 0)));
    const HeadOperands h = random_head(r, mlp);
    if (!cuda_tools::fused_kernel_fits("head_fused", 0, 0, mlp)) GTEST_SKIP() << "head_fused does not fit this device";
    const std::vector<uint16_t> d0 = r.f16(size_t(pixels) * 32, 1.0f);
    const std::vector<uint8_t> staged = r.e4m3(size_t(pixels) * kSlots, 1.0f);
    KernelCall call;
    call.kernel = "head_fused";
    call.precision = c.precision;
    call.ints = {{"pixels", pixels}};
    call.buffers = {{"d0", bytes_of(d0)}, {"staged", staged}, {"head", poison(size_t(pixels) * 64)}};
    h.add_buffers(call.buffers);
    const KernelRun run = launch(call, {"head"});
    EXPECT_TRUE(run.buffers.at("head") == gpu_head_unfused(h, bytes_of(d0), staged, pixels, c.precision))
        << "head_fused differs from the layer-by-layer launches";
    std::vector<float> cpu(size_t(pixels) * kHeadOutputs);
    cpu::head_tokens(h.cpu(), decode_f16(d0).data(), decode_e4m3(staged).data(), pixels, cpu.data());
    expect_within_layer_bound(values_of<float>(run.buffers.at("head")), cpu, c.precision, c.op);
}

void run_lite_tail_fused(const OpCase& c) {
    const int w1 = c.shape[0], h1 = c.shape[1], tokens = w1 * h1, fine_w = 2 * w1, pixels = 4 * tokens;
    const bool mlp = c.op == "lite_tail_fused_mlp";
    Random r(uint32_t(w1 * 11 + h1 + (mlp ? 3 : 0)));
    const HeadOperands h = random_head(r, mlp);
    if (!cuda_tools::fused_kernel_fits("lite_tail_fused", 0, 0, mlp))
        GTEST_SKIP() << "lite_tail_fused does not fit this device (sm_90 only)";
    const std::vector<float> expand_gain = r.floats(64, 0.5f, 1.5f);
    const LinearOperands expand = random_linear(r, 64, 128), skip = random_linear(r, kSlots, 32);
    const std::vector<uint16_t> d1 = r.f16(size_t(tokens) * 64, 1.0f);
    const std::vector<uint8_t> staged = r.e4m3(size_t(pixels) * kSlots, 1.0f);
    KernelCall call;
    call.kernel = "lite_tail_fused";
    call.precision = c.precision;
    call.ints = {{"width1", w1}, {"height1", h1}};
    call.buffers = {{"d1", bytes_of(d1)}, {"staged", staged}, {"expand_gain", bytes_of(expand_gain)},
                    {"w_expand", expand.padded()}, {"scale_expand", bytes_of(expand.scale)},
                    {"bias_expand", bytes_of(expand.bias)}, {"w_skip", skip.padded()},
                    {"scale_skip", bytes_of(skip.scale)}, {"bias_skip", bytes_of(skip.bias)},
                    {"head", poison(size_t(pixels) * 64)}, {"d0", poison(size_t(pixels) * 64)}};
    h.add_buffers(call.buffers);
    const KernelRun run = launch(call, {"head", "d0"});

    // The launches: skip0 (f32), expand0 (norm, linear, + skip), then the head.
    KernelCall norm;
    norm.kernel = "rms_norm_e4m3";
    norm.precision = c.precision;
    norm.ints = {{"channels", 64}, {"gather", 0}, {"tokens", tokens}, {"grid_width", w1}};
    norm.buffers = {{"x", bytes_of(d1)}, {"gain", bytes_of(expand_gain)}, {"out", poison(size_t(tokens) * 64)}};
    const std::vector<uint8_t> normed = launch(norm, {"out"}).buffers.at("out");
    const std::vector<uint8_t> skip_out =
        launch(gemm_call(skip, staged, kSlots, pixels, kStoreF32, poison(size_t(pixels) * 128), c.precision), {"out"})
            .buffers.at("out");
    KernelCall ex = gemm_call(expand, normed, 64, tokens, kExpandF16, poison(size_t(pixels) * 64), c.precision);
    ex.ints["grid_width"] = w1;
    ex.ints["skip_f32"] = 1;
    ex.buffers["skip"] = skip_out;
    const std::vector<uint8_t> d0 = launch(ex, {"out"}).buffers.at("out");
    EXPECT_TRUE(run.buffers.at("d0") == d0) << "lite_tail_fused's d0 differs from the layer-by-layer launches";
    EXPECT_TRUE(run.buffers.at("head") == gpu_head_unfused(h, d0, staged, pixels, c.precision))
        << "lite_tail_fused's head differs from the layer-by-layer launches";

    // The CPU: skip0, expand0 (the linear before depth-to-space), d0 = f16(y + skip), the head.
    const std::vector<float> slots = decode_e4m3(staged);
    std::vector<float> skip_cpu(size_t(pixels) * 32), y(size_t(tokens) * 128), d0_cpu(size_t(pixels) * 32);
    cpu::linear(skip.cpu(), slots.data(), pixels, skip_cpu.data());
    cpu::PatchExpand pe;
    pe.in_channels = 64;
    pe.out_channels = 32;
    pe.gain = expand_gain;
    pe.linear = expand.cpu();
    cpu::patch_expand_tokens(pe, decode_f16(d1).data(), 0, tokens, y.data());
    for (int t = 0; t < tokens; ++t)
        for (int q = 0; q < 4; ++q) {
            const TokenCoord f = quadrant_fine_token(t % w1, t / w1, q);
            const size_t pixel = size_t(f.y) * fine_w + f.x;
            for (int ch = 0; ch < 32; ++ch)
                d0_cpu[pixel * 32 + ch] = round_to_f16(exact::add(y[size_t(t) * 128 + q * 32 + ch], skip_cpu[pixel * 32 + ch]));
        }
    std::vector<float> head_cpu(size_t(pixels) * kHeadOutputs);
    cpu::head_tokens(h.cpu(), d0_cpu.data(), slots.data(), pixels, head_cpu.data());
    expect_within_layer_bound(decode_f16(values_of<uint16_t>(d0)), d0_cpu, c.precision, c.op + " d0");
    expect_within_layer_bound(values_of<float>(run.buffers.at("head")), head_cpu, c.precision, c.op + " head");
}

// ---- the frame passes -------------------------------------------------------------------------------
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Raw RGBA32F colour with the cases the spec names: NaN, +-Inf, negative, above 1 (LDR clamps).
std::vector<float> raw_colour(Random& r, int w, int h) {
    std::vector<float> c = r.floats(size_t(w) * h * 4, -0.2f, 3.0f);
    const float specials[] = {kNaN, INFINITY, -INFINITY, -1.0f, 1e30f};
    for (size_t i = 0; i < std::size(specials) && i * 23 + 5 < c.size(); ++i) c[i * 23 + 5] = specials[i];
    return c;
}

void run_exposure(const OpCase& c) {
    const int w = c.shape[0], h = c.shape[1], mode = c.shape[2];
    Random r(uint32_t(w + h));
    const std::vector<float> colour = raw_colour(r, w, h);
    const float pre_exposure = 1.25f;
    KernelCall call;
    call.kernel = "exposure";
    call.ints = {{"width", w}, {"height", h}, {"color_channels", 4}, {"auto_exposure", mode == 0 ? 1 : 0}};
    call.floats = {{"pre_exposure", pre_exposure}, {"exposure_value", 0.75f}};
    call.buffers = {{"color", bytes_of(colour)}, {"row_sums", poison(size_t(h) * 8)}, {"exposure", poison(4)}};
    if (mode == 1) call.buffers["exposure_texture"] = bytes_of(std::vector<float>{kNaN});  // invalid: 1
    const KernelRun run = launch(call, {"row_sums", "exposure"});
    float cpu = 0.75f;
    if (mode == 0) {
        const swinup_dispatch_desc d = frame_dispatch_desc(input_resource(colour.data(), SWINUP_FORMAT_RGBA32F, w, h),
                                                           {}, {}, {});
        std::vector<double> row_sums(static_cast<size_t>(h));
        cpu = cpu::auto_exposure(d, w, h, pre_exposure, false, row_sums);
        expect_same_codes(run.buffers.at("row_sums"), bytes_of(row_sums), "exposure row sums");
    } else if (mode == 1) {
        cpu = 1.0f;  // spec: a texture value that is not finite and positive reads as 1
    }
    expect_same_floats(values_of<float>(run.buffers.at("exposure")), {cpu}, "exposure");
}

void run_input_planes(const OpCase& c) {
    const int w = c.shape[0], h = c.shape[1];
    const auto format = static_cast<swinup_format>(c.shape[2]);
    const bool mv_display = c.shape[3] != 0, ldr = c.shape[4] != 0, inverted = c.shape[5] != 0;
    const int dw = 2 * w + 1, dh = 2 * h - 1;
    Random r(uint32_t(w * h + c.shape[2]));
    const int channels = format == SWINUP_FORMAT_RGB16F ? 3 : 4;
    const bool half = format != SWINUP_FORMAT_RGBA32F;
    const std::vector<float> colour_f = raw_colour(r, w, h);
    std::vector<float> colour_values(size_t(w) * h * channels);
    for (size_t p = 0; p < size_t(w) * h; ++p)
        for (int k = 0; k < channels; ++k) colour_values[p * channels + k] = colour_f[p * 4 + k];
    std::vector<uint8_t> colour = half ? bytes_of(encode_f16(colour_values)) : bytes_of(colour_values);
    std::vector<float> depth = r.floats(size_t(w) * h, 0.0f, 1.0f);
    depth[1] = kNaN;
    depth[2] = INFINITY;
    const int mw = mv_display ? dw : w, mh = mv_display ? dh : h;
    std::vector<float> motion_f = r.floats(size_t(mw) * mh * 2, -8.0f, 8.0f);
    motion_f[0] = kNaN;
    motion_f[3] = -INFINITY;
    const std::vector<uint16_t> motion_h = encode_f16(motion_f);
    const bool motion_half = format != SWINUP_FORMAT_RGBA32F;  // RG16F with half colour, RG32F otherwise
    std::vector<uint8_t> motion = motion_half ? bytes_of(motion_h) : bytes_of(motion_f);
    // mv_scale_y makes most vertical vectors overflow: Inf after scaling becomes 0 (spec).
    const float exposure = 1.5f, pre_exposure = 0.8f, mv_scale_x = -2.0f, mv_scale_y = 1e38f;
    const float jitter_x = 0.25f, jitter_y = -0.375f, offset_x = 0.125f, offset_y = -0.5f;

    KernelCall call;
    call.kernel = "input_planes";
    call.ints = {{"width", w}, {"height", h}, {"display_width", dw}, {"display_height", dh},
                 {"color_channels", channels}, {"color_half", half ? 1 : 0}, {"depth_channels", 1},
                 {"motion_channels", 2}, {"motion_half", motion_half ? 1 : 0}, {"motion_width", mw},
                 {"motion_height", mh}, {"ldr", ldr ? 1 : 0}, {"depth_inverted", inverted ? 1 : 0},
                 {"mv_display_res", mv_display ? 1 : 0}};
    call.floats = {{"pre_exposure", pre_exposure}, {"mv_scale_x", mv_scale_x}, {"mv_scale_y", mv_scale_y},
                   {"jitter_x", jitter_x}, {"jitter_y", jitter_y}, {"motion_offset_x", offset_x},
                   {"motion_offset_y", offset_y}};
    call.buffers = {{"color", colour}, {"depth", bytes_of(depth)}, {"motion", motion},
                    {"exposure", bytes_of(std::vector<float>{exposure})},
                    {"color_plane", poison(size_t(w) * h * 12)}, {"z", poison(size_t(w) * h * 4)},
                    {"motion_plane", poison(size_t(w) * h * 8)},
                    // The counters start at 0 (CudaBackend: at creation, then as staging publishes them).
                    {"counts", bytes_of(std::vector<uint32_t>(kFrameCounts, 0u))}};
    const KernelRun run = launch(call, {"color_plane", "z", "motion_plane", "counts"});

    swinup_dispatch_desc d = frame_dispatch_desc(
        input_resource(colour.data(), format, w, h), input_resource(depth.data(), SWINUP_FORMAT_R32F, w, h),
        input_resource(motion.data(), motion_half ? SWINUP_FORMAT_RG16F : SWINUP_FORMAT_RG32F, mw, mh), {});
    d.mv_scale_x = mv_scale_x;
    d.mv_scale_y = mv_scale_y;
    d.jitter_x = jitter_x;
    d.jitter_y = jitter_y;
    FrameSetup s;
    s.geometry = frame_geometry(w, h, dw, dh, jitter_x, jitter_y);
    s.exposure.pre_exposure = pre_exposure;
    s.ldr = ldr;
    s.depth_inverted = inverted;
    s.mv_display_res = mv_display;
    s.motion_offset_x = offset_x;
    s.motion_offset_y = offset_y;
    std::vector<float> colour_cpu(size_t(w) * h * 3), z_cpu(size_t(w) * h), motion_cpu(size_t(w) * h * 2);
    std::vector<uint32_t> row_counts(cpu::kRowCounts * h);
    const cpu::ReplacedCounts counts =
        cpu::read_input_planes(d, s, exposure, colour_cpu.data(), z_cpu.data(), motion_cpu.data(), nullptr, row_counts);
    expect_same_floats(values_of<float>(run.buffers.at("color_plane")), colour_cpu, "colour plane");
    expect_same_floats(values_of<float>(run.buffers.at("z")), z_cpu, "reverse-Z plane");
    expect_same_floats(values_of<float>(run.buffers.at("motion_plane")), motion_cpu, "motion plane");
    for (float v : values_of<float>(run.buffers.at("color_plane"))) ASSERT_TRUE(std::isfinite(v) && v >= 0.0f);
    // The repaired-pixel counters (swinup_input_statistics): the inputs above hold NaN/Inf depth
    // and motion, so the motion and depth counts are not zero; no masks, so theirs are.
    const std::vector<uint32_t> gpu = values_of<uint32_t>(run.buffers.at("counts"));
    ASSERT_EQ(gpu.size(), size_t(kFrameCounts));
    EXPECT_EQ(gpu[kCountColor], counts.color_pixels);
    EXPECT_EQ(gpu[kCountDepth], counts.depth);
    EXPECT_EQ(gpu[kCountMotion], counts.motion_pixels);
    EXPECT_GT(gpu[kCountDepth], 0u);
    EXPECT_GT(gpu[kCountMotion], 0u);
    for (int k = kCountReactiveNonfinite; k < kFrameCounts; ++k) EXPECT_EQ(gpu[k], 0u) << "counter " << k;
}

// The temporal state of a previous frame: history (display, f16 RGB + 1), reverse-Z, recurrent.
struct PreviousFrame {
    std::vector<uint16_t> history, recurrent;
    std::vector<float> z;
};
PreviousFrame random_previous(Random& r, int w, int h, int dw, int dh) {
    PreviousFrame p;
    p.history.resize(size_t(dw) * dh * 4);
    for (size_t i = 0; i < p.history.size(); ++i)
        p.history[i] = i % 4 == 3 ? uint16_t{0x3c00} : f32_to_f16_bits(r.uniform(0.0f, 8.0f));
    p.z = r.floats(size_t(w) * h, 0.0f, 1.0f);
    p.recurrent = encode_f16(r.floats(size_t(w) * h * 4, -1.0f, 1.0f));
    return p;
}

void run_staging(const OpCase& c) {
    const int w = c.shape[0], h = c.shape[1], dw = c.shape[2], dh = c.shape[3];
    const bool history = c.shape[4] != 0;
    const int pw = pad_to_grid(w), ph = pad_to_grid(h);
    Random r(uint32_t(w * 3 + h));
    // Sanitised planes as the input pass leaves them: colour >= 0, reverse-Z in [0, 1], motion.
    const std::vector<float> colour = r.floats(size_t(w) * h * 3, 0.0f, 4.0f), z = r.floats(size_t(w) * h, 0.0f, 1.0f),
                             motion = r.floats(size_t(w) * h * 2, -3.0f, 3.0f);
    const PreviousFrame prev = random_previous(r, w, h, dw, dh);
    const float jitter_x = -0.3125f, jitter_y = 0.1875f;
    // The input statistics' hand-over (pre_network.cu publish_counts): staging copies the counters
    // input_planes left into slot `count_slot` of the published slots and clears them; the other
    // slots stay as they were. Slot -1 (the memset-and-copy path) touches neither.
    constexpr int kPublishedSlots = 3;
    const int count_slot = history ? (w + h) % kPublishedSlots : -1;
    std::vector<uint32_t> counters(kFrameCounts);
    for (int k = 0; k < kFrameCounts; ++k) counters[k] = uint32_t(1000 * (k + 1) + w);
    KernelCall call;
    call.kernel = "staging";
    call.ints = {{"width", w}, {"height", h}, {"display_width", dw}, {"display_height", dh},
                 {"padded_width", pw}, {"padded_height", ph}, {"count_slot", count_slot}};
    call.floats = {{"jitter_x", jitter_x}, {"jitter_y", jitter_y}};
    call.buffers = {{"color_plane", bytes_of(colour)}, {"z", bytes_of(z)}, {"motion_plane", bytes_of(motion)},
                    {"staged", poison(size_t(pw) * ph * kSlots)}, {"dilated", poison(size_t(w) * h * 8)},
                    {"tc", poison(size_t(w) * h * 12)}, {"counts", bytes_of(counters)},
                    {"published_counts", poison(size_t(kPublishedSlots) * kFrameCounts * sizeof(uint32_t))}};
    if (history) {
        call.buffers["history_in"] = bytes_of(prev.history);
        call.buffers["z_prev"] = bytes_of(prev.z);
        call.buffers["recurrent_in"] = bytes_of(prev.recurrent);
    }
    const KernelRun run = launch(call, {"staged", "dilated", "tc", "counts", "published_counts"});
    const std::vector<uint32_t> published = values_of<uint32_t>(run.buffers.at("published_counts"));
    const std::vector<uint32_t> untouched = values_of<uint32_t>(poison(kFrameCounts * sizeof(uint32_t)));
    for (int slot = 0; slot < kPublishedSlots; ++slot) {
        const std::vector<uint32_t> got(published.begin() + slot * kFrameCounts,
                                        published.begin() + (slot + 1) * kFrameCounts);
        EXPECT_EQ(got, slot == count_slot ? counters : untouched) << "published slot " << slot;
    }
    EXPECT_EQ(values_of<uint32_t>(run.buffers.at("counts")),
              count_slot >= 0 ? std::vector<uint32_t>(kFrameCounts, 0u) : counters)
        << "the counters after staging (count_slot " << count_slot << ")";

    const StageCurrent cur{frame_geometry(w, h, dw, dh, jitter_x, jitter_y), colour.data(), z.data(), motion.data()};
    StagePrevious p;
    p.valid = history;
    p.history = prev.history.data();
    p.z = prev.z.data();
    p.recurrent = prev.recurrent.data();
    p.width = w;
    p.height = h;
    std::vector<float> staged(size_t(pw) * ph * kSlots), dilated(size_t(w) * h * 2), tc(size_t(w) * h * 3);
    cpu::StagingOutput out;
    out.dilated = dilated.data();
    out.tc = tc.data();
    out.staged = staged.data();
    out.padded_width = pw;
    out.padded_height = ph;
    cpu::stage_frame(cur, p, out);
    expect_same_codes(run.buffers.at("staged"), encode_e4m3(staged), "staged slots");
    expect_same_floats(values_of<float>(run.buffers.at("dilated")), dilated, "dilated motion");
    expect_same_floats(values_of<float>(run.buffers.at("tc")), tc, "t(colour)");
}

// Head outputs over every range the output pass clamps, with NaN (spec: a NaN head output reads
// as 0; the recurrent state keeps it as 0) and, unless nan_only, +-Inf, -0 and 1e30, which the
// CPU and GPU must treat alike (one shared definition).
std::vector<float> random_head_outputs(Random& r, int stride, int w, int h, bool nan_only = false) {
    std::vector<float> head(size_t(stride) * h * kHeadOutputs, 0.0f);
    const float specials[] = {kNaN, INFINITY, -INFINITY, -0.0f, 1e30f};
    const size_t kinds = nan_only ? 1 : std::size(specials);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float* o = &head[(size_t(y) * stride + x) * kHeadOutputs];
            for (int k = 0; k < kHeadOutputs; ++k) o[k] = r.uniform(-3.0f, 3.0f);
            o[kHeadSigmaMajor] = r.uniform(-5.0f, 3.0f);
            o[kHeadSigmaMinor] = r.uniform(-5.0f, 3.0f);
            o[kHeadAngle] = r.uniform(-4.0f, 4.0f);
            o[kHeadAlpha] = r.uniform(-6.0f, 6.0f);
            if (r.rng() % 16 == 0) o[r.rng() % 8] = specials[r.rng() % kinds];
        }
    return head;
}

double t_space(float x) { return std::log2(1.0 + std::max(double(x), 0.0)); }

void run_output(const OpCase& c) {
    const int w = c.shape[0], h = c.shape[1], dw = c.shape[2], dh = c.shape[3];
    const bool history = c.shape[4] != 0;
    swinup_format format = SWINUP_FORMAT_RGBA16F;
    if (c.op == "output_r10g10b10a2") format = SWINUP_FORMAT_R10G10B10A2;
    if (c.op == "output_rgba8") format = SWINUP_FORMAT_RGBA8;
    const size_t pixel_bytes = format == SWINUP_FORMAT_RGBA16F ? 8 : 4;
    const size_t pitch = size_t(dw) * pixel_bytes + 24;  // padding after each row stays untouched
    const int stride = pad_to_grid(w);                   // the head's row stride (the padded grid)
    Random r(uint32_t(w * 7 + dw));
    std::vector<float> tc(size_t(w) * h * 3), motion = r.floats(size_t(w) * h * 2, -3.0f, 3.0f);
    for (float& t : tc) t = px::t_of(r.uniform(0.0f, 8.0f));
    const std::vector<float> head = random_head_outputs(r, stride, w, h, c.precision == kFast);
    const PreviousFrame prev = random_previous(r, w, h, dw, dh);
    const float exposure = 1.5f, pre_exposure = 2.0f, jitter_x = 0.3125f, jitter_y = -0.1875f, still = 0.5f;
    const bool fast = c.precision == kFast;

    KernelCall call;
    call.kernel = "output";
    call.precision = c.precision;
    call.ints = {{"width", w}, {"height", h}, {"display_width", dw}, {"display_height", dh},
                 {"padded_width", stride}, {"padded_height", pad_to_grid(h)}, {"output_format", format},
                 {"output_pitch", int(pitch)}};
    call.floats = {{"jitter_x", jitter_x}, {"jitter_y", jitter_y}, {"pre_exposure", pre_exposure},
                   {"still_history_shift", still}};
    call.buffers = {{"tc", bytes_of(tc)}, {"dilated", bytes_of(motion)}, {"head", bytes_of(head)},
                    {"exposure", bytes_of(std::vector<float>{exposure})},
                    {"history_out", poison(size_t(dw) * dh * 8)}, {"output", poison(pitch * dh)},
                    {"linear_out", poison(size_t(dw) * dh * 12)}};
    if (history) call.buffers["history_in"] = bytes_of(prev.history);
    std::set<std::string> written = {"history_out", "output", "linear_out"};
    if (fast) {
        for (const char* name : {"out_color", "out_kernel", "out_motion"})
            call.buffers[name] = poison(size_t(w) * h * (std::string(name) == "out_motion" ? 8 : 16));
        call.buffers["out_axes"] = poison(size_t(dw + dh) * 32);
        call.buffers["recurrent_out"] = poison(size_t(w) * h * 8);
        for (const char* name : {"out_color", "out_kernel", "out_motion", "out_axes", "recurrent_out"})
            written.insert(name);
    } else {  // the exact pre-pass's table of render pixel kernels, and the recurrent state it writes
        call.buffers["out_pixel_kernel"] = poison(size_t(w) * h * sizeof(PixelKernel));
        call.buffers["recurrent_out"] = poison(size_t(w) * h * 8);
        for (const char* name : {"out_pixel_kernel", "recurrent_out"}) written.insert(name);
    }
    const KernelRun run = launch(call, written);

    const OutputCurrent cur{frame_geometry(w, h, dw, dh, jitter_x, jitter_y), tc.data(), motion.data(), head.data(),
                            stride, still};
    const OutputPrevious p{history, prev.history.data()};
    std::vector<float> linear(size_t(dw) * dh * 3);
    for (int y = 0; y < dh; ++y)
        for (int x = 0; x < dw; ++x) output_pixel(cur, p, x, y, &linear[(size_t(y) * dw + x) * 3]);
    const std::vector<uint8_t>& out = run.buffers.at("output");
    for (int y = 0; y < dh; ++y)
        for (size_t b = size_t(dw) * pixel_bytes; b < pitch; ++b)
            ASSERT_EQ(out[y * pitch + b], kPoison) << "row " << y << ": the pitch's padding was written";

    if (!fast) {
        expect_same_floats(values_of<float>(run.buffers.at("linear_out")), linear, "linear output");
        std::vector<uint16_t> new_history(size_t(dw) * dh * 4);
        std::vector<uint8_t> out_cpu = poison(pitch * dh);
        const swinup_resource res = output_resource(out_cpu.data(), format, dw, dh, SWINUP_MEMORY_HOST, pitch);
        cpu::OutputTarget target;
        target.resource = &res;
        target.exposure = exposure;
        target.pre_exposure = pre_exposure;
        std::vector<PixelKernel> scratch(size_t(w) * h);
        cpu::output_frame(cur, p, scratch.data(), new_history.data(), target);
        // history_out: RGB of each pixel (the GPU writes 3 halves and a zero word half).
        const std::vector<uint16_t> gpu_history = values_of<uint16_t>(run.buffers.at("history_out"));
        std::vector<uint16_t> g3, c3;
        for (size_t i = 0; i < new_history.size(); ++i)
            if (i % 4 != 3) {
                g3.push_back(gpu_history[i]);
                c3.push_back(new_history[i]);
            }
        expect_same_codes(g3, c3, "history");
        expect_same_codes(out, out_cpu, "output");
        std::vector<uint16_t> recurrent(size_t(w) * h * 4);
        cpu::keep_recurrent_features(head.data(), stride, w, h, recurrent.data());
        expect_same_codes(values_of<uint16_t>(run.buffers.at("recurrent_out")), recurrent,
                          "recurrent state (exact pre-pass)");
        return;
    }
    // Fast: t-space bound against the exact values, and the pre-pass's recurrent state exact.
    const std::vector<float> gpu = values_of<float>(run.buffers.at("linear_out"));
    size_t beyond = 0;
    double worst = 0;
    for (size_t pixel = 0; pixel < linear.size() / 3; ++pixel) {
        double pixel_worst = 0;
        for (size_t i = pixel * 3; i < pixel * 3 + 3; ++i) {
            const double d = std::fabs(t_space(gpu[i]) - t_space(linear[i]));
            ASSERT_FALSE(std::isnan(d)) << "fast value " << i;
            pixel_worst = std::max(pixel_worst, d);
        }
        worst = std::max(worst, pixel_worst);
        beyond += pixel_worst > 1.0 / 8192.0;
    }
    const size_t pixels = linear.size() / 3;
    EXPECT_LE(double(beyond), 1e-3 * double(pixels)) << beyond << " of " << pixels << " pixels beyond 2^-13";
    std::printf("[ measured ] %s fast: max |t(fast) - t(exact)| %.3e, %zu of %zu pixels beyond 2^-13\n", c.op.c_str(),
                worst, beyond, pixels);
    std::vector<uint16_t> recurrent(size_t(w) * h * 4);
    cpu::keep_recurrent_features(head.data(), stride, w, h, recurrent.data());
    expect_same_codes(values_of<uint16_t>(run.buffers.at("recurrent_out")), recurrent, "recurrent state (pre-pass)");
    for (const uint16_t v : values_of<uint16_t>(run.buffers.at("history_out")))
        ASSERT_TRUE(std::isfinite(f16_bits_to_f32(v))) << "fast history must be finite";
}

void run_recurrent(const OpCase& c) {
    const int w = c.shape[0], h = c.shape[1], stride = c.shape[2];
    Random r(uint32_t(w * h + stride));
    const std::vector<float> head = random_head_outputs(r, stride, w, h);
    KernelCall call;
    call.kernel = "recurrent";
    call.ints = {{"width", w}, {"height", h}, {"padded_width", stride}};
    call.buffers = {{"head", bytes_of(head)}, {"recurrent_out", poison(size_t(w) * h * 8)}};
    const KernelRun run = launch(call, {"recurrent_out"});
    std::vector<uint16_t> cpu(size_t(w) * h * 4);
    cpu::keep_recurrent_features(head.data(), stride, w, h, cpu.data());
    expect_same_codes(values_of<uint16_t>(run.buffers.at("recurrent_out")), cpu, "recurrent state");
}

void run_case(const OpCase& c) {
    const std::map<std::string, std::function<void(const OpCase&)>> runners = {
        {"gemm_store_f32", run_gemm},          {"gemm_store_f32_nan_row", run_gemm},
        {"gemm_store_f16", run_gemm},          {"gemm_relu_e4m3", run_gemm},
        {"gemm_gelu_e4m3", run_gemm},          {"gemm_residual_f16", run_gemm},
        {"gemm_expand_f16_skip", run_gemm},    {"gemm_expand_f32_skip", run_gemm},
        {"gemm_space_to_depth", run_gemm},     {"gemm_rms_norm", run_gemm},
        {"rms_norm", run_rms_norm},            {"rms_norm_merge", run_rms_norm},
        {"window_attention", run_window_attention},
        {"head_mlp_input", run_head_mlp_elementwise}, {"head_mlp_add", run_head_mlp_elementwise},
        {"attention_fused", run_attention_fused}, {"mlp_fused", run_mlp_fused}, {"block_fused", run_block_fused},
        {"lite_tail_fused", run_lite_tail_fused}, {"lite_tail_fused_mlp", run_lite_tail_fused},
        {"head_fused", run_head_fused},        {"head_fused_mlp", run_head_fused},
        {"exposure", run_exposure},            {"input_planes", run_input_planes},
        {"staging", run_staging},              {"output_rgba16f", run_output},
        {"output_r10g10b10a2", run_output},    {"output_rgba8", run_output},
        {"recurrent", run_recurrent},
    };
    const auto it = runners.find(c.op);
    ASSERT_NE(it, runners.end()) << "no runner for " << c.op;
    it->second(c);
}
#endif

class CudaOps : public testing::TestWithParam<OpCase> {};

TEST_P(CudaOps, MatchesCpuReference) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    run_case(GetParam());
#endif
}

INSTANTIATE_TEST_SUITE_P(Kernels, CudaOps, testing::ValuesIn(kCases), test_name);

}  // namespace
}  // namespace swinup
