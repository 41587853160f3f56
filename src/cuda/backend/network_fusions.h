// Which fused kernels the CUDA network runs (plain C++: the GPU tests and `swinup bench` choose
// them through cuda_tools.h without CUDA headers). Every choice gives the same bytes as the
// layer-by-layer launches; tests/cuda/test_cuda_fusion.cpp checks that layer by layer.
#pragma once

namespace swinup::cuda {

// The fused kernels a CudaNetwork uses instead of layer-by-layer launches (docs/cuda-kernels.md).
struct NetworkFusions {
    // norm1 -> qkv and norm2 -> fc1 as one GEMM each (blocks with C <= 64; GemmGather::rms_norm).
    bool norms = true;
    // norm2 -> fc1 -> GELU -> fc2 + residual as one kernel per block (mlp_fused.cuh; levels 0 to 3,
    // wherever both weight matrices fit in shared memory).
    bool mlp = true;
    // norm1 -> qkv -> window attention -> proj + residual as one kernel per block, a warp per
    // window (attention_fused.cuh; every level).
    bool attention = true;
    // lite: expand0 (+ skip0 of the staged slots) -> head norm -> head linear (-> head MLP) as one
    // kernel, per level-1 token and its 2x2 render pixels (lite_tail_fused.cuh).
    bool lite_tail = true;
    // full: head norm -> head linear (-> head MLP) as one kernel per 32-pixel tile
    // (head_fused.cuh; lite's tail already holds its head).
    bool head = true;
    // norm1 -> qkv -> window attention -> proj + residual -> norm2 -> fc1 -> GELU -> fc2 + residual
    // as one kernel per block, a warp per window through both halves, the residual stream read and
    // written once (block_fused.cuh; levels 0 to 2, C = 32, 64, 96, where block_fused_supported).
    // Only where attention and mlp are on too: off, those two run as their own kernels.
    bool block = true;
};

}  // namespace swinup::cuda
