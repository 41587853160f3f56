// LayerRecorder on the runtime's Recorder (vulkan/runtime/recorder.h): the layer kernels'
// pipelines from the embedded SPIR-V (made when the backend is made, build_layer_pipelines, and
// kept by the Device), their dispatches and the barriers between them.
#pragma once

#include "vulkan/layers/layer_recorder.h"
#include "vulkan/runtime/pipeline.h"

namespace swinup::vulkan {

class Device;
class Recorder;

// The pipeline of a layer kernel (its shader, storage-buffer bindings, push constants and
// specialisation), as dispatch() makes it.
PipelineDesc layer_kernel_pipeline(LayerKernel kernel);

// Makes the pipeline of every kernel of the LayerKernel list (kLayerKernelCount of them) on
// `device`, so that no recorded frame creates one: a kernel added to the list is built here too.
void build_layer_pipelines(Device& device);

class RuntimeLayerRecorder final : public LayerRecorder {
public:
    RuntimeLayerRecorder(Device& device, Recorder& recorder) : device_(device), recorder_(recorder) {}
    void dispatch(LayerKernel kernel, std::initializer_list<BufferView> buffers, const void* push,
                  uint32_t push_bytes, uint32_t groups_x, uint32_t groups_y, uint32_t groups_z) override;
    void barrier() override;

private:
    Device& device_;
    Recorder& recorder_;
};

}  // namespace swinup::vulkan
