#version 450
// The runtime test's trivial shader: out[i] = in[i] * scale + i, and the same into an image.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Inputs { float inputs[]; };
layout(std430, binding = 1) writeonly buffer Outputs { float outputs[]; };
layout(rgba32f, binding = 2) uniform writeonly image2D picture;
layout(binding = 3) uniform sampler2D source;
layout(push_constant) uniform Push {
    float scale;
    uint count;
    uint width;
} push;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= push.count) return;
    outputs[i] = inputs[i] * push.scale + float(i);
    const ivec2 p = ivec2(int(i % push.width), int(i / push.width));
    imageStore(picture, p, texelFetch(source, p, 0) + vec4(float(i)));
}
