// What the network's layers need from the Vulkan runtime to record themselves: a dispatch of one
// of the layer kernels (src/vulkan/shaders/layers/*.comp) on storage-buffer ranges with its
// push constants, and the barrier between dependent dispatches. The network (backend/
// network_vulkan.cpp) implements it on the runtime's command recorder; the layers stay free of
// pipelines, descriptors and command buffers.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <initializer_list>

namespace swinup::vulkan {

// A range of a storage buffer (offset a multiple of 256, the largest minStorageBufferOffsetAlignment
// Vulkan allows, so it suits every device).
struct BufferView {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
    VkDeviceSize size = 0;
};

// The layer kernels, one shader each.
enum class LayerKernel {
    gemm_e4m3,          // layers/gemm_e4m3.comp (exact: the CPU's k order), 64-output tiles
    gemm_e4m3_n32,      // the same with 32-output tiles (specialization constant 0 = 32)
    gemm_portable,      // gemm_e4m3.comp's PORTABLE_FAST variant (fast mode without matrix units)
    gemm_portable_n32,
    gemm_matrix,        // layers/gemm_matrix.comp (fast mode's matrix path; the recorder picks
    gemm_matrix_n32,    // the real or emulated variant and the matrix shape from the device)
    rms_norm_e4m3,      // layers/rms_norm_e4m3.comp
    window_attention,   // layers/window_attention.comp (exact mode; fast mode's wide heads)
    window_attention_fast,  // its FAST variant (fast mode, heads of up to 32 channels)
    gather_rows,        // layers/gather_rows.comp
};
constexpr int kLayerKernelCount = 10;

// Workgroup counts covering `items` work items in groups of `group_size`, as a 2D grid when they
// exceed 65535 (maxComputeWorkGroupCount's guaranteed minimum per dimension); the shaders number
// their groups y * num_groups_x + x (some groups at the end may have no items).
struct Groups2d {
    uint32_t x = 1, y = 1;
};
inline Groups2d groups_1d(uint64_t items, uint32_t group_size) {
    constexpr uint64_t kMaxX = 65535;
    const uint64_t groups = (items + group_size - 1) / group_size;
    if (groups <= kMaxX) return {uint32_t(groups == 0 ? 1 : groups), 1};
    return {uint32_t(kMaxX), uint32_t((groups + kMaxX - 1) / kMaxX)};
}

class LayerRecorder {
public:
    virtual ~LayerRecorder() = default;
    // Records kernel on bindings 0, 1, ... = `buffers` with `push` as its push constants.
    virtual void dispatch(LayerKernel kernel, std::initializer_list<BufferView> buffers, const void* push,
                          uint32_t push_bytes, uint32_t groups_x, uint32_t groups_y, uint32_t groups_z) = 0;
    // Makes every shader write recorded so far visible to every shader read and write after it.
    virtual void barrier() = 0;
    // Whether fast mode's GEMM runs gemm_matrix (its tiles: layers/gemm.cpp) or gemm_portable.
    virtual bool fast_gemm_on_matrix_tiles() const = 0;
};

}  // namespace swinup::vulkan
