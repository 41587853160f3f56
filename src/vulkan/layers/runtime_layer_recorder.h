// LayerRecorder on the runtime's Recorder (vulkan/runtime/recorder.h): the layer kernels'
// pipelines from the embedded SPIR-V (made when the backend is made, build_layer_pipelines, and
// kept by the Device), their dispatches and the barriers between them.
#pragma once

#include <functional>
#include <utility>

#include "vulkan/layers/layer_recorder.h"
#include "vulkan/runtime/pipeline.h"

namespace swinup::vulkan {

class Device;
class Recorder;

// The pipeline of a layer kernel (its shader, storage-buffer bindings, push constants and
// specialisation, required subgroup size) on `device`, as dispatch() makes it: the matrix kernels'
// variant, constants and subgroup size are the device's fast-GEMM path's.
PipelineDesc layer_kernel_pipeline(const Device& device, LayerKernel kernel);

// Makes the pipeline of every kernel of the LayerKernel list (kLayerKernelCount of them) on
// `device`, so that no recorded frame creates one: a kernel added to the list is built here too.
// The matrix kernels are built for the path the device is on (none on the portable path); one
// not built here is made at its first dispatch.
void build_layer_pipelines(Device& device);

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
