// The network of one frame on the CPU (docs/model-spec.md): staged slots in, raw head outputs out.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/weights.h"
#include "swinup/swinup.h"

namespace swinup::cpu {

class Network {
public:
    Network(std::shared_ptr<const Weights> weights, swinup_precision precision);
    ~Network();

    // staged: height x width x 16 floats, each an e4m3 value (row-major, slots contiguous).
    // head:   height x width x 16 floats, the head's raw f32 outputs (before tanh/sigmoid/exp).
    // width and height are the padded render grid (multiples of 32). frame_index picks the
    // window-shift parity. Deterministic: the same input gives the same bits on any thread count.
    void run(const float* staged, int width, int height, uint64_t frame_index, float* head);

    // Optional observer of every layer's output (golden tests, debugging): layer name, data
    // (tokens row-major, channels contiguous), grid width, height and channel count.
    using LayerHook =
        std::function<void(const std::string& layer, const float* data, int w, int h, int c)>;
    void set_layer_hook(LayerHook hook);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace swinup::cpu
