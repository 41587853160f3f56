#include "vulkan/runtime/matrix_rate.h"

#include <algorithm>
#include <vector>

#include "vulkan/runtime/device.h"
#include "vulkan/runtime/memory.h"
#include "vulkan/runtime/recorder.h"
#include "vulkan/runtime/stage_timer.h"
#include "vulkan_shaders.h"

namespace swinup::vulkan {

MatrixRate measure_matrix_rate(Device& device, int runs) {
    MatrixRate rate;
#if SWINUP_VULKAN_MATRIX_SHADERS
    const DeviceCapabilities& caps = device.capabilities();
    if (!caps.cooperative_matrix || device.queue() == VK_NULL_HANDLE) return rate;
    const MatrixShape& s = caps.matrix_shape;
    // Enough subgroups to fill any GPU of today several times over (4 a workgroup).
    constexpr uint32_t kGroups = 4096, kSubgroupsPerGroup = 4;
    constexpr int32_t kIterations = 2048;
    PipelineDesc desc;
    desc.code = &shaders::probe_matrix_rate;
    desc.bindings = {BindingKind::StorageBuffer};
    desc.push_constant_size = 4;
    desc.specialization = {kSubgroupsPerGroup * caps.subgroup_size, s.m, s.n, s.k};
    if (caps.subgroup_size_control) desc.required_subgroup_size = caps.subgroup_size;
    const ComputePipeline& pipeline = device.pipeline(desc);
    Buffer out(device, VkDeviceSize(kGroups) * kSubgroupsPerGroup * s.m * s.n * 4, MemoryUse::DeviceLocal);
    StageTimer timer(device, 4);
    HostSubmitter submitter(device);
    std::vector<double> ms;
    for (int i = 0; i <= runs; ++i) {
        Recorder& rec = submitter.begin();
        timer.begin(rec);
        const Bind bind = Bind::buffer(out);
        rec.dispatch_raw(pipeline, &bind, 1, &kIterations, sizeof kIterations, Groups{kGroups, 1, 1});
        timer.mark(rec, "matrix");
        submitter.submit_and_wait();
        if (i > 0) ms.push_back(timer.stages().at(0).second);
    }
    std::sort(ms.begin(), ms.end());
    rate.ms = ms[ms.size() / 2];
    const double flops = double(kGroups) * kSubgroupsPerGroup * kIterations * 4 * 2.0 * s.m * s.n * s.k;
    rate.tflops = flops / (rate.ms * 1e-3) / 1e12;
#else
    (void)device;
    (void)runs;
#endif
    return rate;
}

}  // namespace swinup::vulkan
