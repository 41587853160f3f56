// The output image of a pass that writes the frame's output (output_pass.comp, sharpen.comp) and
// the value it stores for a pixel's colour v (in the output's units): the twin of
// frame/output_encoding.h's write_output_pixel. The including shader defines one of OUT_RGBA16F,
// OUT_RGB10A2, OUT_RGBA8, OUT_B10G11R11 and OUTPUT_BINDING.
//   RGBA16F: f16 values are exact in f32, and the image's f32 -> f16 conversion of an f16 value
//            is exact; RGB10A2 and RGBA8: the CPU's integer code as code / max code, which the
//            UNORM conversion maps back to that code; B10G11R11: the f32 of the CPU's small floats
//            (packed_formats.glsl), which the conversion stores unchanged.
#ifndef SWINUP_OUTPUT_STORE_GLSL
#define SWINUP_OUTPUT_STORE_GLSL

#include "packed_formats.glsl"
#include "pixel_ops.glsl"

#if defined(OUT_RGBA16F)
layout(rgba16f, binding = OUTPUT_BINDING) uniform writeonly image2D output_image;
#elif defined(OUT_RGB10A2)
layout(rgb10_a2, binding = OUTPUT_BINDING) uniform writeonly image2D output_image;
#elif defined(OUT_B10G11R11)
layout(r11f_g11f_b10f, binding = OUTPUT_BINDING) uniform writeonly image2D output_image;
#else
layout(rgba8, binding = OUTPUT_BINDING) uniform writeonly image2D output_image;
#endif

vec4 output_stored(vec3 v) {
#if defined(OUT_RGBA16F)
    return vec4(f16_bits_to_f32(px_encode_half_colour(v.r)), f16_bits_to_f32(px_encode_half_colour(v.g)),
                f16_bits_to_f32(px_encode_half_colour(v.b)), 1.0);
#elif defined(OUT_RGB10A2)
    return vec4(float(px_unorm_encode(v.r, 1023.0)) / 1023.0, float(px_unorm_encode(v.g, 1023.0)) / 1023.0,
                float(px_unorm_encode(v.b, 1023.0)) / 1023.0, 1.0);
#elif defined(OUT_B10G11R11)
    return vec4(ufloat_to_f32(f32_to_ufloat(v.r, 6u), 6u), ufloat_to_f32(f32_to_ufloat(v.g, 6u), 6u),
                ufloat_to_f32(f32_to_ufloat(v.b, 5u), 5u), 1.0);
#else
    return vec4(float(px_unorm_encode(v.r, 255.0)) / 255.0, float(px_unorm_encode(v.g, 255.0)) / 255.0,
                float(px_unorm_encode(v.b, 255.0)) / 255.0, 1.0);
#endif
}

#endif
