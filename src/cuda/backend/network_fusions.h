// Which fused kernels the CUDA network runs, and how the frame hands its input statistics over
// (plain C++: the GPU tests and `swinup bench` choose them through cuda_tools.h without CUDA
// headers). Every choice gives the same bytes as the layer-by-layer launches;
// tests/cuda/test_cuda_fusion.cpp checks that layer by layer, tests/cuda/test_cuda_input_statistics.cpp
// the same counts either way.
//
// The fields that default to false are candidates: written and tested for the bytes, but not yet
// run on a GPU. A candidate becomes the default only once a GPU run has passed its tests and timed
// it faster (scripts/device_cuda_speed_check.sh; `swinup bench --with KIND` turns it on, `--unfused
// KIND` turns a default off).
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
    // Only where attention and mlp are on too: off, those two run as their own kernels. Candidate.
    bool block = false;
    // Where the fused attention half and the fused MLP run on levels 2 and 3 (C = 96 and 128: 3,600
    // and 900 windows at 720p, too few to fill the GPU with one warp each), a team of warps per
    // window or tile instead of one warp (attention_team.cuh, mlp_team.cuh; warp_team.cuh says
    // why). Candidate.
    bool teams = false;
    // The frame's input statistics: its counters published into mapped host memory and cleared by
    // one thread of the staging kernel (pre_network.cu publish_counts), no nodes of their own;
    // false: cleared by a memset node before input_planes and copied to pinned host memory after
    // the frame, as before (for timing the difference). The CUDA backend's, not the network's:
    // CudaBackend::set_fusions, before the first frame. Candidate.
    bool published_counts = false;
};

}  // namespace swinup::cuda
