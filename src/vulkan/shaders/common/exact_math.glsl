// The exact-mode formulas of src/numeric/exact_math.h in GLSL: the same operation sequence, so
// that a shader produces the C++ bits for the same input (tests/vulkan/test_vulkan_numeric.cpp
// checks it on the device the tests run on).
//
// How each step is kept exact on a Vulkan device:
// - mul/add/sub: Vulkan requires OpFMul/OpFAdd/OpFSub to be correctly rounded; `precise` marks
//   them NoContraction so that no compiler fuses a*b+c into an FMA behind our back.
// - fma: Vulkan lets GLSL fma() be a multiply and an add rounded separately (Mesa's lavapipe
//   does that), so exact_fma computes a*b+c in integer arithmetic and rounds once, like
//   std::fma and CUDA's __fmaf_rn. It costs tens of integer operations; fast mode uses fma().
// - div and sqrt: Vulkan allows 2.5 ulp / 3 ulp for a/b and sqrt(), so both are computed here
//   in integer arithmetic, correctly rounded to nearest even like IEEE (exact_div, exact_sqrt).
// - NaN tests use the bits, not x != x (a compiler may assume no NaN without
//   SignedZeroInfNanPreserve). Constants are written as bit patterns: glslang folds decimal
//   literals through double, which can round differently from the C++ compiler's float literal.
// - Subnormal results that the C++ code produces by scaling (exp2 below 2^-126) are built from
//   bits; a device that flushes subnormal operands of mul/add would still differ there, which is
//   why exact mode asks for shaderDenormPreserveFloat32 where present (docs/vulkan.md).
#ifndef SWINUP_EXACT_MATH_GLSL
#define SWINUP_EXACT_MATH_GLSL

bool bits_is_nan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }

float exact_mul(float a, float b) { precise float r = a * b; return r; }
float exact_add(float a, float b) { precise float r = a + b; return r; }
float exact_sub(float a, float b) { precise float r = a - b; return r; }
float exact_rint(float a) { return roundEven(a); }

const uint kExactQuietNaN = 0x7fc00000u;

// Normalises a finite non-zero magnitude (bits without sign) to a 24-bit significand with its
// leading bit at bit 23; returns the unbiased exponent.
int exact_normalise(uint abs_bits, out uint significand) {
    const uint e = abs_bits >> 23;
    const uint m = abs_bits & 0x7fffffu;
    if (e == 0u) {  // subnormal: shift the leading one up to bit 23
        const uint lead = uint(findMSB(m));
        significand = m << (23u - lead);
        return int(lead) - 149;
    }
    significand = m | 0x800000u;
    return int(e) - 127;
}

// Packs sign | q * 2^(e2) where q holds 25 bits (24 significand bits and a round bit below them,
// leading one at bit 24) and `sticky` says whether anything non-zero lay below the round bit.
// Rounds to nearest even, to subnormal, to zero or to Inf as IEEE does.
float exact_pack_rounded(uint sign, int exponent, uint q, bool sticky) {
    // The value is q * 2^(exponent - 24); its leading bit has weight 2^exponent.
    int biased = exponent + 127;
    if (biased < 1) {  // subnormal result: drop (1 - biased) more bits into the sticky bit
        const int s = 1 - biased;
        if (s > 25) {
            sticky = sticky || q != 0u;
            q = 0u;
        } else {
            sticky = sticky || (q & ((1u << uint(s)) - 1u)) != 0u;
            q >>= uint(s);
        }
        biased = 1;
        // Now q has its leading bit (if any) below bit 24; the encoding below adds no implicit bit.
        uint m = q >> 1;
        const bool round_bit = (q & 1u) != 0u;
        if (round_bit && (sticky || (m & 1u) != 0u)) m += 1u;  // may carry into the smallest normal
        return uintBitsToFloat(sign | m);
    }
    uint m = q >> 1;  // 24 bits with the implicit one at bit 23
    const bool round_bit = (q & 1u) != 0u;
    if (round_bit && (sticky || (m & 1u) != 0u)) m += 1u;
    if (biased >= 255) return uintBitsToFloat(sign | 0x7f800000u);
    const uint bits = (uint(biased - 1) << 23) + m;  // a carry out of m bumps the exponent
    if (bits >= 0x7f800000u) return uintBitsToFloat(sign | 0x7f800000u);
    return uintBitsToFloat(sign | bits);
}

// 64-bit unsigned integers as uvec2(low word, high word), for exact_fma's significands.
uvec2 u64_add(uvec2 a, uvec2 b) {
    uint carry;
    const uint lo = uaddCarry(a.x, b.x, carry);
    return uvec2(lo, a.y + b.y + carry);
}
uvec2 u64_sub(uvec2 a, uvec2 b) {  // a >= b
    uint borrow;
    const uint lo = usubBorrow(a.x, b.x, borrow);
    return uvec2(lo, a.y - b.y - borrow);
}
bool u64_less(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
bool u64_is_zero(uvec2 a) { return (a.x | a.y) == 0u; }
int u64_msb(uvec2 a) { return a.y != 0u ? 32 + findMSB(a.y) : findMSB(a.x); }
uvec2 u64_shl(uvec2 a, uint n) {  // n < 64
    if (n == 0u) return a;
    if (n >= 32u) return uvec2(0u, a.x << (n - 32u));
    return uvec2(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}
uvec2 u64_shr(uvec2 a, uint n) {  // n < 64
    if (n == 0u) return a;
    if (n >= 32u) return uvec2(a.y >> (n - 32u), 0u);
    return uvec2((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}
// a >> n with every shifted-out one OR-ed into bit 0 ("jamming"), so rounding still sees it.
uvec2 u64_shr_jam(uvec2 a, uint n) {
    if (n == 0u) return a;
    if (n >= 64u) return uvec2(u64_is_zero(a) ? 0u : 1u, 0u);
    const uvec2 kept = u64_shr(a, n);
    const bool lost = !u64_is_zero(u64_sub(a, u64_shl(kept, n)));
    return uvec2(kept.x | (lost ? 1u : 0u), kept.y);
}

// a * b + c rounded once to nearest even, IEEE special cases (NaN results are the quiet NaN).
float exact_fma(float a, float b, float c) {
    const uint ua = floatBitsToUint(a), ub = floatBitsToUint(b), uc = floatBitsToUint(c);
    const uint aa = ua & 0x7fffffffu, ab = ub & 0x7fffffffu, ac = uc & 0x7fffffffu;
    const uint sp = (ua ^ ub) & 0x80000000u;  // the product's sign
    const uint sc = uc & 0x80000000u;
    if (aa > 0x7f800000u || ab > 0x7f800000u || ac > 0x7f800000u) return uintBitsToFloat(kExactQuietNaN);
    if (aa == 0x7f800000u || ab == 0x7f800000u) {
        if (aa == 0u || ab == 0u) return uintBitsToFloat(kExactQuietNaN);  // Inf * 0
        if (ac == 0x7f800000u && sc != sp) return uintBitsToFloat(kExactQuietNaN);  // Inf - Inf
        return uintBitsToFloat(sp | 0x7f800000u);
    }
    if (ac == 0x7f800000u) return c;
    if (aa == 0u || ab == 0u) {  // an exact zero product: the sum is c, or a signed zero
        if (ac != 0u) return c;
        return uintBitsToFloat(sp & sc);  // -0 only when both are -0 (round to nearest)
    }
    uint ma, mb;
    const int eab = exact_normalise(aa, ma) + exact_normalise(ab, mb);
    uint p_hi, p_lo;
    umulExtended(ma, mb, p_hi, p_lo);           // ma*mb in [2^46, 2^48)
    uvec2 x = u64_shl(uvec2(p_lo, p_hi), 14u);  // [2^60, 2^62), weight 2^(eab - 60)
    int scale = eab - 60;
    bool negative = sp != 0u;
    if (ac != 0u) {
        uint mc;
        const int ec = exact_normalise(ac, mc);
        uvec2 y = u64_shl(uvec2(mc, 0u), 37u);  // [2^60, 2^61), weight 2^(ec - 60)
        const int d = eab - ec;
        // Align the smaller weight to the larger; the low 14 (product) and 37 (c) bits are zero,
        // so the jammed bit can only matter when the shifted operand is far below the other.
        if (d >= 0) {
            y = u64_shr_jam(y, uint(min(d, 64)));
        } else {
            x = u64_shr_jam(x, uint(min(-d, 64)));
            scale = ec - 60;
        }
        if (sp == sc) {
            x = u64_add(x, y);
        } else if (u64_less(x, y)) {
            x = u64_sub(y, x);
            negative = !negative;
        } else {
            x = u64_sub(x, y);
        }
        if (u64_is_zero(x)) return 0.0;  // exact cancellation gives +0 when rounding to nearest
    }
    // Normalise to 25 bits (24 and the round bit) and a sticky bit, then round once.
    const int msb = u64_msb(x);
    uint q;
    bool sticky = false;
    if (msb >= 24) {
        const uvec2 kept = u64_shr(x, uint(msb - 24));
        sticky = !u64_is_zero(u64_sub(x, u64_shl(kept, uint(msb - 24))));
        q = kept.x;
    } else {
        q = x.x << uint(24 - msb);
    }
    return exact_pack_rounded(negative ? 0x80000000u : 0u, scale + msb, q, sticky);
}

// a / b, correctly rounded to nearest even, IEEE special cases (NaN results are the quiet NaN).
float exact_div(float a, float b) {
    const uint ua = floatBitsToUint(a);
    const uint ub = floatBitsToUint(b);
    const uint sign = (ua ^ ub) & 0x80000000u;
    const uint aa = ua & 0x7fffffffu;
    const uint ab = ub & 0x7fffffffu;
    if (aa > 0x7f800000u || ab > 0x7f800000u) return uintBitsToFloat(kExactQuietNaN);
    if (aa == 0x7f800000u) {
        return uintBitsToFloat(ab == 0x7f800000u ? kExactQuietNaN : (sign | 0x7f800000u));
    }
    if (ab == 0x7f800000u) return uintBitsToFloat(sign);
    if (ab == 0u) return uintBitsToFloat(aa == 0u ? kExactQuietNaN : (sign | 0x7f800000u));
    if (aa == 0u) return uintBitsToFloat(sign);
    uint ma, mb;
    int e = exact_normalise(aa, ma) - exact_normalise(ab, mb);
    if (ma < mb) {  // make ma / mb lie in [1, 2)
        ma <<= 1;
        e -= 1;
    }
    // Restoring division: 25 quotient bits (24 + the round bit); the remainder is the sticky bit.
    uint q = 0u;
    uint r = ma;
    for (int i = 0; i < 25; ++i) {
        q <<= 1;
        if (r >= mb) {
            r -= mb;
            q |= 1u;
        }
        r <<= 1;
    }
    return exact_pack_rounded(sign, e, q, r != 0u);
}

// sqrt(a), correctly rounded; sqrt(-0) = -0, negative or NaN gives the quiet NaN.
float exact_sqrt(float a) {
    const uint ua = floatBitsToUint(a);
    const uint aa = ua & 0x7fffffffu;
    if (aa > 0x7f800000u) return uintBitsToFloat(kExactQuietNaN);
    if (aa == 0u) return a;
    if ((ua & 0x80000000u) != 0u) return uintBitsToFloat(kExactQuietNaN);
    if (aa == 0x7f800000u) return a;
    uint m;
    int x = exact_normalise(aa, m);
    if ((x & 1) != 0) {  // make the exponent even: m in [2^23, 2^25)
        m <<= 1;
        x -= 1;
    }
    // Digit-by-digit square root of R = m * 2^25 (< 2^50): 25 root bits, two radicand bits per
    // step; R's bit p is m's bit p - 25. The remainder stays below 2^27.
    uint root = 0u;
    uint rem = 0u;
    for (int i = 0; i < 25; ++i) {
        const int p = 48 - 2 * i;
        const uint hi = (p + 1 >= 25) ? ((m >> uint(p + 1 - 25)) & 1u) : 0u;
        const uint lo = (p >= 25) ? ((m >> uint(p - 25)) & 1u) : 0u;
        rem = (rem << 2) | (hi << 1) | lo;
        const uint trial = (root << 2) | 1u;
        if (rem >= trial) {
            rem -= trial;
            root = (root << 1) | 1u;
        } else {
            root <<= 1;
        }
    }
    return exact_pack_rounded(0u, x / 2, root, rem != 0u);
}

#define kExactLog2e uintBitsToFloat(0x3fb8aa3bu)  // 1.44269504088896340736f
#define kExactLn2 uintBitsToFloat(0x3f317218u)    // 0.693147180559945309417f

// t * 2^-k for a positive normal t whose result may be subnormal, rounded to nearest even
// (what the C++ mul(t, 2^-k) gives, built from bits so that no denormal arithmetic is needed).
float exact_scale_down(float t, int k) {
    uint m;
    const int e = exact_normalise(floatBitsToUint(t) & 0x7fffffffu, m);
    return exact_pack_rounded(floatBitsToUint(t) & 0x80000000u, e - k, m << 1, false);
}

float exact_exp2(float x) {
    if (bits_is_nan(x)) return x;
    if (x < -126.0) return 0.0;
    if (x > 127.0) x = 127.0;
    const float n = exact_rint(x);
    const float f = exact_sub(x, n);
    float p = uintBitsToFloat(0x39218489u);                  // 1.5403530393381609e-4f
    p = exact_fma(p, f, uintBitsToFloat(0x3aaec3ffu));       // 1.3333558146428443e-3f
    p = exact_fma(p, f, uintBitsToFloat(0x3c1d955bu));       // 9.6181291076284772e-3f
    p = exact_fma(p, f, uintBitsToFloat(0x3d635847u));       // 5.5504108664821580e-2f
    p = exact_fma(p, f, uintBitsToFloat(0x3e75fdf0u));       // 2.4022650695910071e-1f
    p = exact_fma(p, f, uintBitsToFloat(0x3f317218u));       // 6.9314718055994531e-1f
    p = exact_fma(p, f, 1.0);
    const int ni = int(n);
    if (ni < -125) {
        return exact_scale_down(exact_mul(p, uintBitsToFloat(uint(ni + 127 + 64) << 23)), 64);
    }
    return exact_mul(p, uintBitsToFloat(uint(ni + 127) << 23));
}

float exact_log2(float x) {
    if (bits_is_nan(x)) return x;
    if (!(x > 0.0)) return -126.0;
    if (x > uintBitsToFloat(0x7f7fc99eu)) x = uintBitsToFloat(0x7f7fc99eu);  // 3.4e38f
    const uint bits = floatBitsToUint(x);
    int e = int(bits >> 23) - 127;
    if ((bits >> 23) == 0u) return -126.0;
    float m = uintBitsToFloat((bits & 0x7fffffu) | 0x3f800000u);
    if (m > uintBitsToFloat(0x3fb504f3u)) {                  // 1.41421356237f
        m = exact_mul(m, 0.5);
        e += 1;
    }
    const float u = exact_div(exact_sub(m, 1.0), exact_add(m, 1.0));
    const float u2 = exact_mul(u, u);
    float s = uintBitsToFloat(0x3dba2e8cu);                  // 1.0f / 11.0f
    s = exact_fma(s, u2, uintBitsToFloat(0x3de38e39u));      // 1.0f / 9.0f
    s = exact_fma(s, u2, uintBitsToFloat(0x3e124925u));      // 1.0f / 7.0f
    s = exact_fma(s, u2, uintBitsToFloat(0x3e4ccccdu));      // 1.0f / 5.0f
    s = exact_fma(s, u2, uintBitsToFloat(0x3eaaaaabu));      // 1.0f / 3.0f
    s = exact_fma(s, u2, 1.0);
    const float ln_m = exact_mul(exact_mul(2.0, u), s);
    return exact_fma(ln_m, kExactLog2e, float(e));
}

float exact_tanh(float y) {
    const float e = exact_exp2(exact_mul(exact_mul(2.0, y), kExactLog2e));
    return exact_sub(1.0, exact_div(2.0, exact_add(1.0, e)));
}

float exact_sigmoid(float x) {
    return exact_div(1.0, exact_add(1.0, exact_exp2(exact_mul(-x, kExactLog2e))));
}

float exact_gelu(float x) {
    const float x3 = exact_mul(exact_mul(x, x), x);
    const float inner = exact_mul(uintBitsToFloat(0x3f4c422au) /* 0.7978845608028654f */,
                                  exact_fma(uintBitsToFloat(0x3d372713u) /* 0.044715f */, x3, x));
    return exact_mul(exact_mul(0.5, x), exact_add(1.0, exact_tanh(inner)));
}

float exact_tonemap_t(float x) { return exact_log2(exact_add(1.0, x > 0.0 ? x : 0.0)); }
float exact_tonemap_t_inverse(float y) { return exact_sub(exact_exp2(y), 1.0); }

#endif
