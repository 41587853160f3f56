// How the layer shaders store activations in uint storage buffers (docs/vulkan.md):
// e4m3 values 4 per uint (channel 4i in the low byte), f16 values 2 per uint (channel 2i in the
// low half), f32 values as their bits. Rows are channel-contiguous; a row's channel count is a
// multiple of 4, so a uint never holds two rows' values.
#ifndef SWINUP_PACKED_ROWS_GLSL
#define SWINUP_PACKED_ROWS_GLSL

vec4 unpack_e4m3x4(uint word) {
    return vec4(e4m3_to_f32(e4m3_unpack(word, 0u)), e4m3_to_f32(e4m3_unpack(word, 1u)),
                e4m3_to_f32(e4m3_unpack(word, 2u)), e4m3_to_f32(e4m3_unpack(word, 3u)));
}

// Rounds four floats to e4m3 (numeric/e4m3.h) and packs them.
uint pack_e4m3x4(vec4 v) { return e4m3_pack4(f32_to_e4m3(v.x), f32_to_e4m3(v.y), f32_to_e4m3(v.z), f32_to_e4m3(v.w)); }

// Unpacking an f16 pair is exact (made from bits, half.glsl).
vec2 unpack_f16x2(uint word) { return vec2(f16_unpack(word, 0u), f16_unpack(word, 1u)); }

// Rounds two floats to f16 (numeric/half.h, round to nearest even) and packs them.
uint pack_f16x2(vec2 v) { return f16_pack2(v.x, v.y); }

#endif
