#version 450
#extension GL_GOOGLE_include_directive : require
// The frame's exposure when it is not automatic: frame.exposure_value (option 0) or the 1x1
// exposure texture's value (option 1, 1 when not a positive finite number); clears the counters
// of replaced values. One invocation.
#include "frame_push.glsl"
#include "pixel_ops.glsl"

layout(local_size_x = 1) in;
layout(binding = 0) uniform sampler2D exposure_texture;
layout(std430, binding = 1) buffer Scalars { FrameScalars scalars; };

void main() {
    float e = frame.exposure_value;
    if (frame.option == 1u) e = px_exposure_texture_value(texelFetch(exposure_texture, ivec2(0, 0), 0).r);
    scalars.exposure = e;
    CLEAR_FRAME_COUNTS(scalars);
}
