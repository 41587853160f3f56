// variants: KHR_COOPMAT EMULATED
// compiler: cooperative-matrix
// Fast mode's linear layer on the matrix units: y = epilogue((a w^T) * scale + bias), a and w
// e4m3 (4 per uint), decoded to f16 in shared memory (every e4m3 value is exact in f16), the
// products summed by VK_KHR_cooperative_matrix multiply-adds into f32 accumulators, then the
// epilogue of every GEMM (gemm_epilogue.glsl) from the accumulators staged in shared memory.
// The sums run in the matrix units' order, not the CPU's k order: fast mode, held to the
// fast-mode bound (docs/vulkan-network.md).
//
// Tiles: a workgroup of four subgroups computes 64 rows x kTileN outputs (64, or 32 for layers of
// 8, 16, 32 or 96 outputs), K in chunks of 32 (zero-padded past K). The subgroups split the tile
// 2 x 2 (kTileN 64) or 4 x 1 (kTileN 32) into 32 x 32 or 16 x 32 parts, each a grid of
// kMatM x kMatN accumulators; the matrix shape (kMatM, kMatN, kMatK) is the one the device
// reports (runtime/cooperative_matrix.cpp choose_matrix_shape), given as specialization
// constants, so NVIDIA's 16x16x16, AMD's 16x16x16 and Intel's 8x16x16 run the same source.
// Workgroup x = output tile, (z, y) = row tile.
//
// Variants: KHR_COOPMAT, the real one (VK_KHR_cooperative_matrix, Vulkan 1.3 SPIR-V); EMULATED,
// the same tiling with each matrix operation done by the subgroup's invocations in shared memory
// (the accumulators live where the real path stores them), so that devices without matrix units
// (Mesa's lavapipe) test the tiling, the fragment offsets and strides and the epilogues against
// the CPU.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#ifdef KHR_COOPMAT
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#endif

#include "e4m3.glsl"
#include "half.glsl"
#include "exact_math.glsl"
#include "packed_rows.glsl"
#include "window_map.glsl"

// Four subgroups: local size = 4 x the subgroup size the pipeline is made with.
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const int kInvocations = 128;
layout(constant_id = 1) const int kTileN = 64;
layout(constant_id = 2) const int kMatM = 16;
layout(constant_id = 3) const int kMatN = 16;
layout(constant_id = 4) const int kMatK = 16;
layout(constant_id = 5) const int kSubgroupSize = 32;

layout(std430, binding = 0) readonly buffer A { uint a_words[]; };
layout(std430, binding = 1) readonly buffer W { uint w_words[]; };     // [n][k / 4]
layout(std430, binding = 2) readonly buffer Scale { float scale[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };
layout(std430, binding = 4) buffer Out { uint out_words[]; };
layout(std430, binding = 5) readonly buffer Aux { uint aux_words[]; };
layout(std430, binding = 6) readonly buffer Gain { float gain[]; };  // the fused norm's (p.norm)

layout(push_constant) uniform Params {
    int m, n, k, lda, a_offset, ldo, out_offset, epilogue, coarse_w, expand_c, exact;
    int norm;  // 1: a holds f16 rows (lda uints apart); RMSNorm with `gain` makes them the e4m3 A
} p;

#define GEMM_FAST_ONLY
#include "gemm_epilogue.glsl"

const int kTileM = 64;
const int kChunk = 32;
const int kMaxTileN = 64;
// Row strides in shared memory, padded by 8 halves / 4 floats (16 bytes: the loads' alignment)
// so that neighbouring rows start in different banks.
const int kStride = kChunk + 8;
const int kCStride = kMaxTileN + 4;
const int kSgCols = kTileN / 32;
const int kSgRows = 4 / kSgCols;
const int kSubM = kTileM / kSgRows;
const int kSubN = 32;
const int kTilesM = kSubM / kMatM;
const int kTilesN = kSubN / kMatN;

shared float16_t a_tile[kTileM * kStride];    // [row][k]
shared float16_t w_tile[kMaxTileN * kStride];  // [output][k]: B (k x n) column-major
shared float c_tile[kTileM * kCStride];        // [row][output]: the accumulators for the epilogue
shared float row_factor[kTileM];               // the fused norm's 1 / rms of each row

// Where each fragment starts in its tile (elements), the same for both variants.
int a_at(int sg_row, int tm, int kk) { return (sg_row * kSubM + tm * kMatM) * kStride + kk; }
int b_at(int sg_col, int tn, int kk) { return (sg_col * kSubN + tn * kMatN) * kStride + kk; }
int c_at(int sg_row, int sg_col, int tm, int tn) {
    return (sg_row * kSubM + tm * kMatM) * kCStride + sg_col * kSubN + tn * kMatN;
}

#ifdef EMULATED
// The subgroup's invocations each own accumulator elements lane, lane + subgroup size, ... of a
// kMatM x kMatN fragment; no other invocation touches them until the barrier before the epilogue.
void emulated_zero(int at) {
    for (uint e = gl_SubgroupInvocationID; e < uint(kMatM * kMatN); e += gl_SubgroupSize) {
        c_tile[at + int(e) / kMatN * kCStride + int(e) % kMatN] = 0.0;
    }
}
void emulated_mul_add(int a, int b, int c) {
    for (uint e = gl_SubgroupInvocationID; e < uint(kMatM * kMatN); e += gl_SubgroupSize) {
        const int r = int(e) / kMatN, col = int(e) % kMatN;
        float s = c_tile[c + r * kCStride + col];
        for (int kk = 0; kk < kMatK; ++kk) {
            s = fma(float(a_tile[a + r * kStride + kk]), float(w_tile[b + col * kStride + kk]), s);
        }
        c_tile[c + r * kCStride + col] = s;
    }
}
#endif

// Decodes rows [row0, row0 + lines) x k [k0, k0 + 32) of an e4m3 matrix (`words` uints a row)
// into a shared f16 tile; zeros past `rows` and past K.
#define STAGE_TILE(tile, source, first, lines, rows, row0, ld, k0)                                  \
    for (int index = int(gl_LocalInvocationIndex); index < (lines) * (kChunk / 4); index += kInvocations) { \
        const int line = index / (kChunk / 4), word = index % (kChunk / 4);                         \
        const int r = (row0) + line, kw = (k0) / 4 + word;                                          \
        vec4 v = vec4(0.0);                                                                         \
        if (r < (rows) && kw < k_words) v = unpack_e4m3x4(source[(first) + r * (ld) + kw]);         \
        const int at = line * kStride + word * 4;                                                   \
        tile[at] = float16_t(v.x);                                                                  \
        tile[at + 1] = float16_t(v.y);                                                              \
        tile[at + 2] = float16_t(v.z);                                                              \
        tile[at + 3] = float16_t(v.w);                                                              \
    }

// The fused RMSNorm (layers/rms_norm_e4m3.comp's fast mode, the same sum order and roundings):
// the e4m3 values of channels k .. k + 3 of f16 row `r`, whose factor is row_factor[line].
vec4 normed_e4m3x4(int r, int line, int k) {
    const uint at = uint(p.a_offset + r * p.lda + k / 2);
    const vec4 v = vec4(unpack_f16x2(a_words[at]), unpack_f16x2(a_words[at + 1u]));
    const vec4 g = vec4(gain[k], gain[k + 1], gain[k + 2], gain[k + 3]);
    precise vec4 scaled = v * row_factor[line];
    precise vec4 y = scaled * g;
    return unpack_e4m3x4(pack_e4m3x4(y));
}

void main() {
    const int n0 = int(gl_WorkGroupID.x) * kTileN;
    const int m0 = int(gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y) * kTileM;
    const int sg = int(gl_SubgroupID);
    const int sg_row = sg / kSgCols, sg_col = sg % kSgCols;
    const int k_words = p.k / 4;

#ifdef KHR_COOPMAT
    coopmat<float, gl_ScopeSubgroup, kMatM, kMatN, gl_MatrixUseAccumulator> acc[kTilesM * kTilesN];
    [[unroll]] for (int t = 0; t < kTilesM * kTilesN; ++t) {
        acc[t] = coopmat<float, gl_ScopeSubgroup, kMatM, kMatN, gl_MatrixUseAccumulator>(0.0);
    }
#else
    for (int tm = 0; tm < kTilesM; ++tm)
        for (int tn = 0; tn < kTilesN; ++tn) emulated_zero(c_at(sg_row, sg_col, tm, tn));
#endif

    if (p.norm != 0) {
        // One invocation per row sums its squares in channel order, as the norm kernel does.
        for (int line = int(gl_LocalInvocationIndex); line < kTileM; line += kInvocations) {
            const int r = m0 + line;
            float sum = 0.0;
            if (r < p.m) {
                const uint base = uint(p.a_offset + r * p.lda);
                for (int i = 0; i < p.k / 2; ++i) {
                    const vec2 v = unpack_f16x2(a_words[base + uint(i)]);
                    sum = sum + v.x * v.x;
                    sum = sum + v.y * v.y;
                }
            }
            row_factor[line] = inversesqrt(sum / float(p.k) + 1.0 / 8192.0);
        }
        barrier();
    }

    for (int k0 = 0; k0 < p.k; k0 += kChunk) {
        if (p.norm != 0) {
            for (int index = int(gl_LocalInvocationIndex); index < kTileM * (kChunk / 4); index += kInvocations) {
                const int line = index / (kChunk / 4), word = index % (kChunk / 4);
                const int r = m0 + line, kk = k0 + word * 4;
                const vec4 v = r < p.m && kk < p.k ? normed_e4m3x4(r, line, kk) : vec4(0.0);
                const int at = line * kStride + word * 4;
                a_tile[at] = float16_t(v.x);
                a_tile[at + 1] = float16_t(v.y);
                a_tile[at + 2] = float16_t(v.z);
                a_tile[at + 3] = float16_t(v.w);
            }
        } else {
            STAGE_TILE(a_tile, a_words, p.a_offset, kTileM, p.m, m0, p.lda, k0)
        }
        STAGE_TILE(w_tile, w_words, 0, kTileN, p.n, n0, k_words, k0)
        barrier();
        [[unroll]] for (int kk = 0; kk < kChunk; kk += kMatK) {
#ifdef KHR_COOPMAT
            coopmat<float16_t, gl_ScopeSubgroup, kMatM, kMatK, gl_MatrixUseA> fa[kTilesM];
            [[unroll]] for (int tm = 0; tm < kTilesM; ++tm) {
                coopMatLoad(fa[tm], a_tile, a_at(sg_row, tm, kk), kStride, gl_CooperativeMatrixLayoutRowMajor);
            }
            [[unroll]] for (int tn = 0; tn < kTilesN; ++tn) {
                coopmat<float16_t, gl_ScopeSubgroup, kMatK, kMatN, gl_MatrixUseB> fb;
                coopMatLoad(fb, w_tile, b_at(sg_col, tn, kk), kStride, gl_CooperativeMatrixLayoutColumnMajor);
                [[unroll]] for (int tm = 0; tm < kTilesM; ++tm) {
                    acc[tm * kTilesN + tn] = coopMatMulAdd(fa[tm], fb, acc[tm * kTilesN + tn]);
                }
            }
#else
            for (int tm = 0; tm < kTilesM; ++tm)
                for (int tn = 0; tn < kTilesN; ++tn)
                    emulated_mul_add(a_at(sg_row, tm, kk), b_at(sg_col, tn, kk), c_at(sg_row, sg_col, tm, tn));
#endif
        }
        barrier();
    }

#ifdef KHR_COOPMAT
    [[unroll]] for (int tm = 0; tm < kTilesM; ++tm) {
        [[unroll]] for (int tn = 0; tn < kTilesN; ++tn) {
            coopMatStore(acc[tm * kTilesN + tn], c_tile, c_at(sg_row, sg_col, tm, tn), kCStride,
                         gl_CooperativeMatrixLayoutRowMajor);
        }
    }
#endif
    barrier();

    // The epilogue: four neighbouring outputs of a row per invocation and step.
    const int quads = kTileN / 4;
    for (int index = int(gl_LocalInvocationIndex); index < kTileM * quads; index += kInvocations) {
        const int line = index / quads, quad = index % quads;
        const int row = m0 + line, col = n0 + quad * 4;
        if (row >= p.m || col >= p.n) continue;
        const int at = line * kCStride + quad * 4;
        gemm_epilogue(row, col, vec4(c_tile[at], c_tile[at + 1], c_tile[at + 2], c_tile[at + 3]));
    }
}
