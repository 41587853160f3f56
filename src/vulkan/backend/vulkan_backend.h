// The Vulkan backend (SWINUP_BACKEND_VULKAN): the frame passes (vulkan/frame/) around the network
// (VulkanNetwork, network_vulkan.h), the temporal state double-buffered in FrameBuffers and
// committed only after a frame succeeded, like the CPU and CUDA backends.
//
// Two ways to run a frame:
// - dispatch() (the Backend interface, host pointers): copies the inputs into swinup's images,
//   records the frame, submits it on the device's queue, waits, copies the output back.
// - record_frame() + commit() (the Vulkan-facing API, vulkan/api/): records the same frame into a
//   caller's Recorder on the caller's images; the caller commits once the recording succeeded.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "api/backend.h"
#include "frame/frame_sequence.h"
#include "vulkan/frame/frame_passes.h"
#include "vulkan/frame/host_frame_io.h"
#include "vulkan/runtime/device.h"
#include "vulkan/runtime/recorder.h"
#include "vulkan/runtime/stage_timer.h"

namespace swinup::vulkan {

class VulkanNetwork;

// What the last successful frame's staging replaced, and the exposure it used.
struct VulkanFrameStats {
    uint64_t color_replaced = 0, depth_replaced = 0, motion_replaced = 0;
    float exposure = 1.0f;
};

class VulkanBackend final : public Backend {
public:
    // The network of one frame, recorded: staged e4m3 slots (padded w x h x 16 codes) in, raw f32
    // head outputs (padded w x h x 16) out. Empty: VulkanNetwork on the weights.
    using NetworkFn = std::function<void(Recorder& rec, const Buffer& staged, int padded_width,
                                         int padded_height, uint64_t frame_index, const Buffer& head)>;

    // Whether the context runs host-pointer frames (dispatch, generate_reactive_mask). A context on
    // the application's device cannot (swinup submits to no queue of the application's), so it
    // allocates none of their copies: about 240 MB at 1920x1080 -> 3840x2160.
    enum class HostPath { kEnabled, kNone };

    // Runs on `device`, which `owned` owns when given (else the caller keeps it alive longer).
    // Throws VulkanError (a device too small, an output format it cannot write) or
    // std::invalid_argument (weights the network cannot use).
    VulkanBackend(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights, Device& device,
                  std::unique_ptr<Device> owned = nullptr, NetworkFn network = {},
                  HostPath host_path = HostPath::kEnabled);
    ~VulkanBackend() override;

    swinup_backend kind() const override { return SWINUP_BACKEND_VULKAN; }
    std::string device_name() const override { return device_.name(); }
    swinup_status dispatch(const swinup_dispatch_desc& desc, uint64_t frame_index, std::string* error) override;
    // swinup_generate_reactive_mask on host pointers: both colours copied into swinup's images, the
    // mask computed on the device (vulkan/frame/reactive_mask_pass.h), read back and written into
    // desc.output's rows only once it completed. The first call allocates its images and buffers.
    // Both are refused (SWINUP_STATUS_UNSUPPORTED) under HostPath::kNone.
    swinup_status generate_reactive_mask(const swinup_reactive_mask_desc& desc, std::string* error) override;
    // device_bytes: every VkDeviceMemory swinup holds on its Device (Device::allocated_bytes: the
    // buffers and images of the frame, the network and the host path, device-local and
    // host-visible alike). host_bytes: 0 (the host-side objects are small and not counted).
    BackendMemory memory() const override;
    // The counts of the frames run so far: every host-pointer frame (each one is waited for), and
    // the recorded frames whose counts were read back (count_frame). Never waits.
    swinup_status input_statistics(InputStatistics* out, std::string*) const override {
        *out = statistics_;
        return SWINUP_STATUS_OK;
    }
    InputStatistics input_statistics_known() const override { return statistics_; }
    // Adds one completed frame's counts (its FrameScalars) to the statistics; a completed frame also
    // tells the network its weights are in place (VulkanNetwork::weights_arrived).
    void count_frame(const FrameScalars& scalars);
    // The Vulkan-facing API's per-recording-slot copies of recorded frames' FrameScalars (host
    // readable; vulkan_api/recording_slots.h has as many slots). Allocated here, with the rest, so
    // that the memory query's figure (vulkan_memory_estimate) includes it.
    static constexpr size_t kRecordedCountSlots = 8;
    Buffer& recorded_counts() { return recorded_counts_; }

    // The set-up of the next frame of `desc` (changes nothing).
    FrameSetup begin_frame(const swinup_dispatch_desc& desc) const { return frames_.begin(desc_, desc); }
    // Records `frame` from the input images to the output image (a storage image of the context's
    // output format in GENERAL layout). Writes only the frame's scratch and the state slot
    // frame.next. Throws VulkanError.
    void record_frame(Recorder& rec, const FrameSetup& frame, const swinup_dispatch_desc& desc,
                      const FrameInputViews& inputs, VkImageView output, uint64_t frame_index);
    // Makes `frame` the last successful one (its state slot is what the next frame reads; the
    // state's zeroing, recorded with the first frame, counts as done).
    void commit(const FrameSetup& frame) {
        frames_.commit(frame);
        state_initialised_ = true;
    }
    // The host-side bookkeeping a commit changes (which state slot holds the last frame, its size
    // and jitter, whether the state was zeroed), taken before a recorded frame and put back when
    // that frame is abandoned: it never ran, so the GPU state is what the earlier frames left.
    struct SequencePoint {
        FrameSequence frames;
        bool state_initialised = false;
    };
    SequencePoint sequence_point() const { return {frames_, state_initialised_}; }
    void restore(const SequencePoint& point) {
        frames_ = point.frames;
        state_initialised_ = point.state_initialised;
    }

    Device& device() { return device_; }
    const VulkanFrameStats& last_frame_stats() const { return stats_; }
    // Tests: the state buffers and the last frame's scratch.
    FrameBuffers& frame_buffers() { return buffers_; }
    int current_slot() const { return frames_.current(); }
    // `swinup bench`: time the stages of each host dispatch (GPU timestamps; last_stage_times()
    // after a dispatch). Throws VulkanError when the device writes no timestamps.
    // The network's layers are stages of their own ("network: enc1", ...); with `per_kernel`
    // each of their kernels ("network: enc1: gemm_matrix", ...).
    void set_stage_timing(bool on, bool per_kernel = false);
    std::vector<std::pair<std::string, double>> last_stage_times() const {
        return timer_ ? timer_->stages() : std::vector<std::pair<std::string, double>>{};
    }
    // Tests of the failure path: the next host submission fails with `result` (nothing runs).
    void inject_submit_failure(VkResult result) { submitter_.inject_failure(result); }

private:
    swinup_context_desc desc_;
    std::shared_ptr<const Weights> weights_;
    std::unique_ptr<Device> owned_;
    Device& device_;
    FrameBuffers buffers_;
    FramePasses passes_;
    std::unique_ptr<VulkanNetwork> network_;
    NetworkFn network_fn_;
    FrameSequence frames_;
    bool state_initialised_ = false;  // the state buffers were zeroed by a completed frame
    // The host path's own objects.
    HostSubmitter submitter_;
    std::unique_ptr<HostFrameIo> io_;  // null under HostPath::kNone
    Buffer scalars_readback_;
    Buffer recorded_counts_;  // kRecordedCountSlots FrameScalars
    // generate_reactive_mask's values (max render w * h f32) and their host copy; made on first use.
    std::unique_ptr<Buffer> mask_values_, mask_readback_;
    VulkanFrameStats stats_;
    InputStatistics statistics_;  // summed over the counted frames since creation
    std::unique_ptr<StageTimer> timer_;  // only while stage timing is on
};

}  // namespace swinup::vulkan
