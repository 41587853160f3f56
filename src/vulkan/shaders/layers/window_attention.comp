// variants: EXACT FAST
// Multi-head self-attention in 4x4 windows (docs/model-spec.md, "Number formats" and "Shifted
// windows"; src/cpu/layers/window_attention.cpp), in the CPU's operation order:
//   s_ij = sum_c q_i[c] k_j[c]   (f32, c in order; f16 x f16 products are exact)
//   s_ij = s_ij * (1/sqrt(d)) + rel_bias[h, i, j]   (two roundings)
//   m_i = max over allowed j, p_ij = f16(exp2((s_ij - m_i) * log2e)), 0 for masked keys
//   l_i = sum_j p_ij (j in order), o_i = e4m3((sum over allowed j of p_ij v_j) / l_i)
// EXACT (exact mode, and fast mode's heads wider than 32): exact_exp2 and IEEE division
// (exact_math.glsl) in exact mode, exp2 and `/` in fast mode, loops to the head dimension d.
// FAST (fast mode, d <= 32): the loops run to 32 with the channels past d skipped, unrolled, so
// the query and output rows stay in registers; fused multiply-adds, exp2 and one reciprocal.
// One workgroup per two windows side by side and a head, one invocation per query token (32: a
// full NVIDIA warp; the shared memory stays at 16 KB with d up to 64). Q, K, V (f16, 2 per uint)
// are read at the grid tokens of the (shifted or unshifted) window, and the e4m3 output is written
// at the same grid tokens, so the roll and the roll back cost nothing and the per-token layers
// before and after run on the grid in its own order.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "e4m3.glsl"
#include "half.glsl"
#include "exact_math.glsl"
#include "packed_rows.glsl"
#include "window_map.glsl"

const int kWindowsPerGroup = 2;
layout(local_size_x = 32) in;

layout(std430, binding = 0) readonly buffer Qkv { uint qkv_words[]; };    // rows of 3C f16
layout(std430, binding = 1) readonly buffer RelBias { float rel_bias[]; };  // [heads][16][16]
layout(std430, binding = 2) writeonly buffer Out { uint out_words[]; };     // rows of C e4m3

layout(push_constant) uniform Params {
    int width;       // grid tokens
    int height;
    int channels;    // C
    int heads;
    int shifted;
    float inv_sqrt_d;  // 1.0f / sqrtf(d), IEEE, from the host
    int exact;
} p;

#ifdef FAST
const int kMaxHeadDim = 32;
#else
const int kMaxHeadDim = 64;
#endif

shared float k_tile[kWindowsPerGroup][kWindowTokens][kMaxHeadDim];
shared float v_tile[kWindowsPerGroup][kWindowTokens][kMaxHeadDim];

void main() {
    const int i = int(gl_LocalInvocationID.x) % kWindowTokens;  // the query token
    const int slot = int(gl_LocalInvocationID.x) / kWindowTokens;
    const int windows_x = p.width / kWindow;
    const int window_x = int(gl_WorkGroupID.x) * kWindowsPerGroup + slot;
    // With an odd number of windows in a row the last group's second half has no window; it
    // still takes part in the barrier.
    const bool has_window = window_x < windows_x;
    const int window = int(gl_WorkGroupID.y) * windows_x + (has_window ? window_x : windows_x - 1);
    const int head = int(gl_WorkGroupID.z);
    const int c3 = 3 * p.channels;
    const int d = p.channels / p.heads;
    const bool shifted = p.shifted != 0;
    const int token = window_token_index(window, i, p.width, p.height, shifted);

    float q[kMaxHeadDim];
    const uint row = uint(token * c3 + head * d) / 2u;
    const uint k_at = row + uint(p.channels / 2);
    const uint v_at = row + uint(p.channels);
    [[unroll]] for (int c = 0; c < kMaxHeadDim; c += 2) {
        if (c >= d) break;
        const uint w = uint(c / 2);
        const vec2 qv = unpack_f16x2(qkv_words[row + w]);
        q[c] = qv.x;
        q[c + 1] = qv.y;
        const vec2 kv = unpack_f16x2(qkv_words[k_at + w]);
        k_tile[slot][i][c] = kv.x;
        k_tile[slot][i][c + 1] = kv.y;
        const vec2 vv = unpack_f16x2(qkv_words[v_at + w]);
        v_tile[slot][i][c] = vv.x;
        v_tile[slot][i][c + 1] = vv.y;
    }
    barrier();
    if (!has_window) return;

    const uint mask = window_key_mask(window, i, p.width, p.height, shifted);
    const int bias_at = (head * kWindowTokens + i) * kWindowTokens;
    float s[kWindowTokens];
    float m = -3.0e38;
    for (int j = 0; j < kWindowTokens; ++j) {
        float acc = 0.0;
#ifdef FAST
        [[unroll]] for (int c = 0; c < kMaxHeadDim; ++c) {
            if (c < d) acc = fma(q[c], k_tile[slot][j][c], acc);
        }
#else
        for (int c = 0; c < d; ++c) acc = acc + q[c] * k_tile[slot][j][c];
#endif
        precise float scaled = acc * p.inv_sqrt_d;
        precise float biased = scaled + rel_bias[bias_at + j];
        s[j] = biased;
        if (((mask >> j) & 1u) != 0u && biased > m) m = biased;
    }
    // Not unrolled: the exact exp2 is long integer code, and 16 copies of it make the shader slow
    // to compile (lavapipe: tens of seconds) for no gain.
    float l = 0.0;
    [[dont_unroll]] for (int j = 0; j < kWindowTokens; ++j) {
        float pj = 0.0;
        if (((mask >> j) & 1u) != 0u) {
            precise float diff = s[j] - m;
            precise float x = diff * kExactLog2e;
            pj = round_to_f16(p.exact != 0 ? exact_exp2(x) : exp2(x));
        }
        s[j] = pj;
        precise float sum = l + pj;
        l = sum;
    }
    float o[kMaxHeadDim];
#ifdef FAST
    [[unroll]] for (int c = 0; c < kMaxHeadDim; ++c) o[c] = 0.0;
    for (int j = 0; j < kWindowTokens; ++j) {
        if (((mask >> j) & 1u) == 0u) continue;  // masked keys are excluded, not weighted by 0
        const float pj = s[j];
        [[unroll]] for (int c = 0; c < kMaxHeadDim; ++c) {
            if (c < d) o[c] = fma(pj, v_tile[slot][j][c], o[c]);
        }
    }
    const uint out_at = uint(token * p.channels + head * d) / 4u;
    const float inv_l = 1.0 / l;
    [[unroll]] for (int c = 0; c < kMaxHeadDim; c += 4) {
        if (c >= d) break;
        out_words[out_at + uint(c / 4)] = pack_e4m3x4(vec4(o[c], o[c + 1], o[c + 2], o[c + 3]) * inv_l);
    }
#else
    for (int c = 0; c < d; ++c) o[c] = 0.0;
    for (int j = 0; j < kWindowTokens; ++j) {
        if (((mask >> j) & 1u) == 0u) continue;  // masked keys are excluded, not weighted by 0
        const float pj = s[j];
        for (int c = 0; c < d; ++c) o[c] = o[c] + pj * v_tile[slot][j][c];
    }
    const uint out_at = uint(token * p.channels + head * d) / 4u;
    [[dont_unroll]] for (int c = 0; c < d; c += 4) {
        vec4 r;
        [[dont_unroll]] for (int u = 0; u < 4; ++u) r[u] = p.exact != 0 ? exact_div(o[c + u], l) : o[c + u] / l;
        out_words[out_at + uint(c / 4)] = pack_e4m3x4(r);
    }
#endif
}
