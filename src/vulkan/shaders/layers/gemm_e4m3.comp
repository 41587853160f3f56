// variants: EXACT PORTABLE_FAST
// The linear layer of docs/model-spec.md as one GEMM with its epilogue:
//   y[r][o] = (acc[r][o] * scale[o]) + bias[o],  acc = sum_k a[r][k] * w[o][k]
// a and w are e4m3 (4 per uint); every product is exact in f32. EXACT (exact mode): each output
// sums them in k order, one f32 add at a time, the order of src/cpu/layers/matmul.h, so the
// accumulators are the CPU's bits. PORTABLE_FAST (fast mode on devices without matrix units,
// layers/gemm_matrix.comp being the path of those with them): the same tiles with fused
// multiply-adds, fully unrolled over the chunk. The scale and the bias are two roundings
// (`precise`: no fma).
// Then the epilogue (gemm_epilogue.glsl, the codes of layers/gemm.h).
// Tiles: a workgroup of 256 invocations, each 4 rows x 4 outputs, computes kTileN outputs
// (specialization constant 0: 64, or 32 for layers of 8, 16, 32 or 96 outputs) x 4096 / kTileN
// rows; K in chunks of 16 through shared memory. Workgroup x = output tile, (z, y) = row tile.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "e4m3.glsl"
#include "half.glsl"
#include "exact_math.glsl"
#include "packed_rows.glsl"
#include "window_map.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer A { uint a_words[]; };
layout(std430, binding = 1) readonly buffer W { uint w_words[]; };     // [n][k / 4]
layout(std430, binding = 2) readonly buffer Scale { float scale[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };
layout(std430, binding = 4) buffer Out { uint out_words[]; };
layout(std430, binding = 5) readonly buffer Aux { uint aux_words[]; };  // the expand's skip, 8/9's addend

layout(push_constant) uniform Params {
    int m;           // rows
    int n;           // outputs (a multiple of 4)
    int k;           // inputs (a multiple of 4)
    int lda;         // a's row stride in uints
    int a_offset;    // a's first uint
    int ldo;         // the output's row stride in values (epilogues 0-5)
    int out_offset;  // the output's first value (epilogues 0-5; a multiple of 4)
    int epilogue;
    int coarse_w;    // expand: width of the coarse grid (rows are its tokens)
    int expand_c;    // expand: C', the fine grid's channels (n = 4 C')
    int exact;       // 1: the exact formulas (GELU); 0: hardware exp2 / division
} p;

layout(constant_id = 0) const int kTileN = 64;
const int kTileM = 4096 / kTileN;
const int kThreadsN = kTileN / 4;  // invocations along the outputs
const int kChunk = 16;

// vec4 elements: one shared-memory load gives an invocation its 4 rows (a) or 4 outputs (w).
shared vec4 a_tile[kChunk][kTileM / 4];
shared vec4 w_tile[kChunk][kTileN / 4];

#ifdef PORTABLE_FAST
#define GEMM_FAST_ONLY
#endif
#include "gemm_epilogue.glsl"

void main() {
    const int lid = int(gl_LocalInvocationIndex);
    const int n0 = int(gl_WorkGroupID.x) * kTileN;
    // Row tiles on y and z (layer_recorder.h groups_1d: past 65535 tiles in y).
    const int m0 = int(gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y) * kTileM;
    const int tx = lid % kThreadsN;  // outputs n0 + 4 tx .. + 3
    const int ty = lid / kThreadsN;  // rows m0 + 4 ty .. + 3

    vec4 acc[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    const int k_words = p.k / 4;
    for (int k0 = 0; k0 < p.k; k0 += kChunk) {
        // Each uint holds 4 of the chunk's 16 values: line = tile row (a) or output (w), word 0-3.
        for (int index = lid; index < kTileM * 4; index += 256) {
            const int line = index / 4, word = k0 / 4 + index % 4;
            const int row = m0 + line;
            vec4 av = vec4(0.0);
            if (row < p.m && word < k_words) av = unpack_e4m3x4(a_words[p.a_offset + row * p.lda + word]);
            for (int i = 0; i < 4; ++i) a_tile[(index % 4) * 4 + i][line / 4][line % 4] = av[i];
        }
        for (int index = lid; index < kTileN * 4; index += 256) {
            const int line = index / 4, word = k0 / 4 + index % 4;
            const int col = n0 + line;
            vec4 wv = vec4(0.0);
            if (col < p.n && word < k_words) wv = unpack_e4m3x4(w_words[col * k_words + word]);
            for (int i = 0; i < 4; ++i) w_tile[(index % 4) * 4 + i][line / 4][line % 4] = wv[i];
        }
        barrier();
#ifdef PORTABLE_FAST
        [[unroll]] for (int kk = 0; kk < kChunk; ++kk) {
            const vec4 wk = w_tile[kk][tx];
            const vec4 ak = a_tile[kk][ty];
            [[unroll]] for (int i = 0; i < 4; ++i) acc[i] = fma(vec4(ak[i]), wk, acc[i]);
        }
#else
        for (int kk = 0; kk < kChunk; ++kk) {
            const vec4 wk = w_tile[kk][tx];
            const vec4 ak = a_tile[kk][ty];
            for (int i = 0; i < 4; ++i) acc[i] = acc[i] + ak[i] * wk;
        }
#endif
        barrier();
    }

    const int col = n0 + tx * 4;
    if (col >= p.n) return;
    [[dont_unroll]] for (int i = 0; i < 4; ++i) {
        const int row = m0 + ty * 4 + i;
        if (row >= p.m) break;
        gemm_epilogue(row, col, acc[i]);
    }
}
