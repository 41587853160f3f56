#version 450
#extension GL_GOOGLE_include_directive : require
// Evaluates one function of shaders/common/ on every element, for test_vulkan_numeric.cpp to
// compare bit for bit with the C++ of src/numeric/. Each element has three float inputs (bits).
#include "e4m3.glsl"
#include "half.glsl"
#include "exact_math.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Inputs { uint inputs[]; };
layout(std430, binding = 1) writeonly buffer Outputs { uint outputs[]; };
layout(push_constant) uniform Push {
    uint op;
    uint count;
} push;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= push.count) return;
    const uint ua = inputs[3u * i];
    const float a = uintBitsToFloat(ua);
    const float b = uintBitsToFloat(inputs[3u * i + 1u]);
    const float c = uintBitsToFloat(inputs[3u * i + 2u]);
    uint r = 0u;
    switch (push.op) {
        case 0u: r = f32_to_e4m3(a); break;
        case 1u: r = floatBitsToUint(e4m3_to_f32(ua)); break;
        case 2u: r = f32_to_f16_bits(a); break;
        case 3u: r = floatBitsToUint(f16_bits_to_f32(ua)); break;
        case 4u: r = floatBitsToUint(round_to_e4m3(a)); break;
        case 5u: r = floatBitsToUint(round_to_f16(a)); break;
        case 6u: r = floatBitsToUint(exact_mul(a, b)); break;
        case 7u: r = floatBitsToUint(exact_add(a, b)); break;
        case 8u: r = floatBitsToUint(exact_sub(a, b)); break;
        case 9u: r = floatBitsToUint(exact_fma(a, b, c)); break;
        case 10u: r = floatBitsToUint(exact_div(a, b)); break;
        case 11u: r = floatBitsToUint(exact_sqrt(a)); break;
        case 12u: r = floatBitsToUint(exact_rint(a)); break;
        case 13u: r = floatBitsToUint(exact_exp2(a)); break;
        case 14u: r = floatBitsToUint(exact_log2(a)); break;
        case 15u: r = floatBitsToUint(exact_tanh(a)); break;
        case 16u: r = floatBitsToUint(exact_sigmoid(a)); break;
        case 17u: r = floatBitsToUint(exact_gelu(a)); break;
        case 18u: r = floatBitsToUint(exact_tonemap_t(a)); break;
        case 19u: r = floatBitsToUint(exact_tonemap_t_inverse(a)); break;
        case 20u: r = e4m3_unpack(e4m3_pack4(f32_to_e4m3(a), f32_to_e4m3(b), f32_to_e4m3(c), 0x55u), ua & 3u); break;
        case 21u: r = floatBitsToUint(f16_unpack(f16_pack2(a, b), ua & 1u)); break;
        default: r = 0xdeadbeefu; break;
    }
    outputs[i] = r;
}
