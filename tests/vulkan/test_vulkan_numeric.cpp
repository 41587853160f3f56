// src/vulkan/shaders/common/ (e4m3.glsl, half.glsl, exact_math.glsl) against src/numeric/ bit for
// bit, on the device the tests run on: all 256 e4m3 codes, all 65536 f16 codes, the rounding of
// random floats of every class plus every tie point and its neighbours, and the exact-mode
// formulas over the ranges the network feeds them and beyond. NaN results compare as "both NaN"
// (the payload is not part of the contract); everything else compares as bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "numeric/e4m3.h"
#include "numeric/exact_math.h"
#include "numeric/float_bits.h"
#include "numeric/half.h"
#include "vulkan/runtime/memory.h"
#include "vulkan/runtime/recorder.h"
#include "vulkan_test_shaders.h"
#include "vulkan_test_support.h"

namespace swinup::vulkan {
namespace {

using testing::VulkanTest;

// The op numbers of tests/vulkan/shaders/numeric_check.comp.
enum Op : uint32_t {
    kToE4m3 = 0, kFromE4m3, kToF16, kFromF16, kRoundE4m3, kRoundF16, kMul, kAdd, kSub, kFma, kDiv, kSqrt,
    kRint, kExp2, kLog2, kTanh, kSigmoid, kGelu, kTonemap, kTonemapInverse, kPack4, kPack2,
};

struct Args {
    uint32_t a, b, c;
};

bool is_nan_bits(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

class VulkanNumeric : public VulkanTest {
protected:
    std::vector<uint32_t> run(Op op, const std::vector<Args>& args) {
        struct Push {
            uint32_t op, count;
        };
        const uint32_t n = static_cast<uint32_t>(args.size());
        Buffer in(device(), n * sizeof(Args), MemoryUse::Upload);
        Buffer out(device(), n * 4ull, MemoryUse::Readback);
        in.write(args.data(), n * sizeof(Args));
        HostSubmitter submitter(device());
        Recorder& rec = submitter.begin();
        rec.dispatch(device().pipeline({&test_shaders::numeric_check,
                                        {BindingKind::StorageBuffer, BindingKind::StorageBuffer}, sizeof(Push), {}}),
                     {Bind::buffer(in), Bind::buffer(out)}, Push{op, n}, Groups{div_up(n, 64)});
        submitter.submit_and_wait();
        std::vector<uint32_t> result(n);
        out.read(result.data(), n * 4ull);
        return result;
    }

    // Runs `op` on the device and `reference` on the host; every result must match.
    void compare(const char* what, Op op, const std::vector<Args>& args,
                 const std::function<uint32_t(const Args&)>& reference, bool nan_is_bits = false) {
        const auto got = run(op, args);
        size_t mismatches = 0;
        for (size_t i = 0; i < args.size(); ++i) {
            const uint32_t want = reference(args[i]);
            const bool same = got[i] == want || (!nan_is_bits && is_nan_bits(got[i]) && is_nan_bits(want));
            if (!same && ++mismatches <= 8) {
                ADD_FAILURE() << what << " of (0x" << std::hex << args[i].a << ", 0x" << args[i].b << ", 0x"
                              << args[i].c << "): device 0x" << got[i] << ", C++ 0x" << want << std::dec << " ("
                              << bits_to_float(got[i]) << " vs " << bits_to_float(want) << ")";
            }
        }
        EXPECT_EQ(mismatches, 0u) << what << ": " << mismatches << " of " << args.size() << " differ";
    }
};

uint32_t u32(std::mt19937& rng) { return static_cast<uint32_t>(rng()); }
uint32_t fb(float f) { return float_to_bits(f); }
float bf(uint32_t u) { return bits_to_float(u); }

// Floats of every class: random bit patterns (normal, subnormal, zero, Inf, NaN of both signs).
std::vector<uint32_t> random_bits(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint32_t> v(n);
    for (auto& x : v) x = u32(rng);
    const uint32_t specials[] = {0u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u,
                                 1u, 0x807fffffu, 0x00800000u, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u};
    for (size_t i = 0; i < sizeof specials / 4 && i < n; ++i) v[i] = specials[i];
    return v;
}

std::vector<Args> unary(const std::vector<uint32_t>& v) {
    std::vector<Args> a;
    for (uint32_t x : v) a.push_back({x, 0, 0});
    return a;
}

// The points halfway between consecutive representable values of a format (given as the sorted
// positive finite values), with their float neighbours and both signs: where ties are decided.
std::vector<uint32_t> tie_points(const std::vector<float>& values) {
    std::vector<uint32_t> v;
    for (size_t i = 0; i + 1 < values.size(); ++i) {
        const double mid = (static_cast<double>(values[i]) + values[i + 1]) / 2.0;
        const uint32_t m = fb(static_cast<float>(mid));  // exact: the midpoint has few bits
        for (uint32_t d : {m - 1, m, m + 1}) {
            v.push_back(d);
            v.push_back(d | 0x80000000u);
        }
    }
    return v;
}

TEST_F(VulkanNumeric, E4m3DecodesAll256Codes) {
    std::vector<Args> args;
    for (uint32_t c = 0; c < 256; ++c) args.push_back({c, 0, 0});
    compare("e4m3_to_f32", kFromE4m3, args, [](const Args& a) { return fb(e4m3_to_f32(static_cast<uint8_t>(a.a))); });
}

TEST_F(VulkanNumeric, E4m3RoundsEveryClassAndEveryTie) {
    std::vector<float> values;
    for (uint32_t c = 0; c < 0x7f; ++c) values.push_back(e4m3_to_f32(static_cast<uint8_t>(c)));
    values.push_back(464.0f);  // the tie above 448 saturates
    auto bits = tie_points(values);
    for (uint32_t c = 0; c < 256; ++c) bits.push_back(fb(e4m3_to_f32(static_cast<uint8_t>(c))));
    const auto random = random_bits(1 << 18, 1);
    bits.insert(bits.end(), random.begin(), random.end());
    std::mt19937 rng(2);  // and the e4m3 range densely: |f| in [2^-12, 2^10)
    for (int i = 0; i < (1 << 16); ++i) bits.push_back((u32(rng) & 0x80000000u) | ((u32(rng) % (22u << 23)) + (115u << 23)));
    const auto args = unary(bits);
    compare("f32_to_e4m3", kToE4m3, args, [](const Args& a) { return uint32_t{f32_to_e4m3(bf(a.a))}; }, true);
    compare("round_to_e4m3", kRoundE4m3, args, [](const Args& a) { return fb(round_to_e4m3(bf(a.a))); });
}

TEST_F(VulkanNumeric, F16DecodesAllCodesAndRoundsEveryClassAndEveryTie) {
    std::vector<Args> codes;
    for (uint32_t h = 0; h < 65536; ++h) codes.push_back({h, 0, 0});
    compare("f16_bits_to_f32", kFromF16, codes, [](const Args& a) { return fb(f16_bits_to_f32(static_cast<uint16_t>(a.a))); }, true);

    std::vector<float> values;
    for (uint32_t h = 0; h < 0x7c00; ++h) values.push_back(f16_bits_to_f32(static_cast<uint16_t>(h)));
    values.push_back(65536.0f);  // the tie at 65520 overflows to Inf
    auto bits = tie_points(values);
    const auto random = random_bits(1 << 18, 3);
    bits.insert(bits.end(), random.begin(), random.end());
    const auto args = unary(bits);
    compare("f32_to_f16_bits", kToF16, args, [](const Args& a) { return uint32_t{f32_to_f16_bits(bf(a.a))}; }, true);
    compare("round_to_f16", kRoundF16, args, [](const Args& a) { return fb(round_to_f16(bf(a.a))); });
}

TEST_F(VulkanNumeric, PackingKeepsCodes) {
    const auto r = random_bits(4096, 4);
    std::vector<Args> args;
    for (size_t i = 0; i + 2 < r.size(); i += 3) args.push_back({r[i], r[i + 1], r[i + 2]});
    compare("e4m3_pack4/unpack", kPack4, args, [](const Args& a) {
        const uint32_t codes[4] = {f32_to_e4m3(bf(a.a)), f32_to_e4m3(bf(a.b)), f32_to_e4m3(bf(a.c)), 0x55u};
        return codes[a.a & 3u];
    }, true);
    compare("f16_pack2/unpack", kPack2, args, [](const Args& a) {
        return fb((a.a & 1u) ? round_to_f16(bf(a.b)) : round_to_f16(bf(a.a)));
    });
}

// Normal operands whose results stay normal: mul/add/sub/fma are the device's own instructions,
// and a device may flush subnormal operands (shaderDenormPreserveFloat32 is optional).
std::vector<Args> normal_triples(size_t n, uint32_t seed, uint32_t exp_lo, uint32_t exp_hi) {
    std::mt19937 rng(seed);
    std::vector<Args> v(n);
    auto one = [&] { return (u32(rng) & 0x80000000u) | ((exp_lo + u32(rng) % (exp_hi - exp_lo)) << 23) | (u32(rng) & 0x7fffffu); };
    for (auto& a : v) a = {one(), one(), one()};
    return v;
}

TEST_F(VulkanNumeric, ExactArithmeticIsCorrectlyRoundedAndUncontracted) {
    const auto args = normal_triples(1 << 16, 5, 100, 154);
    compare("exact::mul", kMul, args, [](const Args& a) { return fb(exact::mul(bf(a.a), bf(a.b))); });
    compare("exact::add", kAdd, args, [](const Args& a) { return fb(exact::add(bf(a.a), bf(a.b))); });
    compare("exact::sub", kSub, args, [](const Args& a) { return fb(exact::sub(bf(a.a), bf(a.b))); });
    compare("exact::fma", kFma, args, [](const Args& a) { return fb(exact::fma(bf(a.a), bf(a.b), bf(a.c))); });
    // Cancellation, where a fused and an unfused a*b+c differ most: c = -round(a*b).
    std::vector<Args> cancel = args;
    for (auto& a : cancel) a.c = fb(-exact::mul(bf(a.a), bf(a.b)));
    compare("exact::fma (cancelling)", kFma, cancel, [](const Args& a) { return fb(exact::fma(bf(a.a), bf(a.b), bf(a.c))); });
}

TEST_F(VulkanNumeric, ExactFmaDivisionAndSquareRootAreCorrectlyRoundedForEveryClass) {
    const auto r = random_bits(1 << 18, 6);
    std::vector<Args> args;
    for (size_t i = 0; i + 1 < r.size(); i += 2) args.push_back({r[i], r[i + 1], 0});
    const auto normal = normal_triples(1 << 16, 7, 1, 254);
    args.insert(args.end(), normal.begin(), normal.end());
    std::mt19937 rng(8);  // quotients near 1 and exact quotients
    for (int i = 0; i < 4096; ++i) {
        const float b = bf((127u << 23) | (u32(rng) & 0x7fffffu));
        args.push_back({fb(b * static_cast<float>(1 + u32(rng) % 1000)), fb(b), 0});
    }
    std::vector<Args> triples;  // every class, and products near c's size where c cancels them
    const auto r3 = random_bits(3 << 16, 15);
    for (size_t i = 0; i + 2 < r3.size(); i += 3) triples.push_back({r3[i], r3[i + 1], r3[i + 2]});
    for (size_t i = 0; i < 8192; ++i) {
        Args t = normal_triples(1, static_cast<uint32_t>(100 + i), 1, 254)[0];
        t.c = fb(-exact::mul(bf(t.a), bf(t.b)) * (1.0f + static_cast<float>(i % 7) * 0x1p-22f));
        triples.push_back(t);
    }
    compare("exact::fma", kFma, triples, [](const Args& a) { return fb(exact::fma(bf(a.a), bf(a.b), bf(a.c))); });
    compare("exact::div", kDiv, args, [](const Args& a) { return fb(exact::div(bf(a.a), bf(a.b))); });
    compare("exact::sqrt", kSqrt, args, [](const Args& a) { return fb(exact::sqrt(bf(a.a))); });
    compare("exact::rint", kRint, args, [](const Args& a) { return fb(exact::rint(bf(a.a))); });
}

// Uniform floats in [lo, hi] plus the specials.
std::vector<Args> range(float lo, float hi, size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<Args> v;
    for (uint32_t s : {0u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x3f800000u, 0xbf800000u}) {
        v.push_back({s, 0, 0});
    }
    for (size_t i = 0; i < n; ++i) v.push_back({fb(d(rng)), 0, 0});
    return v;
}

TEST_F(VulkanNumeric, ExactTranscendentalsMatchTheCpp) {
    auto exp_args = range(-130.0f, 130.0f, 1 << 16, 9);
    const auto near_floor = range(-126.5f, -124.5f, 1 << 14, 10);  // subnormal results
    exp_args.insert(exp_args.end(), near_floor.begin(), near_floor.end());
    compare("exact::exp2", kExp2, exp_args, [](const Args& a) { return fb(exact::exp2(bf(a.a))); });
    compare("exact::tonemap_t_inverse", kTonemapInverse, exp_args,
            [](const Args& a) { return fb(exact::tonemap_t_inverse(bf(a.a))); });

    std::vector<Args> positive = unary(random_bits(1 << 16, 11));
    for (auto& a : positive) a.a &= 0x7fffffffu;
    const auto colours = range(0.0f, 70000.0f, 1 << 15, 12);
    positive.insert(positive.end(), colours.begin(), colours.end());
    compare("exact::log2", kLog2, positive, [](const Args& a) { return fb(exact::log2(bf(a.a))); });
    compare("exact::tonemap_t", kTonemap, positive, [](const Args& a) { return fb(exact::tonemap_t(bf(a.a))); });

    const auto act = range(-30.0f, 30.0f, 1 << 16, 13);
    const auto act_small = range(-4.0f, 4.0f, 1 << 16, 14);
    for (const auto* set : {&act, &act_small}) {
        compare("exact::tanh", kTanh, *set, [](const Args& a) { return fb(exact::tanh(bf(a.a))); });
        compare("exact::sigmoid", kSigmoid, *set, [](const Args& a) { return fb(exact::sigmoid(bf(a.a))); });
        compare("exact::gelu", kGelu, *set, [](const Args& a) { return fb(exact::gelu(bf(a.a))); });
    }
}

}  // namespace
}  // namespace swinup::vulkan
