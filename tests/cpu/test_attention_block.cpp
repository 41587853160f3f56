// Window attention and whole Swin blocks of the CPU backend against a naive computation in double
// that rounds at the same points as docs/model-spec.md (f16 Q/K/V and softmax weights, e4m3 GEMM
// inputs, f16 residual stream), with its own window partition, roll and Swin mask.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "numeric/e4m3.h"
#include "numeric/half.h"
#include "model/model_spec.h"
#include "cpu/layers/swin_block.h"
#include "cpu/layers/window_attention.h"
#include "network_test_weights.h"

namespace swinup {
namespace {

constexpr int T = kWindowTokens;

double f16(double v) { return double(round_to_f16(float(v))); }
double e4m3(double v) { return double(round_to_e4m3(float(v))); }

// One window's attention before the final e4m3 rounding. qkv: 16 x 3C, bias: heads x 16 x 16,
// mask: bit j of mask[i] (nullptr: all pairs).
std::vector<double> reference_attention(const std::vector<double>& qkv, int c, int heads,
                                        const std::vector<double>& bias, const uint32_t* mask) {
    const int d = c / heads;
    std::vector<double> out(size_t(T) * c);
    for (int h = 0; h < heads; ++h) {
        for (int i = 0; i < T; ++i) {
            auto allowed = [&](int j) { return !mask || (mask[i] >> j & 1u); };
            double s[T], m = -1e300;
            for (int j = 0; j < T; ++j) {
                double dot = 0;
                for (int k = 0; k < d; ++k) dot += qkv[size_t(i) * 3 * c + h * d + k] * qkv[size_t(j) * 3 * c + c + h * d + k];
                s[j] = dot / std::sqrt(double(d)) + bias[(size_t(h) * T + i) * T + j];
                if (allowed(j)) m = std::max(m, s[j]);
            }
            double p[T], l = 0;
            for (int j = 0; j < T; ++j) {
                p[j] = allowed(j) ? f16(std::exp(s[j] - m)) : 0.0;
                l += p[j];
            }
            for (int k = 0; k < d; ++k) {
                double o = 0;
                for (int j = 0; j < T; ++j) o += p[j] * qkv[size_t(j) * 3 * c + 2 * c + h * d + k];
                out[size_t(i) * c + h * d + k] = o / l;
            }
        }
    }
    return out;
}

struct HeadConfig {
    int channels, heads;  // d = channels / heads
};

// Bound: the reference rounds the softmax weights p_j to f16 at the same point. The CPU's p_j
// before that rounding differs from the exact exp by < 1e-6 relative (f32 scores of exact f16
// products, exp2's polynomial < 4e-7), so after it the two p_j are equal or one f16 step apart
// (<= 2^-10 relative). Such a step moves o = sum p v / sum p by at most 2^-10 max|v| through the
// numerator and as much through the denominator; f32 summation adds < 2^-18 max|v|. Hence the
// CPU's pre-rounding output lies within tol = (2^-9 + 2^-18) max|v| of the reference, and its
// e4m3 output between the roundings of reference -+ tol (the rounding is monotonic).
TEST(WindowAttention, MatchesDoubleReference) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (const HeadConfig hc : {HeadConfig{32, 2}, HeadConfig{96, 4}, HeadConfig{64, 2}, HeadConfig{128, 4}}) {
        for (int variant = 0; variant < 3; ++variant) {  // no mask, Swin-like mask, random mask
            const int c = hc.channels;
            std::vector<float> qkv(size_t(T) * 3 * c), bias(size_t(hc.heads) * T * T);
            for (float& v : qkv) v = round_to_f16(1.5f * u(rng));
            for (float& v : bias) v = round_to_f16(u(rng));
            uint32_t mask[T];
            for (int i = 0; i < T; ++i) {
                if (variant == 1) {  // a corner window of a shifted grid: 2x2 blocks of 2x2 tokens
                    const int qy = i / 4 / 2, qx = i % 4 / 2;
                    mask[i] = 0;
                    for (int j = 0; j < T; ++j)
                        if (j / 4 / 2 == qy && j % 4 / 2 == qx) mask[i] |= 1u << j;
                } else {
                    mask[i] = (uint32_t(rng()) & 0xffffu) | (1u << i);
                }
            }
            const uint32_t* m = variant == 0 ? nullptr : mask;
            std::vector<float> out(size_t(T) * c);
            cpu::window_attention(qkv.data(), c, hc.heads, bias.data(), m, out.data());
            const std::vector<double> ref = reference_attention(std::vector<double>(qkv.begin(), qkv.end()), c, hc.heads,
                                                                std::vector<double>(bias.begin(), bias.end()), m);
            float max_v = 0;
            for (int j = 0; j < T; ++j)
                for (int k = 0; k < c; ++k) max_v = std::max(max_v, std::fabs(qkv[size_t(j) * 3 * c + 2 * c + k]));
            const double tol = (std::ldexp(1.0, -9) + std::ldexp(1.0, -18)) * max_v;
            int exact = 0;
            for (size_t i = 0; i < out.size(); ++i) {
                ASSERT_EQ(out[i], round_to_e4m3(out[i])) << "outputs are e4m3 values";
                ASSERT_GE(out[i], round_to_e4m3(float(ref[i] - tol))) << "C" << c << " i " << i;
                ASSERT_LE(out[i], round_to_e4m3(float(ref[i] + tol))) << "C" << c << " i " << i;
                exact += out[i] == round_to_e4m3(float(ref[i]));
            }
            EXPECT_GE(exact, int(0.97 * double(out.size()))) << "most outputs are the reference's rounding";
        }
    }
}

// ---- a whole block ----------------------------------------------------------------------------

struct RefLinear {
    int in, out;
    std::vector<double> w, scale, bias;
};

RefLinear ref_linear(const Weights& weights, const std::string& name) {
    const Tensor& w = weights.at(name + ".weight");
    RefLinear l{int(w.shape[1]), int(w.shape[0]), {}, {}, {}};
    for (int64_t i = 0; i < w.elements(); ++i) l.w.push_back(e4m3_to_f32(w.e4m3()[i]));
    for (int o = 0; o < l.out; ++o) {
        l.scale.push_back(weights.at(name + ".scale").f32()[o]);
        l.bias.push_back(weights.at(name + ".bias").f32()[o]);
    }
    return l;
}

std::vector<double> run_linear(const RefLinear& l, const std::vector<double>& x) {
    const size_t rows = x.size() / size_t(l.in);
    std::vector<double> y(rows * size_t(l.out));
    for (size_t r = 0; r < rows; ++r)
        for (int o = 0; o < l.out; ++o) {
            double acc = 0;
            for (int k = 0; k < l.in; ++k) acc += l.w[size_t(o) * l.in + k] * x[r * l.in + k];
            y[r * l.out + o] = acc * l.scale[o] + l.bias[o];
        }
    return y;
}

std::vector<double> norm_e4m3(const std::vector<double>& x, const float* gain, int c) {
    std::vector<double> y(x.size());
    for (size_t r = 0; r < x.size() / size_t(c); ++r) {
        double ss = 0;
        for (int k = 0; k < c; ++k) ss += x[r * c + k] * x[r * c + k];
        const double f = 1.0 / std::sqrt(ss / c + 1.0 / 8192.0);
        for (int k = 0; k < c; ++k) y[r * c + k] = e4m3(x[r * c + k] * f * gain[k]);
    }
    return y;
}

// The block on a w x h grid of f16 tokens: roll by -2 if shifted, 4x4 windows with Swin's
// region mask, roll back.
std::vector<double> reference_block(const Weights& weights, const BlockSpec& spec, std::vector<double> x,
                                    int w, int h, bool shifted) {
    const int c = spec.channels, s = shifted ? kShift : 0;
    std::vector<double> rolled(x.size());
    for (int y = 0; y < h; ++y)
        for (int xx = 0; xx < w; ++xx)
            for (int k = 0; k < c; ++k)
                rolled[(size_t(y) * w + xx) * c + k] = x[(size_t((y + s) % h) * w + (xx + s) % w) * c + k];
    auto region = [&](int i, int n) { return !shifted ? 0 : (i < n - 4 ? 0 : (i < n - 2 ? 1 : 2)); };
    const std::string& n = spec.name;
    const RefLinear qkv = ref_linear(weights, n + ".qkv"), proj = ref_linear(weights, n + ".proj"),
                    fc1 = ref_linear(weights, n + ".fc1"), fc2 = ref_linear(weights, n + ".fc2");
    std::vector<double> bias;
    for (int64_t i = 0; i < weights.at(n + ".rel_bias").elements(); ++i)
        bias.push_back(f16_bits_to_f32(weights.at(n + ".rel_bias").f16()[i]));
    for (int wy = 0; wy < h / 4; ++wy) {
        for (int wx = 0; wx < w / 4; ++wx) {
            std::vector<double> win(size_t(T) * c);
            uint32_t mask[T];
            for (int t = 0; t < T; ++t) {
                const int ty = wy * 4 + t / 4, tx = wx * 4 + t % 4;
                for (int k = 0; k < c; ++k) win[size_t(t) * c + k] = rolled[(size_t(ty) * w + tx) * c + k];
                mask[t] = 0;
                for (int j = 0; j < T; ++j) {
                    const int jy = wy * 4 + j / 4, jx = wx * 4 + j % 4;
                    if (region(ty, h) == region(jy, h) && region(tx, w) == region(jx, w)) mask[t] |= 1u << j;
                }
            }
            std::vector<double> q = run_linear(qkv, norm_e4m3(win, weights.at(n + ".norm1.gain").f32(), c));
            for (double& v : q) v = f16(v);
            std::vector<double> a = reference_attention(q, c, spec.heads, bias, mask);
            for (double& v : a) v = e4m3(v);
            const std::vector<double> p = run_linear(proj, a);
            for (size_t i = 0; i < win.size(); ++i) win[i] = f16(win[i] + p[i]);
            std::vector<double> hidden = run_linear(fc1, norm_e4m3(win, weights.at(n + ".norm2.gain").f32(), c));
            for (double& v : hidden) v = e4m3(0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))));
            const std::vector<double> f = run_linear(fc2, hidden);
            for (size_t i = 0; i < win.size(); ++i) win[i] = f16(win[i] + f[i]);
            for (int t = 0; t < T; ++t) {
                const int ty = wy * 4 + t / 4, tx = wx * 4 + t % 4;
                for (int k = 0; k < c; ++k) rolled[(size_t(ty) * w + tx) * c + k] = win[size_t(t) * c + k];
            }
        }
    }
    for (int y = 0; y < h; ++y)
        for (int xx = 0; xx < w; ++xx)
            for (int k = 0; k < c; ++k)
                x[(size_t((y + s) % h) * w + (xx + s) % w) * c + k] = rolled[(size_t(y) * w + xx) * c + k];
    return x;
}

// Bound: the reference rounds at the same points, so CPU and reference differ only where an f32
// value lands so close to an e4m3 or f16 rounding boundary that the double value rounds the other
// way: rare, so at least 99% of the elements must be bit-identical (measured: all but 0-4 of
// 2048-9216). One e4m3 flip changes one GEMM input by one e4m3 step (<= 1/8 of its magnitude),
// i.e. one of K products; with outputs of RMS ~ 1 (the scales are chosen for that) it moves an
// output by about 1/8 / sqrt(K) < 0.03 (K >= 32), a softmax-weight flip far less (measured worst:
// 2.4e-4). The bound, 0.05 absolute on values of mean magnitude ~ 0.9, allows one such flip.
TEST(SwinBlock, MatchesDoubleReference) {
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(-1.5f, 1.5f);
    struct Case {
        Variant variant;
        const char* block;  // d = 16 (enc0), 32 (enc1, tube0), 24 (enc2)
        int w, h;
    };
    for (const Case cs : {Case{Variant::full, "enc0", 8, 8}, Case{Variant::lite, "enc1", 12, 8},
                          Case{Variant::lite, "enc2", 8, 12}, Case{Variant::lite, "tube0", 8, 8}}) {
        const auto weights = test::make_random_weights(cs.variant, 17);
        BlockSpec spec{};
        for (const BlockSpec& b : weights->config.blocks())
            if (b.name == cs.block) spec = b;
        ASSERT_EQ(spec.name, cs.block);
        const cpu::SwinBlock block = cpu::SwinBlock::from_weights(*weights, spec);
        for (bool shifted : {false, true}) {
            std::vector<float> x(size_t(cs.w) * cs.h * spec.channels);
            for (float& v : x) v = round_to_f16(u(rng));
            const std::vector<double> ref =
                reference_block(*weights, spec, std::vector<double>(x.begin(), x.end()), cs.w, cs.h, shifted);
            cpu::swin_block(block, x.data(), cs.w, cs.h, shifted);
            int exact = 0;
            double worst = 0, moved = 0;
            for (size_t i = 0; i < x.size(); ++i) {
                ASSERT_EQ(x[i], round_to_f16(x[i]));
                exact += double(x[i]) == ref[i];
                worst = std::max(worst, std::fabs(double(x[i]) - ref[i]));
                moved += std::fabs(ref[i]);
            }
            EXPECT_LE(worst, 0.05) << cs.block << (shifted ? " shifted" : "");
            EXPECT_GE(exact, int(0.99 * double(x.size()))) << cs.block << (shifted ? " shifted" : "");
            std::printf("%s %s: %d of %zu bit-identical, worst %.3g (mean |x| %.3g)\n", cs.block,
                        shifted ? "shifted" : "unshifted", exact, x.size(), worst, moved / double(x.size()));
        }
    }
}

// The shift is not cosmetic: shifted and unshifted blocks give different outputs, and a block
// run window range by window range equals the whole-grid call (windows are independent).
TEST(SwinBlock, ShiftMattersAndWindowRangesCompose) {
    const auto weights = test::make_random_weights(Variant::lite, 18);
    const BlockSpec spec = weights->config.blocks()[0];
    const cpu::SwinBlock block = cpu::SwinBlock::from_weights(*weights, spec);
    const int w = 16, h = 8;
    std::mt19937 rng(2);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x(size_t(w) * h * spec.channels);
    for (float& v : x) v = round_to_f16(u(rng));
    std::vector<float> a = x, b = x, c = x;
    cpu::swin_block(block, a.data(), w, h, false);
    cpu::swin_block(block, b.data(), w, h, true);
    EXPECT_NE(a, b);
    for (int win = 0; win < 8; win += 3) cpu::swin_block_windows(block, c.data(), w, h, true, win, std::min(3, 8 - win));
    EXPECT_EQ(b, c);
}

}  // namespace
}  // namespace swinup
