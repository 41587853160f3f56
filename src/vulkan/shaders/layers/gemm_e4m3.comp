// The linear layer of docs/model-spec.md as one GEMM with its epilogue:
//   y[r][o] = (acc[r][o] * scale[o]) + bias[o],  acc = sum_k a[r][k] * w[o][k]
// a and w are e4m3 (4 per uint); every product is exact in f32 and each output sums them in k
// order, one f32 add at a time: the order of src/cpu/layers/matmul.h, so exact and fast mode give
// the CPU's accumulator bit for bit. The scale and the bias are two roundings (`precise`: no fma).
// Then the epilogue (push constant `epilogue`, values in layers/gemm.h):
//   0 store f32, 1 store f16, 2 GELU -> e4m3, 3 ReLU -> e4m3, 4 residual: out = f16(out + y) on
//   the f16 stream in place, 5 add: out += y (f32), 6/7 expand: depth-to-space of output
//   o = q * C' + c to fine token q of coarse token r, plus the skip (f16 / f32 at the fine grid),
//   rounded to f16, 8 f16(y + aux), 9 e4m3(ReLU(y + aux)) with aux f32 values laid out as the
//   output (a layer added in f32 before the one rounding: mask_embed onto embed / embed0).
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

float fast_gelu(float x) {
    const float inner = 0.7978845608028654 * (x + 0.044715 * (x * x * x));
    const float t = 1.0 - 2.0 / (1.0 + exp2(2.0 * kExactLog2e * inner));
    return 0.5 * x * (1.0 + t);
}

float gelu(float x) { return p.exact != 0 ? exact_gelu(x) : fast_gelu(x); }

float relu(float x) { return x > 0.0 ? x : 0.0; }  // NaN -> 0, as the CPU's `x > 0 ? x : 0`

void store_f16x4(uint index, vec4 v) {
    out_words[index] = pack_f16x2(v.xy);
    out_words[index + 1u] = pack_f16x2(v.zw);
}

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
        for (int kk = 0; kk < kChunk; ++kk) {
            const vec4 wk = w_tile[kk][tx];
            const vec4 ak = a_tile[kk][ty];
            for (int i = 0; i < 4; ++i) acc[i] = acc[i] + ak[i] * wk;
        }
        barrier();
    }

    const int col = n0 + tx * 4;
    if (col >= p.n) return;
    const vec4 s = vec4(scale[col], scale[col + 1], scale[col + 2], scale[col + 3]);
    const vec4 b = vec4(bias[col], bias[col + 1], bias[col + 2], bias[col + 3]);
    [[dont_unroll]] for (int i = 0; i < 4; ++i) {
        const int row = m0 + ty * 4 + i;
        if (row >= p.m) break;
        precise vec4 t = acc[i] * s;
        precise vec4 y = t + b;
        const uint at = uint(p.out_offset + row * p.ldo + col);
        switch (p.epilogue) {
            case 0:
                for (int j = 0; j < 4; ++j) out_words[at + uint(j)] = floatBitsToUint(y[j]);
                break;
            case 1:
                store_f16x4(at / 2u, y);
                break;
            case 2: {
                // One GELU in a loop that is not unrolled: the exact GELU is long integer code
                // (exact_math.glsl), and 16 copies of it make the shader slow to compile.
                vec4 g;
                [[dont_unroll]] for (int j = 0; j < 4; ++j) g[j] = gelu(y[j]);
                out_words[at / 4u] = pack_e4m3x4(g);
                break;
            }
            case 3:
                out_words[at / 4u] = pack_e4m3x4(vec4(relu(y.x), relu(y.y), relu(y.z), relu(y.w)));
                break;
            case 4: {
                const vec4 x = vec4(unpack_f16x2(out_words[at / 2u]), unpack_f16x2(out_words[at / 2u + 1u]));
                precise vec4 sum = x + y;
                store_f16x4(at / 2u, sum);
                break;
            }
            case 5:
                for (int j = 0; j < 4; ++j) {
                    precise float sum = uintBitsToFloat(out_words[at + uint(j)]) + y[j];
                    out_words[at + uint(j)] = floatBitsToUint(sum);
                }
                break;
            case 8:
            case 9: {
                const vec4 a = vec4(uintBitsToFloat(aux_words[at]), uintBitsToFloat(aux_words[at + 1u]),
                                    uintBitsToFloat(aux_words[at + 2u]), uintBitsToFloat(aux_words[at + 3u]));
                precise vec4 sum = y + a;
                if (p.epilogue == 8) {
                    store_f16x4(at / 2u, sum);
                } else {
                    out_words[at / 4u] = pack_e4m3x4(vec4(relu(sum.x), relu(sum.y), relu(sum.z), relu(sum.w)));
                }
                break;
            }
            default: {  // 6, 7: expand
                const int q = col / p.expand_c;
                const int c = col % p.expand_c;
                const ivec2 f = quadrant_fine_token(row % p.coarse_w, row / p.coarse_w, q);
                const uint fine = uint((f.y * 2 * p.coarse_w + f.x) * p.expand_c + c);
                vec4 skip;
                if (p.epilogue == 6) {
                    skip = vec4(unpack_f16x2(aux_words[fine / 2u]), unpack_f16x2(aux_words[fine / 2u + 1u]));
                } else {
                    skip = vec4(uintBitsToFloat(aux_words[fine]), uintBitsToFloat(aux_words[fine + 1u]),
                                uintBitsToFloat(aux_words[fine + 2u]), uintBitsToFloat(aux_words[fine + 3u]));
                }
                precise vec4 sum = y + skip;
                store_f16x4(fine / 2u, sum);
                break;
            }
        }
    }
}
