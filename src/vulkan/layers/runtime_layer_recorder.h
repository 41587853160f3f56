// LayerRecorder on the runtime's Recorder (vulkan/runtime/recorder.h): the layer kernels'
// pipelines from the embedded SPIR-V (made on first use and kept by the Device), their dispatches
// and the barriers between them.
#pragma once

#include "vulkan/layers/layer_recorder.h"

namespace swinup::vulkan {

class Device;
class Recorder;

class RuntimeLayerRecorder final : public LayerRecorder {
public:
    RuntimeLayerRecorder(Device& device, Recorder& recorder) : device_(device), recorder_(recorder) {}
    void dispatch(LayerKernel kernel, std::initializer_list<BufferView> buffers, const void* push,
                  uint32_t push_bytes, uint32_t groups_x, uint32_t groups_y, uint32_t groups_z) override;
    void barrier() override;
    bool fast_gemm_on_matrix_tiles() const override;

private:
    Device& device_;
    Recorder& recorder_;
};

}  // namespace swinup::vulkan
