// Recording compute work into a command buffer: the one way every swinup pass is recorded.
//
// Usage (host path; the Vulkan-facing API makes a Recorder on the application's command buffer
// instead of a HostSubmitter's):
//
//   HostSubmitter submitter(device);
//   Recorder& rec = submitter.begin();                       // resets the command buffer
//   const ComputePipeline& gelu = device.pipeline({&shaders::layers_gelu,
//       {BindingKind::StorageBuffer, BindingKind::StorageBuffer}, sizeof(GeluPush)});
//   GeluPush push{count};                                    // a struct matching the shader's
//   rec.dispatch(gelu, {Bind::buffer(in), Bind::buffer(out)}, push,
//                Groups{div_up(count, 256)});                // push_constant block (std430)
//   rec.dispatch(next, {Bind::buffer(out), ...}, ...);      // sees the writes of `gelu`
//   submitter.submit_and_wait();                             // throws VulkanError on failure
//
// Ordering: every command (dispatch, copy, fill) sees the writes of every command recorded before
// it on the same Recorder: the recorder puts one global memory barrier (compute and transfer, all
// reads and writes) before a command when anything was recorded since the last barrier. For
// dispatches that do not depend on each other, wrap them in begin_concurrent()/end_concurrent()
// to leave the barriers out between them.
//
// Bindings: binding i of set 0 is the i-th element of the list, of the kind the pipeline declares
// (checked: a mismatch throws VulkanError(INTERNAL) naming the shader). Buffers are bound whole or
// by range (offset must be a multiple of minStorageBufferOffsetAlignment). Images are read as
// sampled images (texelFetch; any layout the caller states, GENERAL for swinup's own images) or
// read/written as storage images (GENERAL layout). Descriptor sets come from the recorder's
// DescriptorArena, valid until the arena is reset (the HostSubmitter resets it in begin()).
//
// Push constants: pass a trivially copyable struct whose size equals the pipeline's
// push_constant_size (checked).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <vector>

#include "vulkan/runtime/memory.h"
#include "vulkan/runtime/pipeline.h"

namespace swinup::vulkan {

class Device;

struct Groups {
    uint32_t x = 1, y = 1, z = 1;
};
constexpr uint32_t div_up(uint32_t n, uint32_t d) { return (n + d - 1) / d; }

// One descriptor of a dispatch.
struct Bind {
    BindingKind kind = BindingKind::StorageBuffer;
    VkBuffer buffer_handle = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
    VkDeviceSize range = VK_WHOLE_SIZE;
    VkImageView view = VK_NULL_HANDLE;
    VkImageLayout layout = VK_IMAGE_LAYOUT_GENERAL;

    static Bind buffer(const Buffer& b) { return {BindingKind::StorageBuffer, b.handle(), 0, VK_WHOLE_SIZE}; }
    static Bind buffer(const Buffer& b, VkDeviceSize offset, VkDeviceSize bytes) {
        return {BindingKind::StorageBuffer, b.handle(), offset, bytes};
    }
    static Bind buffer(VkBuffer b, VkDeviceSize offset, VkDeviceSize bytes) {
        return {BindingKind::StorageBuffer, b, offset, bytes};
    }
    static Bind storage_image(const Image& i) {
        return {BindingKind::StorageImage, VK_NULL_HANDLE, 0, 0, i.view(), VK_IMAGE_LAYOUT_GENERAL};
    }
    static Bind storage_image(VkImageView v) {
        return {BindingKind::StorageImage, VK_NULL_HANDLE, 0, 0, v, VK_IMAGE_LAYOUT_GENERAL};
    }
    static Bind sampled_image(const Image& i) {
        return {BindingKind::SampledImage, VK_NULL_HANDLE, 0, 0, i.view(), VK_IMAGE_LAYOUT_GENERAL};
    }
    static Bind sampled_image(VkImageView v, VkImageLayout layout) {
        return {BindingKind::SampledImage, VK_NULL_HANDLE, 0, 0, v, layout};
    }
};

// Descriptor pools from which a recording's sets are allocated; reset() frees them all at once
// (only when the GPU no longer uses them).
class DescriptorArena {
public:
    // allocator: the device's (Device::allocator), used for the pools.
    DescriptorArena(VkDevice device, const VkAllocationCallbacks* allocator)
        : device_(device), allocator_(allocator) {}
    ~DescriptorArena();
    DescriptorArena(const DescriptorArena&) = delete;
    DescriptorArena& operator=(const DescriptorArena&) = delete;
    VkDescriptorSet allocate(VkDescriptorSetLayout layout);
    void reset();

private:
    void add_pool();
    VkDevice device_;
    const VkAllocationCallbacks* allocator_;
    std::vector<VkDescriptorPool> pools_;
    size_t current_ = 0;
};

class Recorder {
public:
    Recorder(Device& device, VkCommandBuffer commands, DescriptorArena& arena)
        : device_(device), commands_(commands), arena_(arena) {}

    VkCommandBuffer command_buffer() const { return commands_; }
    Device& device() const { return device_; }

    template <class Push>
    void dispatch(const ComputePipeline& pipeline, std::initializer_list<Bind> bindings, const Push& push,
                  Groups groups) {
        static_assert(std::is_trivially_copyable_v<Push>, "push constants are copied bytewise");
        dispatch_raw(pipeline, bindings.begin(), bindings.size(), &push, sizeof(Push), groups);
    }
    void dispatch(const ComputePipeline& pipeline, std::initializer_list<Bind> bindings, Groups groups) {
        dispatch_raw(pipeline, bindings.begin(), bindings.size(), nullptr, 0, groups);
    }
    void dispatch_raw(const ComputePipeline& pipeline, const Bind* bindings, size_t count,
                      const void* push, uint32_t push_bytes, Groups groups);

    // Transfers, ordered like dispatches.
    void copy_buffer(const Buffer& src, VkDeviceSize src_offset, const Buffer& dst, VkDeviceSize dst_offset,
                     VkDeviceSize bytes);
    void fill_buffer(const Buffer& dst, uint32_t value);  // the whole buffer, every word = value
    // Copies between a tightly packed buffer region and the top-left width x height texels of an
    // image in its current layout (GENERAL for swinup's images); width/height 0 = the whole image.
    void copy_buffer_to_image(const Buffer& src, VkDeviceSize offset, const Image& dst, uint32_t width = 0,
                              uint32_t height = 0);
    void copy_image_to_buffer(const Image& src, const Buffer& dst, VkDeviceSize offset, uint32_t width = 0,
                              uint32_t height = 0);

    // Moves an image swinup owns to `layout` (discarding its contents when it was UNDEFINED).
    void transition(Image& image, VkImageLayout layout);

    // Makes everything recorded so far visible to the next command (and to the host with
    // to_host: used before a host path's readback of mapped buffers).
    void barrier(bool to_host = false);

    void begin_concurrent() { concurrent_ = true; }
    void end_concurrent() { concurrent_ = false; }

private:
    void before_command();
    Device& device_;
    VkCommandBuffer commands_;
    DescriptorArena& arena_;
    bool pending_ = false;     // a command was recorded since the last barrier
    bool concurrent_ = false;
};

// A command buffer, its pool, a fence and a descriptor arena: the host path's way to run a
// recording and wait for it.
class HostSubmitter {
public:
    explicit HostSubmitter(Device& device);
    ~HostSubmitter();
    HostSubmitter(const HostSubmitter&) = delete;
    HostSubmitter& operator=(const HostSubmitter&) = delete;

    Recorder& begin();
    // Ends the recording, submits it to the device's queue and waits (up to timeout_ns; by
    // default as long as it takes: a hung device is reported by the driver as lost, and a CPU
    // device such as lavapipe may need minutes for an exact-mode frame).
    // Throws VulkanError(DEVICE_ERROR) naming the failure (device lost, timeout).
    void submit_and_wait(uint64_t timeout_ns = UINT64_MAX);

    // For tests of the failure path: the next submit_and_wait fails with `result` as if the
    // queue had returned it (nothing is submitted).
    void inject_failure(VkResult result) { injected_ = result; }

private:
    Device& device_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer commands_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    DescriptorArena arena_;
    std::unique_ptr<Recorder> recorder_;
    bool recording_ = false;
    VkResult injected_ = VK_SUCCESS;
};

}  // namespace swinup::vulkan
