// The network of one frame on the CPU (docs/model-spec.md): staged slots in, raw head outputs out.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "model/model_spec.h"
#include "model/weights.h"
#include "swinup/swinup.h"

namespace swinup::cpu {

class Network {
public:
    // Decodes the weights once (e4m3 codes to floats, f16 bias tables to f32). Throws
    // std::invalid_argument naming the tensor when one is missing or misshapen. The CPU evaluates
    // the `exact` formulas in both precision modes (`fast` may only be faster, and the exact
    // element-wise functions are a small part of the CPU's time), so its `fast` bound is zero.
    Network(std::shared_ptr<const Weights> weights, swinup_precision precision);
    ~Network();

    // staged: height x width x 16 floats, each an e4m3 value (row-major, slots contiguous).
    // head:   height x width x 16 floats, the head's raw f32 outputs (before tanh/sigmoid/exp).
    // width and height are the padded render grid (multiples of 32). frame_index picks the
    // window-shift parity. Deterministic: the same input gives the same bits on any thread count.
    // Runs on the calling thread's oneTBB arena. Throws std::invalid_argument for a grid that is
    // not a positive multiple of 32 (the context validates sizes before it gets here).
    // Activations stay allocated between calls (about 370 MB for lite at 1920x1088), so one
    // Network runs one frame at a time (like the context that owns it, it is not thread-safe).
    // masks: height x width x 2 floats, each pixel's (reactive, transparency) as e4m3 values, or
    // nullptr when the frame has no mask (docs/masks.md: then mask_embed adds its bias alone).
    void run(const float* staged, int width, int height, uint64_t frame_index, float* head,
             const float* masks = nullptr);

    // Optional observer of every layer's output (golden tests, debugging): layer name, data
    // (tokens row-major, channels contiguous), grid width, height and channel count. Names, in
    // order: lite: embed; full: embed0, embed1, enc0, merge0; then enc1, merge1, enc2, merge2,
    // tube0..tube3, expand2, dec2, expand1, dec1, expand0, (full: dec0,) head. The same names as
    // the PyTorch reference's hook. Called on the thread that called run().
    using LayerHook =
        std::function<void(const std::string& layer, const float* data, int w, int h, int c)>;
    void set_layer_hook(LayerHook hook);

    // Allocates the activations for padded grids up to width x height now, so that run() on
    // such grids allocates nothing more (CpuBackend calls it at creation).
    void reserve(int width, int height);
    // Host bytes this network holds: the decoded weights and the activations' allocations.
    size_t heap_bytes() const;
    // Host bytes of the activations that reserve(width, height) allocates for `config` (without
    // a layer hook's buffer): the sizes run() and reserve() use, for swinup_query_memory.
    static size_t activation_bytes(const ModelConfig& config, int width, int height);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace swinup::cpu
