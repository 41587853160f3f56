// The CUDA backend: the whole pipeline of a frame (exposure, input planes, staging, the network,
// the output pass, the recurrent state) as one CUDA Graph per evaluation shape (render size and
// window-shift parity), launched on the caller's stream. The graphs of at most
// SWINUP_CUDA_GRAPH_CACHE_SIZES render sizes are kept, least recently used evicted. Inputs and outputs are device pointers
// used in place, or host pointers copied through buffers allocated at creation: a dispatch
// allocates nothing (a context on Vulkan images makes those buffers at its first host-pointer
// frame instead: HostStaging::kOnFirstUse).
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "api/backend.h"
#include "cuda/backend/device_buffer.cuh"
#include "cuda/frame/post_network.cuh"
#include "cuda/frame/pre_network.cuh"
#include "cuda/backend/frame_buffers.cuh"
#include "cuda/backend/frame_params.cuh"
#include "cuda/backend/network_cuda.cuh"
#include "frame/frame_sequence.h"
#include "frame/render_size_cache.h"

namespace swinup::cuda {

class CudaBackend final : public Backend {
public:
    // When the buffers host-pointer resources are copied through are allocated: at creation
    // (swinup_context_create's contexts, whose frames are mostly host or device pointers), or at the
    // first frame with a host resource (a context on the application's Vulkan images, whose frames
    // never need them: about 190 MB at 1920x1080 -> 3840x2160).
    enum class HostStaging { kAtCreation, kOnFirstUse };
    // Throws CudaError (no device, too old, out of memory) or std::invalid_argument.
    CudaBackend(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights,
                HostStaging host_staging = HostStaging::kAtCreation);
    ~CudaBackend() override;

    swinup_backend kind() const override { return SWINUP_BACKEND_CUDA; }
    std::string device_name() const override { return device_name_; }
    swinup_status dispatch(const swinup_dispatch_desc& desc, uint64_t frame_index, std::string* error) override;
    // swinup_generate_reactive_mask on host or device memory (cuda/frame/reactive_mask.cuh): runs on
    // the legacy default stream (after the work of the device's blocking streams) and returns when
    // done. Its host-memory staging is allocated on the first call.
    swinup_status generate_reactive_mask(const swinup_reactive_mask_desc& desc, std::string* error) override;
    BackendMemory memory() const override;
    // The counts of the frames dispatched so far: waits for the frames still running (swinup
    // enqueued them; a frame on imported images also waits for the application's semaphore).
    swinup_status input_statistics(InputStatistics* out, std::string* error) const override;
    // The counts of the frames seen completed, without waiting.
    InputStatistics input_statistics_known() const override;

    // Estimate of the device memory of one instantiated frame graph (its kernel nodes' parameters
    // and launch state; CUDA has no call that reports it). An upper figure: the GPU test
    // (tests/cuda/test_cuda_memory.cpp) measures a full cache against it.
    static constexpr uint64_t kGraphDeviceBytes = 1u << 20;
    // A full cache: SWINUP_CUDA_GRAPH_CACHE_SIZES render sizes, each with both shift parities.
    static constexpr uint64_t kGraphCacheDeviceBytes = kGraphDeviceBytes * 2 * SWINUP_CUDA_GRAPH_CACHE_SIZES;

    // Tests: how many render sizes have graphs kept now.
    size_t cached_graph_sizes() const { return graphs_.size(); }

    // For tests and bench: the network (layer hooks, stage markers), and the frame's work enqueued
    // without a graph on `stream` (bench times its stages one by one).
    CudaNetwork& network() { return *network_; }
    // The output pass's kernels (output_kernels.h; default: the per-display-pixel ones). The frame graphs capture
    // them: set before the first dispatch.
    void set_output_kernels(const OutputKernels& kernels) { output_kernels_ = kernels; }
    void set_use_graphs(bool use) { use_graphs_ = use; }
    // Tests and bench: the network's fused kernels and the input statistics' hand-over
    // (NetworkFusions::published_counts); before the first frame, which captures the graphs.
    void set_fusions(const NetworkFusions& fusions) {
        network_->set_fusions(fusions);
        published_counts_ = fusions.published_counts;
    }
    // Bench: called around every launch of the frame (the network's too).
    void set_stage_marker(CudaNetwork::StageMarker marker) {
        marker_ = marker;
        network_->set_stage_marker(std::move(marker));
    }

    // A frame on images and buffers imported from another API (cuda/interop/): image inputs read
    // through texture objects (InputImage::texture), buffer inputs as device pointers (.data and
    // .pitch); the output written through a surface object, or into a buffer's rows; no copies.
    struct ImportedImages {
        InputImage color, depth, motion;        // .texture or .data set
        InputImage reactive_mask, transparency_mask;  // neither set: absent (0 at every pixel)
        unsigned long long exposure = 0;        // a 1x1 R32F texture object, or 0 (the dispatch's value)
        unsigned long long output = 0;          // the output's surface object, or 0: output_data
        void* output_data = nullptr;            // an output buffer's first pixel
        size_t output_pitch = 0;                // and its row pitch in bytes
        int output_format = 0;                  // swinup_format of the context
    };
    // The application's timeline semaphores around an imported frame (null: none).
    struct ExternalOrder {
        cudaExternalSemaphore_t wait = nullptr;  // the frame's work waits until it reaches wait_value
        unsigned long long wait_value = 0;
        cudaExternalSemaphore_t signal = nullptr;  // set to signal_value once the output is written
        unsigned long long signal_value = 0;
    };
    // Enqueues the frame on `stream` between the wait and the signal of `order`, and returns without
    // waiting on the host for this frame's inputs. Whatever may block the host is done before
    // anything of the frame waits on the application's semaphore: the frame graph's capture and
    // instantiation (a new render size, parity or masks' presence; with CUDA's lazy loading, the
    // default since 12.2, the first use of a kernel loads it, which may synchronise the context,
    // i.e. wait for the earlier frames) and the parameters' copy (enqueued before the wait: its
    // pinned slot is reused once the copy kParamSlots frames back ran, which waits only for the
    // frames before that one), and the input statistics' slot (claim_count_slot: its reuse waits for
    // the frame kCountSlots back). The scalars are swinup_dispatch_desc's; its resources are not read.
    // Throws CudaError; the temporal state commits only on success.
    void run_imported_frame(const swinup_dispatch_desc& scalars, const ImportedImages& images,
                            const ExternalOrder& order, uint64_t frame_index, cudaStream_t stream);
    int device_ordinal() const { return device_; }
    // Recorded after every frame's work (either path, on whatever stream it ran); every frame's
    // stream first waits for it. The state and scratch buffers are one set per context, so frames
    // on different streams must not overlap. Whoever frees what a frame used waits for it too.
    cudaEvent_t last_frame_done() const { return last_frame_done_; }

private:
    FrameParams frame_params(const FrameSetup& frame, const swinup_dispatch_desc& desc) const;
    // The executable graph of `params`' evaluation shape, captured and instantiated on first use
    // (on capture_stream_: nothing is enqueued on the frame's stream); null when graphs are off.
    cudaGraphExec_t frame_graph(const FrameParams& params, uint64_t frame_index);
    // Launches the frame: its graph, or (graphs off) its kernels one by one.
    void launch_frame(cudaGraphExec_t graph, const FrameParams& params, uint64_t frame_index, cudaStream_t stream);
    void run_frame(const swinup_dispatch_desc& desc, uint64_t frame_index, cudaStream_t stream);
    void enqueue(const FrameParams& host, uint64_t frame_index, cudaStream_t stream);
    InputImage input(const swinup_resource& r, DeviceBuffer& staging, cudaStream_t stream);
    // FrameParams::mask_tokens of a frame: how mask_embed reads the masks (lite 1, full 2), or 0
    // when the frame has none or the weights have no mask_embed.
    int mask_tokens_of(const FrameParams& p) const;
    // generate_reactive_mask's copies of host-memory colours and its output (max render size).
    struct MaskStaging {
        DeviceBuffer opaque, final_color, output;
    };
    std::unique_ptr<MaskStaging> mask_staging_;

    swinup_context_desc desc_;
    std::shared_ptr<const Weights> weights_;
    std::string device_name_;
    int device_ = 0;
    std::unique_ptr<CudaNetwork> network_;
    cudaStream_t capture_stream_ = nullptr;
    cudaEvent_t last_frame_done_ = nullptr;
    bool use_graphs_ = true;
    OutputKernels output_kernels_;
    CudaNetwork::StageMarker marker_;
    // A render size's frame graphs, one per window-shift parity and per masks' presence (index
    // parity + 2 * has_masks; null until first captured): a frame with masks stages them and runs
    // mask_embed, one without leaves both out, so its bits are those of a build without masks.
    struct FrameGraphs {
        cudaGraphExec_t exec[4] = {nullptr, nullptr, nullptr, nullptr};
        void release();
    };
    RenderSizeCache<FrameGraphs> graphs_{SWINUP_CUDA_GRAPH_CACHE_SIZES, [](FrameGraphs& g) { g.release(); }};

    // The temporal state (slot `frames_.current()` is what the next frame reads), the frame's
    // scratch and the host-pointer staging buffers; device_bytes_: all the device memory the
    // constructor allocated (these and the network's).
    FrameBuffers buffers_;
    uint64_t device_bytes_ = 0;
    FrameSequence frames_;
    FramePlanes planes_;

    // The imported path's frame parameters go through pinned memory (allocated at creation), so that
    // their copy never waits on the host for the stream: a pageable copy may synchronise with the
    // stream. The copy is enqueued before the wait for the application's semaphore, so a slot's
    // reuse (once its copy ran) waits at most for swinup's frame kParamSlots frames back.
    static constexpr int kParamSlots = 4;
    FrameParams* pinned_params_ = nullptr;
    cudaEvent_t param_copied_[kParamSlots] = {};
    int next_param_slot_ = 0;
    void stage_params_pinned(const FrameParams& p, cudaStream_t stream);
    // The input statistics: each frame's counters (FramePlanes::counts) arrive in a slot of mapped
    // pinned host memory, written by the frame's staging kernel (FrameParams::count_slot), or with
    // published_counts_ off copied there after the frame; the slot's event, recorded after the
    // frame, says when they are there. A slot is added to statistics_ once its event has completed
    // (collect), at the latest when a frame claims it again, before that frame is enqueued.
    static constexpr int kCountSlots = 8;
    struct CountSlot {
        cudaEvent_t done = nullptr;
        bool pending = false;
    };
    unsigned int* host_counts_ = nullptr;    // kCountSlots x kFrameCounts, mapped (cudaHostAllocMapped)
    mutable CountSlot count_slots_[kCountSlots];
    int next_count_slot_ = 0;
    // NetworkFusions::published_counts, its default taken from there: the contexts of the C API and
    // of the Vulkan interop never call set_fusions, so they run whatever this starts as.
    bool published_counts_ = NetworkFusions{}.published_counts;
    mutable InputStatistics statistics_;
    // The slot of the frame about to be enqueued: its previous frame's counts (kCountSlots frames
    // back) are added first, waiting for that frame if it is still running.
    int claim_count_slot();
    // After the frame's work on `stream`: the counters' copy (published_counts_ off) and the
    // slot's event.
    void enqueue_counts(int slot, cudaStream_t stream);
    // Adds the completed slots' counts; with `wait`, waits for the pending ones first.
    void collect_counts(bool wait) const;
};

}  // namespace swinup::cuda
