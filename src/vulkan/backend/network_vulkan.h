// The network of one frame on a Vulkan device, layer by layer (docs/model-spec.md, "Layers, in
// execution order"; the order of src/cpu/network.cpp): staged e4m3 slots in, raw f32 head outputs
// out, every layer recorded into the caller's command buffer (no submit here).
// Exact mode evaluates the exact formulas (shaders/common/exact_math.glsl) and sums every GEMM
// and attention product in the CPU's order, so each layer gives the CPU's bits; fast mode uses
// the hardware's exp2, division and inverse square root in the norms, GELU and softmax.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/weights.h"
#include "swinup/swinup.h"
#include "vulkan/layers/layer_recorder.h"

namespace swinup::vulkan {

class Device;
class Recorder;

class VulkanNetwork {
public:
    // Writes the weights into a host-visible upload buffer and allocates their device buffer and
    // the activations for padded grids up to max_width x max_height (multiples of 32). Submits
    // nothing: record() copies the weights into the device buffer until weights_arrived(). Throws
    // std::invalid_argument naming a missing or misshapen tensor, VulkanError when the device
    // refuses an allocation.
    VulkanNetwork(Device& device, std::shared_ptr<const Weights> weights, swinup_precision precision,
                  int max_width, int max_height);
    ~VulkanNetwork();
    VulkanNetwork(const VulkanNetwork&) = delete;
    VulkanNetwork& operator=(const VulkanNetwork&) = delete;

    // Records one evaluation. staged: e4m3 slots [height][width][16] (4 per uint, slot 4i in the
    // low byte: the host's uint8_t order); head: f32 [height][width][16]. width, height: the padded
    // grid (multiples of 32, at most the maxima). frame_index picks the window-shift parity.
    // masks: the frame's masks as mask_embed reads them (frame/mask_tokens.comp: lite 8 e4m3 a
    // level-1 token, full 4 a pixel), or buffer VK_NULL_HANDLE when the frame has none (or the
    // weights have no mask_embed: then they are not read).
    // The caller makes staging's writes visible before and reads head after (the recording starts
    // and ends with no barrier of its own beyond the layers').
    void record(Recorder& recorder, BufferView staged, int width, int height, uint64_t frame_index,
                BufferView head, BufferView masks = {});
    // A recording of record() has completed on the device: the weights are in the device buffer
    // and later recordings no longer copy them (until then each one does: one recorded but never
    // submitted must not leave the next reading memory nothing wrote).
    void weights_arrived();

    // Tests: when on, record() also copies every layer's output into a snapshot buffer; after the
    // commands have completed, layer_outputs() decodes them as floats with the CPU network's layer
    // names and shapes (cpu/network.h LayerHook), in execution order.
    void set_layer_snapshots(bool on);
    struct LayerOutput {
        std::string name;
        int w = 0, h = 0, c = 0;
        std::vector<float> values;  // tokens row-major, channels contiguous
    };
    std::vector<LayerOutput> layer_outputs() const;

    // Bench: called while recording, before each layer's first command (begin = true) and after
    // its last (false), with the layer names of layer_outputs(), in order, and the recorder the
    // layer is recorded into (for timestamp queries). Empty: no calls.
    using LayerMarker = std::function<void(const std::string& layer, bool begin, Recorder& recorder)>;
    void set_layer_marker(LayerMarker marker);
    // Called after each kernel's dispatch (`swinup bench --detail`), with the layer it belongs to.
    using KernelMarker = std::function<void(const std::string& layer, const char* kernel, Recorder& recorder)>;
    void set_kernel_marker(KernelMarker marker);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace swinup::vulkan
