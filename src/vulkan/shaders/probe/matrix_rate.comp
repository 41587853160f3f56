// compiler: cooperative-matrix
// The matrix units' f16 multiply-add rate (runtime/matrix_rate.cpp): each subgroup issues
// `iterations` x 4 independent coopMatMulAdd of the device's shape on operands held in
// registers, no memory traffic but the final store, so the time is the issue rate alone: the
// ceiling `swinup bench --backend vulkan` holds the network's layers to.
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const int kInvocations = 128;
layout(constant_id = 1) const int kMatM = 16;
layout(constant_id = 2) const int kMatN = 16;
layout(constant_id = 3) const int kMatK = 16;

layout(std430, binding = 0) writeonly buffer Out { float out_values[]; };
layout(push_constant) uniform Params { int iterations; } p;

void main() {
    coopmat<float16_t, gl_ScopeSubgroup, kMatM, kMatK, gl_MatrixUseA> a =
        coopmat<float16_t, gl_ScopeSubgroup, kMatM, kMatK, gl_MatrixUseA>(float16_t(1.0 / 1024.0));
    coopmat<float16_t, gl_ScopeSubgroup, kMatK, kMatN, gl_MatrixUseB> b =
        coopmat<float16_t, gl_ScopeSubgroup, kMatK, kMatN, gl_MatrixUseB>(float16_t(1.0 / 512.0));
    coopmat<float, gl_ScopeSubgroup, kMatM, kMatN, gl_MatrixUseAccumulator> c0 =
        coopmat<float, gl_ScopeSubgroup, kMatM, kMatN, gl_MatrixUseAccumulator>(0.0);
    coopmat<float, gl_ScopeSubgroup, kMatM, kMatN, gl_MatrixUseAccumulator> c1 = c0;
    coopmat<float, gl_ScopeSubgroup, kMatM, kMatN, gl_MatrixUseAccumulator> c2 = c0;
    coopmat<float, gl_ScopeSubgroup, kMatM, kMatN, gl_MatrixUseAccumulator> c3 = c0;
    for (int i = 0; i < p.iterations; ++i) {
        c0 = coopMatMulAdd(a, b, c0);
        c1 = coopMatMulAdd(a, b, c1);
        c2 = coopMatMulAdd(a, b, c2);
        c3 = coopMatMulAdd(a, b, c3);
    }
    c0 = c0 + c1 + c2 + c3;
    const uint subgroup = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID;
    coopMatStore(c0, out_values, subgroup * uint(kMatM * kMatN), uint(kMatN), gl_CooperativeMatrixLayoutRowMajor);
}
