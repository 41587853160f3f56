// variants: TO_BUFFER TO_R8 TO_R16F TO_R32F
#version 450
#extension GL_GOOGLE_include_directive : require
// The automatic reactive mask (swinup_generate_reactive_mask, swinup_vulkan_record_reactive_mask):
// per render pixel, src/frame/reactive_mask_pixel.h's reactive_mask_value of the opaque and the
// final colour, with the same operation sequence through exact_math.glsl, so the value is the
// CPU's to the bit. TO_BUFFER writes the f32 value into a buffer (the host-pointer path encodes it
// on the host with write_mask_pixel); TO_R8 / TO_R16F / TO_R32F write the application's storage
// image, R8 as code / 255 (which the UNORM conversion maps back to the CPU's code) and R16F as the
// nearest half (exact in the image's f16).
#include "pixel_ops.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform sampler2D opaque_image;
layout(binding = 1) uniform sampler2D final_image;
#if defined(TO_BUFFER)
layout(std430, binding = 2) writeonly buffer Mask { float mask[]; };  // width * height, packed
#elif defined(TO_R8)
layout(r8, binding = 2) uniform writeonly image2D mask_image;
#elif defined(TO_R16F)
layout(r16f, binding = 2) uniform writeonly image2D mask_image;
#else
layout(r32f, binding = 2) uniform writeonly image2D mask_image;
#endif

// The C++ twin is ReactiveMaskPush (vulkan/frame/reactive_mask_pass.h); flags are
// swinup_reactive_mask_flags.
layout(push_constant) uniform Push {
    int width;
    int height;
    float scale;
    float threshold;
    float binary_value;
    uint flags;
} p;

const uint kTonemap = 1u, kThreshold = 2u, kMaxChannel = 4u;

float reactive_channel(float x, bool tonemap) {
    const float v = px_is_finite(x) ? x : 0.0;
    if (!tonemap) return v;
    const float c = px_maxf(v, 0.0);
    return exact_div(c, exact_add(1.0, c));
}

void main() {
    const int x = int(gl_GlobalInvocationID.x);
    const int y = int(gl_GlobalInvocationID.y);
    if (x >= p.width || y >= p.height) return;
    const vec3 a = texelFetch(opaque_image, ivec2(x, y), 0).rgb;
    const vec3 b = texelFetch(final_image, ivec2(x, y), 0).rgb;
    const bool tonemap = (p.flags & kTonemap) != 0u;
    float d[3];
    for (int c = 0; c < 3; ++c) {
        const float diff = exact_sub(reactive_channel(b[c], tonemap), reactive_channel(a[c], tonemap));
        d[c] = diff < 0.0 ? -diff : diff;
    }
    const float difference =
        (p.flags & kMaxChannel) != 0u
            ? px_maxf(px_maxf(d[0], d[1]), d[2])
            : exact_add(exact_add(exact_mul(F(0x3e59b3d0u) /* 0.2126f */, d[0]), exact_mul(F(0x3f371759u) /* 0.7152f */, d[1])),
                        exact_mul(F(0x3d93dd98u) /* 0.0722f */, d[2]));
    float value = px_minf(1.0, exact_mul(p.scale, difference));
    if ((p.flags & kThreshold) != 0u) value = value >= p.threshold ? p.binary_value : 0.0;
#if defined(TO_BUFFER)
    mask[y * p.width + x] = value;
#elif defined(TO_R8)
    imageStore(mask_image, ivec2(x, y), vec4(float(px_unorm_encode(value, 255.0)) / 255.0, 0.0, 0.0, 1.0));
#elif defined(TO_R16F)
    imageStore(mask_image, ivec2(x, y), vec4(round_to_f16(value), 0.0, 0.0, 1.0));
#else
    imageStore(mask_image, ivec2(x, y), vec4(value, 0.0, 0.0, 1.0));
#endif
}
