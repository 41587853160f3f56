// LayerRecorder on the runtime's Recorder (vulkan/runtime/recorder.h): the layer kernels'
// pipelines from the embedded SPIR-V (made on first use and kept by the Device), their dispatches
// and the barriers between them.
#pragma once

#include <functional>
#include <utility>

#include "vulkan/layers/layer_recorder.h"

namespace swinup::vulkan {

class Device;
class Recorder;

class RuntimeLayerRecorder final : public LayerRecorder {
public:
    // Called after each recorded dispatch with its kernel's name (`swinup bench --detail`: a
    // timestamp per kernel).
    using DispatchHook = std::function<void(const char* kernel, Recorder& recorder)>;

    RuntimeLayerRecorder(Device& device, Recorder& recorder, DispatchHook hook = nullptr)
        : device_(device), recorder_(recorder), hook_(std::move(hook)) {}
    void dispatch(LayerKernel kernel, std::initializer_list<BufferView> buffers, const void* push,
                  uint32_t push_bytes, uint32_t groups_x, uint32_t groups_y, uint32_t groups_z) override;
    void barrier() override;
    bool fast_gemm_on_matrix_tiles() const override;

private:
    Device& device_;
    Recorder& recorder_;
    DispatchHook hook_;
};

// "gemm_matrix", "window_attention_fast", ...
const char* layer_kernel_name(LayerKernel kernel);

}  // namespace swinup::vulkan
