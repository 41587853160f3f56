#include "vulkan/layers/runtime_layer_recorder.h"

#include <vector>

#include "vulkan/layers/layer_params.h"
#include "vulkan/runtime/device.h"
#include "vulkan/runtime/recorder.h"
#include "vulkan_shaders.h"

namespace swinup::vulkan {

namespace {

struct KernelDesc {
    const SpirvCode* code;
    int buffers;
    uint32_t push_bytes;
    std::vector<uint32_t> specialization;
};

KernelDesc kernel_desc(LayerKernel kernel) {
    switch (kernel) {
        case LayerKernel::gemm_e4m3: return {&shaders::layers_gemm_e4m3, 6, sizeof(GemmParams), {64}};
        case LayerKernel::gemm_e4m3_n32: return {&shaders::layers_gemm_e4m3, 6, sizeof(GemmParams), {32}};
        case LayerKernel::rms_norm_e4m3: return {&shaders::layers_rms_norm_e4m3, 3, sizeof(RmsNormParams), {}};
        case LayerKernel::window_attention:
            return {&shaders::layers_window_attention, 3, sizeof(AttentionParams), {}};
        case LayerKernel::gather_rows: return {&shaders::layers_gather_rows, 2, sizeof(GatherRowsParams), {}};
    }
    return {nullptr, 0, 0, {}};
}

}  // namespace

PipelineDesc layer_kernel_pipeline(LayerKernel kernel) {
    const KernelDesc k = kernel_desc(kernel);
    PipelineDesc desc;
    desc.code = k.code;
    desc.bindings.assign(size_t(k.buffers), BindingKind::StorageBuffer);
    desc.push_constant_size = k.push_bytes;
    desc.specialization = k.specialization;
    return desc;
}

void build_layer_pipelines(Device& device) {
    for (int i = 0; i < kLayerKernelCount; ++i) device.pipeline(layer_kernel_pipeline(static_cast<LayerKernel>(i)));
}

void RuntimeLayerRecorder::dispatch(LayerKernel kernel, std::initializer_list<BufferView> buffers, const void* push,
                                    uint32_t push_bytes, uint32_t groups_x, uint32_t groups_y, uint32_t groups_z) {
    const ComputePipeline& pipeline = device_.pipeline(layer_kernel_pipeline(kernel));
    std::vector<Bind> binds;
    binds.reserve(buffers.size());
    for (const BufferView& b : buffers) binds.push_back(Bind::buffer(b.buffer, b.offset, b.size));
    recorder_.dispatch_raw(pipeline, binds.data(), binds.size(), push, push_bytes, Groups{groups_x, groups_y, groups_z});
}

void RuntimeLayerRecorder::barrier() { recorder_.barrier(); }

}  // namespace swinup::vulkan
