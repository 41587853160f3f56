// The network of one frame on the GPU, layer by layer (docs/model-spec.md, "Layers, in execution
// order"): staged e4m3 slots in, raw f32 head outputs out. These unfused kernels are the GPU
// reference: docs/cuda-kernels.md fixes their instructions and summation orders.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/weights.h"
#include "cuda/backend/device_buffer.cuh"
#include "cuda/backend/network_fusions.h"
#include "swinup/swinup.h"

namespace swinup::cuda {

// What one launched kernel does, for `swinup bench` (its roofline table).
struct StageInfo {
    std::string layer;  // e.g. "enc1"
    std::string op;     // e.g. "qkv", "attention", "norm1"
    double flops = 0;   // multiply-adds count 2
    double bytes = 0;   // the fewest device-memory bytes it must move (inputs once, outputs once)
};

class CudaNetwork {
public:
    // Uploads the weights (zero-padded to the GEMM's K % 32, N % 16) and allocates activations for
    // padded grids up to max_width x max_height (multiples of 32).
    CudaNetwork(const Weights& weights, swinup_precision precision, int max_width, int max_height);
    ~CudaNetwork();

    // Enqueues one evaluation on `stream`. staged: device e4m3 [height][width][16]; head: device
    // f32 [height][width][16]. width, height: the padded grid (multiples of 32, <= the maxima).
    // masks: the rows mask_embed reads (frame/frame_planes.cuh FramePlanes::mask_tokens: 16 bytes
    // a row; lite a level-1 token's 8 e4m3, full a pixel's 2), or null when the frame has none or
    // the weights have no mask_embed (then the layer is left out, as the CPU leaves it out when
    // its bias is zero, the only bias the GPU backends accept).
    void run(const uint8_t* staged, int width, int height, uint64_t frame_index, float* head,
             cudaStream_t stream, const uint8_t* masks = nullptr);

    // Tests: after each layer, synchronise and hand its output to the hook as floats, with the
    // CPU network's layer names (cpu/network.cpp).
    using LayerHook = std::function<void(const std::string& layer, const float* data, int w, int h, int c)>;
    void set_layer_hook(LayerHook hook);

    // Which fused kernels run (all by default); each choice gives the same bytes as the
    // layer-by-layer launches (tests/cuda/test_cuda_fusion.cpp checks every combination's layers).
    void set_fusions(const NetworkFusions& fusions);

    // Bench: called around every kernel launch (begin = true before, false after).
    using StageMarker = std::function<void(const StageInfo& stage, bool begin, cudaStream_t stream)>;
    void set_stage_marker(StageMarker marker);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace swinup::cuda
