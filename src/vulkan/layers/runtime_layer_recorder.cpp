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
    uint32_t required_subgroup_size = 0;
};

// gemm_matrix.comp on the device's fast-GEMM path: the real or the emulated variant, four
// subgroups of the device's size, the output tile and the matrix shape as specialization constants.
KernelDesc gemm_matrix_desc(const Device& device, uint32_t tile_n) {
    const DeviceCapabilities& caps = device.capabilities();
    const MatrixShape& shape = device.gemm_matrix_shape();
    const uint32_t subgroup = caps.subgroup_size;
    KernelDesc d{nullptr, 7, sizeof(GemmParams), {4 * subgroup, tile_n, shape.m, shape.n, shape.k, subgroup}};
#if SWINUP_VULKAN_MATRIX_SHADERS
    if (device.fast_gemm_path() == FastGemmPath::matrix) {
        d.code = &shaders::layers_gemm_matrix_khr_coopmat;
        // Subgroup-scope matrices assume the subgroup size the device reports; where it varies
        // between pipelines (AMD: 32 or 64, Intel: 8 to 32) it is fixed to that one.
        if (caps.subgroup_size_control) d.required_subgroup_size = subgroup;
    } else {
        d.code = &shaders::layers_gemm_matrix_emulated;
    }
#endif
    return d;
}

KernelDesc kernel_desc(const Device& device, LayerKernel kernel) {
    switch (kernel) {
        case LayerKernel::gemm_e4m3: return {&shaders::layers_gemm_e4m3_exact, 6, sizeof(GemmParams), {64}};
        case LayerKernel::gemm_e4m3_n32: return {&shaders::layers_gemm_e4m3_exact, 6, sizeof(GemmParams), {32}};
        case LayerKernel::gemm_portable:
            return {&shaders::layers_gemm_e4m3_portable_fast, 6, sizeof(GemmParams), {64}};
        case LayerKernel::gemm_portable_n32:
            return {&shaders::layers_gemm_e4m3_portable_fast, 6, sizeof(GemmParams), {32}};
        case LayerKernel::gemm_matrix: return gemm_matrix_desc(device, 64);
        case LayerKernel::gemm_matrix_n32: return gemm_matrix_desc(device, 32);
        case LayerKernel::rms_norm_e4m3: return {&shaders::layers_rms_norm_e4m3, 3, sizeof(RmsNormParams), {}};
        case LayerKernel::window_attention:
            return {&shaders::layers_window_attention_exact, 3, sizeof(AttentionParams), {}};
        case LayerKernel::window_attention_fast:
            return {&shaders::layers_window_attention_fast, 3, sizeof(AttentionParams), {}};
        case LayerKernel::gather_rows: return {&shaders::layers_gather_rows, 2, sizeof(GatherRowsParams), {}};
    }
    return {nullptr, 0, 0, {}};
}

}  // namespace

PipelineDesc layer_kernel_pipeline(const Device& device, LayerKernel kernel) {
    const KernelDesc k = kernel_desc(device, kernel);
    PipelineDesc desc;
    desc.code = k.code;
    desc.bindings.assign(size_t(k.buffers), BindingKind::StorageBuffer);
    desc.push_constant_size = k.push_bytes;
    desc.specialization = k.specialization;
    desc.required_subgroup_size = k.required_subgroup_size;
    return desc;
}

void build_layer_pipelines(Device& device) {
    static_assert(static_cast<int>(LayerKernel::gather_rows) + 1 == kLayerKernelCount,
                  "kLayerKernelCount counts every LayerKernel");
    for (int i = 0; i < kLayerKernelCount; ++i) {
        const auto kernel = static_cast<LayerKernel>(i);
        // The matrix kernels run only on the matrix or emulated path, and are the variant of the
        // path the device is on now; a path switched later (set_fast_gemm_path) makes its
        // pipelines at their first use, as Device::pipeline does for anything not built here.
        const bool matrix = kernel == LayerKernel::gemm_matrix || kernel == LayerKernel::gemm_matrix_n32;
        if (matrix && device.fast_gemm_path() == FastGemmPath::portable) continue;
        const PipelineDesc desc = layer_kernel_pipeline(device, kernel);
        if (desc.code == nullptr) continue;  // a variant this build has no shader for
        device.pipeline(desc);
    }
}

void RuntimeLayerRecorder::dispatch(LayerKernel kernel, std::initializer_list<BufferView> buffers, const void* push,
                                    uint32_t push_bytes, uint32_t groups_x, uint32_t groups_y, uint32_t groups_z) {
    const ComputePipeline& pipeline = device_.pipeline(layer_kernel_pipeline(device_, kernel));
    std::vector<Bind> binds;
    binds.reserve(buffers.size());
    for (const BufferView& b : buffers) binds.push_back(Bind::buffer(b.buffer, b.offset, b.size));
    recorder_.dispatch_raw(pipeline, binds.data(), binds.size(), push, push_bytes, Groups{groups_x, groups_y, groups_z});
    if (hook_) hook_(layer_kernel_name(kernel), recorder_);
}

const char* layer_kernel_name(LayerKernel kernel) {
    switch (kernel) {
        case LayerKernel::gemm_e4m3: return "gemm_exact";
        case LayerKernel::gemm_e4m3_n32: return "gemm_exact_n32";
        case LayerKernel::gemm_portable: return "gemm_portable";
        case LayerKernel::gemm_portable_n32: return "gemm_portable_n32";
        case LayerKernel::gemm_matrix: return "gemm_matrix";
        case LayerKernel::gemm_matrix_n32: return "gemm_matrix_n32";
        case LayerKernel::rms_norm_e4m3: return "rms_norm";
        case LayerKernel::window_attention: return "window_attention";
        case LayerKernel::window_attention_fast: return "window_attention_fast";
        case LayerKernel::gather_rows: return "gather_rows";
    }
    return "kernel";
}

void RuntimeLayerRecorder::barrier() { recorder_.barrier(); }

bool RuntimeLayerRecorder::fast_gemm_on_matrix_tiles() const {
    return device_.fast_gemm_path() != FastGemmPath::portable;
}

}  // namespace swinup::vulkan
