// The linear layer's epilogue (docs/model-spec.md; the codes of layers/gemm.h), written once for
// every GEMM shader: y = (acc * scale) + bias, two roundings (`precise`: no fma), then the layer's
// store: 0 f32, 1 f16, 2 GELU -> e4m3, 3 ReLU -> e4m3, 4 the f16 residual in place, 5 f32 add, 6/7
// expand (depth-to-space of output o = q * C' + c to fine token q of coarse token r, plus the f16
// / f32 skip at the fine grid, rounded to f16), 8 f16(y + aux), 9 e4m3(ReLU(y + aux)) with aux f32
// values laid out as the output (mask_embed onto embed / embed0).
// The including shader declares the bindings scale, bias, out_words, aux_words and the push block
// `p` with the fields of GemmParams (layers/layer_params.h).

float fast_gelu(float x) {
    const float inner = 0.7978845608028654 * (x + 0.044715 * (x * x * x));
    const float t = 1.0 - 2.0 / (1.0 + exp2(2.0 * kExactLog2e * inner));
    return 0.5 * x * (1.0 + t);
}

// A shader that only runs in fast mode defines GEMM_FAST_ONLY: the exact GELU (long integer code,
// exact_math.glsl) is then not compiled into it, and does not cost it registers.
#ifdef GEMM_FAST_ONLY
float gelu(float x) { return fast_gelu(x); }
#else
float gelu(float x) { return p.exact != 0 ? exact_gelu(x) : fast_gelu(x); }
#endif

float relu(float x) { return x > 0.0 ? x : 0.0; }  // NaN -> 0, as the CPU's `x > 0 ? x : 0`

void store_f16x4(uint index, vec4 v) {
    out_words[index] = pack_f16x2(v.xy);
    out_words[index + 1u] = pack_f16x2(v.zw);
}

// Outputs col .. col + 3 of `row` (col a multiple of 4, below p.n; row below p.m) from their
// accumulators.
void gemm_epilogue(int row, int col, vec4 acc) {
    const vec4 s = vec4(scale[col], scale[col + 1], scale[col + 2], scale[col + 3]);
    const vec4 b = vec4(bias[col], bias[col + 1], bias[col + 2], bias[col + 3]);
    precise vec4 t = acc * s;
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
