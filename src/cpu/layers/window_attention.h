// Multi-head self-attention inside one 4x4 window (docs/model-spec.md, "Number formats"):
//   s_ij = (q_i . k_j) summed in f32 over the head's channels in order (exact f16 products),
//   s_ij = s_ij * (1 / sqrt(d)) + rel_bias[h, i, j]         (two roundings; masked keys excluded)
//   m_i  = max_j s_ij,  p_ij = f16(exp2((s_ij - m_i) * log2e)),  l_i = sum_j p_ij (f32, j in order)
//   o_i  = e4m3((sum_j p_ij v_j) / l_i)                      (f32 sum of exact f16 products)
#pragma once

#include <cstdint>

namespace swinup::cpu {

// qkv: the window's 16 tokens (row-major in the window) x 3C values, already rounded to f16:
//      q in channels [0, C), k in [C, 2C), v in [2C, 3C); head h owns channels h*d .. h*d+d-1.
// rel_bias: heads x 16 x 16 (query, key), the decoded f16 table.
// key_mask: 16 bit masks (bit j of key_mask[i]: query i may attend to key j), or nullptr when
//      every pair attends (unshifted blocks and windows away from the wrap).
// out: 16 x C e4m3 values, head h in channels h*d .. h*d+d-1.
// The head dimension d = C / heads may be at most kMaxHeadDim.
constexpr int kMaxHeadDim = 64;
void window_attention(const float* qkv, int channels, int heads, const float* rel_bias,
                      const uint32_t* key_mask, float* out);

}  // namespace swinup::cpu
