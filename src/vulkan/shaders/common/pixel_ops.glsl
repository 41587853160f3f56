// The per-pixel arithmetic of src/frame/pixel_ops.h, exposure.h and output_encoding.h in GLSL: the
// same operation sequences through exact_math.glsl, the same comparisons (NaN behaves as in the
// C++: clampf/minf/maxf are written with the C++'s comparisons, not GLSL's clamp/min/max), and
// the constants as the bit patterns of the C++'s float literals.
#ifndef SWINUP_PIXEL_OPS_GLSL
#define SWINUP_PIXEL_OPS_GLSL

#include "e4m3.glsl"
#include "exact_math.glsl"
#include "half.glsl"

#define F(bits) uintBitsToFloat(bits)

bool px_is_finite(float x) { return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u; }
bool px_is_nan(float x) { return bits_is_nan(x); }
float px_clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
int px_clampi(int x, int lo, int hi) { return x < lo ? lo : (x > hi ? hi : x); }
float px_minf(float a, float b) { return a < b ? a : b; }
float px_maxf(float a, float b) { return a > b ? a : b; }

const float kHalfMax = 65504.0;
const float kE4m3Max = 448.0;

int px_floor_to_int(float x) {
    const int i = int(x);  // truncates toward zero
    return (float(i) > x) ? i - 1 : i;
}

bool px_on_screen(float pos, int size) { return pos >= 0.0 && pos < float(size); }

float px_t_of(float x) { return exact_tonemap_t(x); }
float px_t_inverse(float y) { return exact_tonemap_t_inverse(y); }

// frame/pixel_ops.h srgb_to_linear: sRGB's transfer function undone with the exact-mode formulas.
float px_srgb_to_linear(float c) {
    if (!px_is_finite(c)) return c;
    const float a = abs(c);
    float linear;
    if (a <= F(0x3d25aee6u) /* 0.04045f */) {
        linear = exact_div(a, F(0x414eb852u) /* 12.92f */);
    } else {
        const float x = exact_div(exact_add(a, F(0x3d6147aeu) /* 0.055f */), F(0x3f870a3du) /* 1.055f */);
        linear = exact_exp2(exact_mul(F(0x4019999au) /* 2.4f */, exact_log2(x)));
    }
    return c < 0.0 ? -linear : linear;
}

float px_decode_colour(float raw, bool srgb) { return srgb ? px_srgb_to_linear(raw) : raw; }

// Staging of the raw inputs. `replaced` is set when the value had to be replaced.
float px_stage_color(float raw, float exposure, float pre_exposure, bool ldr, out bool replaced) {
    float c = exact_div(exact_mul(raw, exposure), pre_exposure);
    replaced = !px_is_finite(c);
    if (replaced) c = 0.0;
    c = px_maxf(c, 0.0);
    if (ldr) c = px_minf(c, 1.0);
    return c;
}

float px_stage_depth(float raw, bool inverted, out bool replaced) {
    replaced = !px_is_finite(raw);
    if (replaced) return 0.0;
    return inverted ? raw : exact_sub(1.0, raw);
}

float px_stage_motion(float raw, float mv_scale, float divide_by, out bool replaced) {
    const float m = exact_div(exact_mul(raw, mv_scale), divide_by);
    replaced = !px_is_finite(m);
    return replaced ? 0.0 : m;
}

float px_disocclusion_cue(float z_prev, float z) {
    const float denominator = px_maxf(px_maxf(z_prev, z), F(0x358637bdu) /* 1e-6f */);
    return px_clampf(exact_div(exact_sub(z_prev, z), denominator), -1.0, 1.0);
}

// frame/mask_pixel.h stage_mask: clamp to [0, 1], NaN/Inf read as 0; which of the two it was.
float px_stage_mask(float raw, out bool nonfinite, out bool out_of_range) {
    nonfinite = !px_is_finite(raw);
    out_of_range = !nonfinite && (raw < 0.0 || raw > 1.0);
    if (nonfinite) return 0.0;
    return px_clampf(raw, 0.0, 1.0);
}
// frame/mask_pixel.h read_mask_input of an R8_UNORM mask: code / 255 in f32 division. The sampler's
// UNORM conversion need not round as the CPU's division does, so the code is recovered first (the
// conversion is far closer than half a step to code / 255) and divided exactly.
float px_unorm8_mask_value(float sampled) {
    const float code = floor(px_clampf(sampled, 0.0, 1.0) * 255.0 + 0.5);
    return exact_div(code, 255.0);
}

// A slot as the network reads it: clamped to +-448 and rounded to e4m3 (the code).
uint px_slot_code(float x) { return f32_to_e4m3(px_clampf(x, -kE4m3Max, kE4m3Max)); }

// Auto exposure's per-pixel term (frame/exposure.h): log2(max(Rec.709 luminance, 2^-14)).
float px_auto_exposure_log2_luminance(vec3 rgb, float pre_exposure, bool srgb) {
    bool replaced;
    const float r = px_stage_color(px_decode_colour(rgb.r, srgb), 1.0, pre_exposure, false, replaced);
    const float g = px_stage_color(px_decode_colour(rgb.g, srgb), 1.0, pre_exposure, false, replaced);
    const float b = px_stage_color(px_decode_colour(rgb.b, srgb), 1.0, pre_exposure, false, replaced);
    const float luminance = exact_add(exact_add(exact_mul(F(0x3e59b3d0u) /* 0.2126f */, r),
                                                exact_mul(F(0x3f371759u) /* 0.7152f */, g)),
                                      exact_mul(F(0x3d93dd98u) /* 0.0722f */, b));
    return exact_log2(px_maxf(luminance, 6.103515625e-05 /* 2^-14, exact */));
}

// The exposure texture's value, or 1 when it is not a positive finite number.
float px_exposure_texture_value(float v) { return (px_is_finite(v) && v > 0.0) ? v : 1.0; }

// ---- history samplers ------------------------------------------------------------------------

void px_catmull_rom_weights(float f, out float w[6]) {
    const float f2 = exact_mul(f, f);
    const float f3 = exact_mul(f2, f);
    w[0] = exact_sub(exact_add(exact_mul(-0.5, f), f2), exact_mul(0.5, f3));
    w[1] = exact_add(exact_sub(1.0, exact_mul(2.5, f2)), exact_mul(1.5, f3));
    w[2] = exact_sub(exact_add(exact_mul(0.5, f), exact_mul(2.0, f2)), exact_mul(1.5, f3));
    w[3] = exact_add(exact_mul(-0.5, f2), exact_mul(0.5, f3));
    w[4] = 0.0;
    w[5] = 0.0;
}

// a * b + c: a product and a sum (exact mode), or one fused multiply-add (fast mode's variant).
float px_lanczos3_mul_add(bool fused, float a, float b, float c) {
    return fused ? fma(a, b, c) : exact_add(exact_mul(a, b), c);
}

void px_lanczos3_poly(bool fused, float u, float u2, float c7, float c6, float c5, float c4, float c3, float c2,
                      float c1, float c0, out float at_u, out float at_minus_u) {
    const float even = px_lanczos3_mul_add(fused, px_lanczos3_mul_add(fused,
                           px_lanczos3_mul_add(fused, c6, u2, c4), u2, c2), u2, c0);
    const float odd = px_lanczos3_mul_add(fused, px_lanczos3_mul_add(fused,
                          px_lanczos3_mul_add(fused, c7, u2, c5), u2, c3), u2, c1);
    at_u = px_lanczos3_mul_add(fused, u, odd, even);
    at_minus_u = px_lanczos3_mul_add(fused, -u, odd, even);
}

void px_lanczos3_weights(bool fused, float f, out float w[6]) {
    const float u = exact_sub(f, 0.5);
    const float u2 = exact_mul(u, u);
    const float h = exact_sub(0.25, u2);
    float q0, q0m, q1, q1m, q2, q2m;
    px_lanczos3_poly(fused, u, u2, F(0x3d44c6d9u), F(0x3cbfcf1du), F(0xbdc6cb49u), F(0xbd93f1d3u), F(0x3e5e456eu),
                     F(0x3d1eeff3u), F(0xbe82ea85u), F(0x3dc85916u), q0, q0m);
    px_lanczos3_poly(fused, u, u2, F(0xbdf52e5bu), F(0x3d11b2aau), F(0x3e6a29a3u), F(0xbca0ac4fu), F(0xbeef3c8bu),
                     F(0x3ddf83ceu), F(0x3f398184u), F(0xbf0b2162u), q1, q1m);
    px_lanczos3_poly(fused, u, u2, F(0x3e703910u), F(0xbd725193u), F(0xbee94010u), F(0x3dbc3213u), F(0x3f4b40beu),
                     F(0xbe177e71u), F(0xbfac5feau), F(0x3ee42c7fu), q2, q2m);
    w[0] = exact_mul(h, q0);
    w[1] = exact_mul(h, q1);
    w[2] = px_lanczos3_mul_add(fused, h, q2, exact_sub(0.5, u));
    w[3] = px_lanczos3_mul_add(fused, h, q2m, exact_add(0.5, u));
    w[4] = exact_mul(h, q1m);
    w[5] = exact_mul(h, q0m);
}

// ---- the output pass's kernel -----------------------------------------------------------------

// a * b + c rounded once: the correctly rounded integer form (exact mode), or the hardware's fused
// multiply-add (fast mode; Vulkan does not promise its rounding, which the fast bound allows).
float px_fma(bool fused, float a, float b, float c) { return fused ? fma(a, b, c) : exact_fma(a, b, c); }

void px_kernel_sincos(bool fused, float theta, out float sin_out, out float cos_out) {
    if (px_is_nan(theta)) theta = 0.0;
    theta = px_clampf(theta, -1024.0, 1024.0);
    const float k = exact_rint(exact_mul(theta, F(0x3f22f983u) /* 0.636619772367581343f */));
    float f = px_fma(fused, -k, F(0x3fc90fdau) /* kHalfPiHi */, theta);
    f = px_fma(fused, -k, F(0x33a22169u) /* kHalfPiLo */, f);
    const float f2 = exact_mul(f, f);
    float s = F(0x3638ef1du);
    s = px_fma(fused, s, f2, F(0xb9500d01u));
    s = px_fma(fused, s, f2, F(0x3c088889u));
    s = px_fma(fused, s, f2, F(0xbe2aaaabu));
    s = px_fma(fused, exact_mul(s, f2), f, f);
    float c = F(0x37d00d01u);
    c = px_fma(fused, c, f2, F(0xbab60b61u));
    c = px_fma(fused, c, f2, F(0x3d2aaaabu));
    c = px_fma(fused, c, f2, -0.5);
    c = px_fma(fused, c, f2, 1.0);
    const int quadrant = int(k) & 3;
    if (quadrant == 0) { sin_out = s; cos_out = c; }
    else if (quadrant == 1) { sin_out = c; cos_out = -s; }
    else if (quadrant == 2) { sin_out = -s; cos_out = -c; }
    else { sin_out = -c; cos_out = s; }
}

float px_kernel_sigma(float h) { return exact_exp2(px_clampf(px_is_nan(h) ? 0.0 : h, -4.0, 2.0)); }

float px_kernel_weight(float dx, float dy, float sin_theta, float cos_theta, float sigma_major, float sigma_minor) {
    const float u = exact_add(exact_mul(cos_theta, dx), exact_mul(sin_theta, dy));
    const float v = exact_sub(exact_mul(cos_theta, dy), exact_mul(sin_theta, dx));
    const float a = exact_div(u, sigma_major);
    const float b = exact_div(v, sigma_minor);
    const float e = exact_add(exact_mul(a, a), exact_mul(b, b));
    return exact_exp2(exact_mul(exact_mul(-0.5, kExactLog2e), e));
}

// ---- output encoding --------------------------------------------------------------------------

uint px_unorm_encode(float v, float max_code) {
    const float c = px_clampf(px_is_nan(v) ? 0.0 : v, 0.0, 1.0);
    return uint(exact_rint(exact_mul(c, max_code)));
}

float px_half_range(float v) { return px_clampf(px_is_nan(v) ? 0.0 : v, 0.0, kHalfMax); }
uint px_encode_half_colour(float v) { return f32_to_f16_bits(px_half_range(v)); }

float px_output_units(float out_value, float exposure, float pre_exposure) {
    return exact_mul(exact_div(out_value, exposure), pre_exposure);
}

#endif
