#include "cuda/backend/cuda_backend.cuh"

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>

#include "api/input_statistics_count.h"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/frame/reactive_mask.cuh"
#include "frame/formats.h"
#include "frame/input_image.h"
#include "frame/mask_pixel.h"
#include "model/model_spec.h"

namespace swinup::cuda {

namespace {

constexpr int kMinMajor = 8, kMinMinor = 9;  // FP8 mma.sync needs sm_89

bool device_usable(const cudaDeviceProp& prop) {
    return prop.major > kMinMajor || (prop.major == kMinMajor && prop.minor >= kMinMinor);
}

// Runs `work` and turns what it throws into a status and *error (prefixed by `prefix`).
template <class Work>
swinup_status guarded(const char* prefix, std::string* error, Work&& work) {
    try {
        work();
    } catch (const CudaError& e) {
        *error = std::string(prefix) + e.what();
        return SWINUP_STATUS_DEVICE_ERROR;
    } catch (const std::bad_alloc&) {
        *error = std::string(prefix) + "out of host memory";
        return SWINUP_STATUS_OUT_OF_MEMORY;
    } catch (const std::exception& e) {
        *error = std::string(prefix) + "internal error in the CUDA backend: " + e.what();
        return SWINUP_STATUS_INTERNAL;
    }
    return SWINUP_STATUS_OK;
}

}  // namespace

CudaBackend::CudaBackend(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights,
                         HostStaging host_staging)
    : desc_(desc), weights_(std::move(weights)), device_(desc.device_index) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        throw CudaError("no CUDA device is present");
    }
    if (device_ < 0 || device_ >= count)
        throw std::invalid_argument("device_index " + std::to_string(device_) + " is not a CUDA device (there are " +
                                    std::to_string(count) + ")");
    SWINUP_CUDA_CHECK(cudaSetDevice(device_));
    cudaDeviceProp prop{};
    SWINUP_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    if (!device_usable(prop))
        throw CudaError(std::string(prop.name) + " is sm_" + std::to_string(prop.major) + std::to_string(prop.minor) +
                        "; the CUDA backend needs sm_89 or newer (FP8 tensor cores)");
    device_name_ = prop.name;
    SWINUP_CUDA_CHECK(cudaStreamCreateWithFlags(&capture_stream_, cudaStreamNonBlocking));
    SWINUP_CUDA_CHECK(cudaEventCreateWithFlags(&last_frame_done_, cudaEventDisableTiming));

    {
        // Every device allocation of the context is made here, counted (memory()).
        DeviceTally tally(DeviceTally::Mode::allocate);
        network_ = std::make_unique<CudaNetwork>(*weights_, desc.precision, pad_to_grid(int(desc.max_render_width)),
                                                 pad_to_grid(int(desc.max_render_height)));
        buffers_ = FrameBuffers(desc, sizeof(FrameParams), host_staging == HostStaging::kAtCreation);
        device_bytes_ = tally.bytes();
    }
    for (int i = 0; i < 2; ++i) {
        SWINUP_CUDA_CHECK(cudaMemset(buffers_.history[i].get(), 0, buffers_.history[i].bytes()));
        SWINUP_CUDA_CHECK(cudaMemset(buffers_.depth[i].get(), 0, buffers_.depth[i].bytes()));
        SWINUP_CUDA_CHECK(cudaMemset(buffers_.recurrent[i].get(), 0, buffers_.recurrent[i].bytes()));
    }
    planes_.color = buffers_.color.get<float>();
    planes_.motion = buffers_.motion.get<float>();
    planes_.dilated = buffers_.dilated.get<float>();
    planes_.tc = buffers_.tc.get<float>();
    planes_.staged = buffers_.staged.get<uint8_t>();
    planes_.head = buffers_.head.get<float>();
    planes_.row_sums = buffers_.row_sums.get<double>();
    planes_.exposure = buffers_.exposure.get<float>();
    planes_.out_color = buffers_.out_color.get<float4>();  // null in exact mode
    planes_.out_kernel = buffers_.out_kernel.get<float4>();
    planes_.out_motion = buffers_.out_motion.get<float2>();
    planes_.out_axes = buffers_.out_axes.get<OutputAxis>();
    planes_.out_pixel_kernel = buffers_.out_pixel_kernel.get<PixelKernel>();  // null in fast mode
    planes_.masks = buffers_.masks.get<float>();
    planes_.mask_tokens = buffers_.mask_tokens.get<uint8_t>();
    planes_.counts = buffers_.counts.get<unsigned int>();
    // The mask rows' bytes after the pairs are never written: zero once (the GEMM reads them).
    SWINUP_CUDA_CHECK(cudaMemset(buffers_.mask_tokens.get(), 0, buffers_.mask_tokens.bytes()));
    // The counters start at zero once; after that each frame's staging kernel clears them as it
    // publishes them (pre_network.cu publish_counts) into these slots of mapped host memory.
    SWINUP_CUDA_CHECK(cudaMemset(buffers_.counts.get(), 0, buffers_.counts.bytes()));
    const size_t host_counts_bytes = sizeof(unsigned int) * kFrameCounts * kCountSlots;
    SWINUP_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_counts_), host_counts_bytes, cudaHostAllocMapped));
    std::memset(host_counts_, 0, host_counts_bytes);
    SWINUP_CUDA_CHECK(
        cudaHostGetDevicePointer(reinterpret_cast<void**>(&planes_.published_counts), host_counts_, 0));
    SWINUP_CUDA_CHECK(cudaMallocHost(&pinned_params_, sizeof(FrameParams) * kParamSlots));
    for (cudaEvent_t& e : param_copied_) SWINUP_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (CountSlot& c : count_slots_) SWINUP_CUDA_CHECK(cudaEventCreateWithFlags(&c.done, cudaEventDisableTiming));
    // The memsets above and the weight uploads ran on the legacy stream; wait for that stream
    // only. A device-wide synchronisation here failed, and invalidated the capture, when another
    // context on this device was capturing its frame graph from another thread
    // (cudaErrorStreamCaptureUnsupported; test_cuda_backend's two-thread test).
    SWINUP_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

CudaBackend::~CudaBackend() {
    cudaSetDevice(device_);
    for (cudaEvent_t e : param_copied_)
        if (e) cudaEventDestroy(e);
    if (pinned_params_) cudaFreeHost(pinned_params_);
    // Every frame's work is done by now (swinup.h: a context is destroyed after its frames).
    for (CountSlot& c : count_slots_)
        if (c.done) cudaEventDestroy(c.done);
    if (host_counts_) cudaFreeHost(host_counts_);
    graphs_.clear();
    if (capture_stream_) cudaStreamDestroy(capture_stream_);
    if (last_frame_done_) cudaEventDestroy(last_frame_done_);
}

void CudaBackend::FrameGraphs::release() {
    // An executable graph still running is freed when it completes (cudaGraphExecDestroy).
    for (cudaGraphExec_t& e : exec) {
        if (e) cudaGraphExecDestroy(e);
        e = nullptr;
    }
}

BackendMemory CudaBackend::memory() const {
    BackendMemory m;
    m.device_bytes = device_bytes_;
    m.graph_device_bytes = kGraphCacheDeviceBytes;
    return m;
}

InputImage CudaBackend::input(const swinup_resource& r, DeviceBuffer& staging, cudaStream_t stream) {
    InputImage im = input_image(r);
    if (r.memory == SWINUP_MEMORY_HOST) {  // read from a packed device copy
        const size_t row = size_t(r.width) * format_pixel_bytes(r.format);
        SWINUP_CUDA_CHECK(cudaMemcpy2DAsync(staging.get(), row, r.data, im.pitch, row, r.height,
                                            cudaMemcpyHostToDevice, stream));
        im.data = staging.get();
        im.pitch = row;
    }
    return im;
}

void CudaBackend::enqueue(const FrameParams& host, uint64_t frame_index, cudaStream_t stream) {
    const FrameParams* params = buffers_.params.get<FrameParams>();
    const double render = double(host.width) * host.height, padded = double(host.padded_width) * host.padded_height;
    const double display = double(host.display_width) * host.display_height;
    // Bytes are the fewest each pass must move (f16 inputs; history and head read once).
    auto stage = [&](const char* name, double bytes, auto&& launch) {
        const StageInfo s{"frame", name, 0.0, bytes};
        if (marker_) marker_(s, true, stream);
        launch();
        if (marker_) marker_(s, false, stream);
    };
    stage("exposure", host.auto_exposure ? render * 8 : 0.0, [&] { launch_exposure(host, params, planes_, stream); });
    stage("input_planes", render * (8 + 4 + 4 + 12 + 4 + 8), [&] {
        // NetworkFusions::published_counts off: a memset node clears the counters (staging leaves
        // them, FrameParams::count_slot -1) and enqueue_counts copies them after the frame.
        if (!published_counts_)
            SWINUP_CUDA_CHECK(cudaMemsetAsync(planes_.counts, 0, kFrameCounts * sizeof(unsigned int), stream));
        launch_input_planes(host, params, planes_, stream);
    });
    stage("staging", render * (12 + 4 + 8 + 4 + 8 + 8 + 12) + padded * kSlots + display * 8,
          [&] { launch_staging(host, params, planes_, stream); });
    network_->run(planes_.staged, host.padded_width, host.padded_height, frame_index, planes_.head, stream,
                  host.mask_tokens != 0 ? planes_.mask_tokens : nullptr);
    // The pre-pass (fast: head 0..7, t(colour), motion in, 40 bytes out; exact with its table: head
    // 4..7, motion in, a PixelKernel out) also writes the recurrent state (head 0..3 in, 8 bytes
    // out); exact mode without the table has a pass of its own for it after the output.
    const bool fast = desc_.precision != SWINUP_PRECISION_EXACT;
    const bool prepass = fast || output_kernels_.exact_table;
    if (prepass)
        stage("output_prepass", fast ? render * (32 + 12 + 8 + 40 + 8) : render * (32 + 8 + 20 + 8),
              [&] { launch_output_prepass(host, params, planes_, desc_.precision, output_kernels_, stream); });
    stage("output", display * (8 + 8 + 8) + render * (12 + 8 + kHeadOutputs * 4),
          [&] { launch_output(host, params, planes_, desc_.precision, output_kernels_, stream); });
    if (!output_prepass_writes_recurrent(desc_.precision, output_kernels_))
        stage("recurrent", render * (16 + 8), [&] { launch_recurrent(host, params, planes_, stream); });
}

FrameParams CudaBackend::frame_params(const FrameSetup& frame, const swinup_dispatch_desc& d) const {
    FrameParams p;
    static_cast<FrameGeometry&>(p) = frame.geometry;
    p.padded_width = frame.padded_width;
    p.padded_height = frame.padded_height;
    p.still_history_shift = weights_->config.still_history_shift;

    p.pre_exposure = frame.exposure.pre_exposure;
    p.auto_exposure = frame.exposure.automatic ? 1 : 0;
    p.exposure_value = frame.exposure.value;  // a host texture was read by begin(), as on the CPU
    p.exposure_texture = static_cast<const float*>(frame.exposure.device_texture);
    p.ldr = frame.ldr ? 1 : 0;
    p.srgb = frame.srgb ? 1 : 0;
    p.depth_inverted = frame.depth_inverted ? 1 : 0;
    p.mv_display_res = frame.mv_display_res ? 1 : 0;
    p.mv_scale_x = d.mv_scale_x;
    p.mv_scale_y = d.mv_scale_y;
    p.motion_offset_x = frame.motion_offset_x;
    p.motion_offset_y = frame.motion_offset_y;
    p.history_valid = frame.history_valid ? 1 : 0;
    p.prev_width = frame.previous_width;
    p.prev_height = frame.previous_height;
    p.history_in = buffers_.history[frame.current].get<uint16_t>();
    p.history_out = buffers_.history[frame.next].get<uint16_t>();
    p.z_prev = buffers_.depth[frame.current].get<float>();
    p.z = buffers_.depth[frame.next].get<float>();
    p.recurrent_in = buffers_.recurrent[frame.current].get<uint16_t>();
    p.recurrent_out = buffers_.recurrent[frame.next].get<uint16_t>();
    return p;
}

void CudaBackend::stage_params_pinned(const FrameParams& p, cudaStream_t stream) {
    const int slot = next_param_slot_;
    next_param_slot_ = (next_param_slot_ + 1) % kParamSlots;
    SWINUP_CUDA_CHECK(cudaEventSynchronize(param_copied_[slot]));  // its last copy has run
    pinned_params_[slot] = p;
    SWINUP_CUDA_CHECK(
        cudaMemcpyAsync(buffers_.params.get(), &pinned_params_[slot], sizeof p, cudaMemcpyHostToDevice, stream));
    SWINUP_CUDA_CHECK(cudaEventRecord(param_copied_[slot], stream));
}

cudaGraphExec_t CudaBackend::frame_graph(const FrameParams& p, uint64_t frame_index) {
    if (!use_graphs_) return nullptr;
    FrameGraphs* graphs = graphs_.find(p.width, p.height);
    if (graphs == nullptr) graphs = &graphs_.insert(p.width, p.height, FrameGraphs{});
    cudaGraphExec_t& exec = graphs->exec[(frame_index & 1u) + (p.has_masks ? 2u : 0u)];
    if (exec == nullptr) {
        cudaGraph_t graph = nullptr;
        SWINUP_CUDA_CHECK(cudaStreamBeginCapture(capture_stream_, cudaStreamCaptureModeRelaxed));
        try {
            enqueue(p, frame_index, capture_stream_);
        } catch (...) {
            cudaStreamEndCapture(capture_stream_, &graph);
            if (graph) cudaGraphDestroy(graph);
            throw;
        }
        SWINUP_CUDA_CHECK(cudaStreamEndCapture(capture_stream_, &graph));
        cudaGraphExec_t instantiated = nullptr;
        const cudaError_t status = cudaGraphInstantiate(&instantiated, graph, 0);
        cudaGraphDestroy(graph);
        SWINUP_CUDA_CHECK(status);
        exec = instantiated;
    }
    return exec;
}

void CudaBackend::launch_frame(cudaGraphExec_t graph, const FrameParams& p, uint64_t frame_index,
                               cudaStream_t stream) {
    if (graph != nullptr) {
        SWINUP_CUDA_CHECK(cudaGraphLaunch(graph, stream));
    } else {
        enqueue(p, frame_index, stream);
    }
}

int CudaBackend::mask_tokens_of(const FrameParams& p) const {
    if (!p.has_masks || !weights_->config.masks) return 0;
    return weights_->config.variant == Variant::lite ? 1 : 2;
}

void CudaBackend::run_frame(const swinup_dispatch_desc& d, uint64_t frame_index, cudaStream_t stream) {
    const FrameSetup frame = frames_.begin(desc_, d);
    const int count_slot = claim_count_slot();
    const bool any_host = d.color.memory == SWINUP_MEMORY_HOST || d.depth.memory == SWINUP_MEMORY_HOST ||
                          d.motion_vectors.memory == SWINUP_MEMORY_HOST || d.output.memory == SWINUP_MEMORY_HOST ||
                          (d.reactive_mask.data != nullptr && d.reactive_mask.memory == SWINUP_MEMORY_HOST) ||
                          (d.transparency_mask.data != nullptr && d.transparency_mask.memory == SWINUP_MEMORY_HOST);
    if (any_host && !buffers_.has_host_staging()) {
        // HostStaging::kOnFirstUse: cudaMalloc may synchronise the device, which this host frame
        // does anyway before it returns.
        DeviceTally tally(DeviceTally::Mode::allocate);
        buffers_.allocate_host_staging(desc_);
        device_bytes_ += tally.bytes();
    }
    SWINUP_CUDA_CHECK(cudaStreamWaitEvent(stream, last_frame_done_, 0));  // the previous frame, any stream
    FrameParams p = frame_params(frame, d);
    p.count_slot = published_counts_ ? count_slot : -1;
    p.color = input(d.color, buffers_.host_color, stream);
    p.depth = input(d.depth, buffers_.host_depth, stream);
    p.motion = input(d.motion_vectors, buffers_.host_motion, stream);
    const swinup_resource* masks[kMasks] = {&d.reactive_mask, &d.transparency_mask};
    InputImage mask_images[kMasks];  // a mask not given stays a default image: absent
    bool host_mask = false;
    for (int m = 0; m < kMasks; ++m) {
        if (masks[m]->data == nullptr) continue;
        mask_images[m] = input(*masks[m], buffers_.host_masks[m], stream);
        host_mask = host_mask || masks[m]->memory == SWINUP_MEMORY_HOST;
    }
    set_masks(&p, mask_images[kReactiveMask], mask_images[kTransparencyMask]);
    p.mask_tokens = mask_tokens_of(p);
    const bool host_output = d.output.memory == SWINUP_MEMORY_HOST;
    const size_t out_row = size_t(d.output.width) * format_pixel_bytes(d.output.format);
    p.output_format = d.output.format;
    if (host_output) {
        p.output = buffers_.host_output.get();
        p.output_pitch = out_row;
    } else {
        p.output = d.output.data_mut;
        p.output_pitch = resource_row_pitch(d.output);
    }
    const cudaGraphExec_t graph = frame_graph(p, frame_index);
    // Pageable source: the call returns once `p` is staged, so `p` may die right after.
    SWINUP_CUDA_CHECK(cudaMemcpyAsync(buffers_.params.get(), &p, sizeof p, cudaMemcpyHostToDevice, stream));
    launch_frame(graph, p, frame_index, stream);
    if (host_output) {
        SWINUP_CUDA_CHECK(cudaMemcpy2DAsync(d.output.data_mut, resource_row_pitch(d.output), buffers_.host_output.get(),
                                            out_row, out_row, d.output.height, cudaMemcpyDeviceToHost, stream));
    }
    enqueue_counts(count_slot, stream);
    SWINUP_CUDA_CHECK(cudaEventRecord(last_frame_done_, stream));
    if (host_output || host_mask || d.color.memory == SWINUP_MEMORY_HOST || d.depth.memory == SWINUP_MEMORY_HOST ||
        d.motion_vectors.memory == SWINUP_MEMORY_HOST) {
        SWINUP_CUDA_CHECK(cudaStreamSynchronize(stream));  // host memory must be done with on return
    }

    // Commit (host-side bookkeeping; the device state was written into the `next` buffers).
    frames_.commit(frame);
}

void CudaBackend::run_imported_frame(const swinup_dispatch_desc& scalars, const ImportedImages& images,
                                     const ExternalOrder& order, uint64_t frame_index, cudaStream_t stream) {
    // The scalars' resources are not read (the images are the imported ones), so begin() chooses the
    // exposure from the flags and exposure_value; an exposure image replaces the value below.
    swinup_dispatch_desc d = scalars;
    d.color = d.depth = d.motion_vectors = d.output = d.exposure = swinup_resource{};
    const FrameSetup frame = frames_.begin(desc_, d);
    const int count_slot = claim_count_slot();  // may wait for a frame kCountSlots back: host-side work
    FrameParams p = frame_params(frame, d);
    p.count_slot = published_counts_ ? count_slot : -1;
    p.color = images.color;
    p.depth = images.depth;
    p.motion = images.motion;
    // An imported image has a texture and no data: staging reads it (input_given) as has_masks says.
    set_masks(&p, images.reactive_mask, images.transparency_mask);
    p.mask_tokens = mask_tokens_of(p);
    if (!p.auto_exposure) p.exposure_texture_object = images.exposure;
    p.output_format = images.output_format;
    p.output_surface = images.output;
    if (images.output == 0) {
        p.output = images.output_data;
        p.output_pitch = images.output_pitch;
    }
    // Host-side work first, while nothing on any stream waits for the application (the header's
    // comment on run_imported_frame says why).
    const cudaGraphExec_t graph = frame_graph(p, frame_index);
    SWINUP_CUDA_CHECK(cudaStreamWaitEvent(stream, last_frame_done_, 0));  // the previous frame, any stream
    stage_params_pinned(p, stream);
    if (order.wait != nullptr) {
        cudaExternalSemaphoreWaitParams wait{};
        wait.params.fence.value = order.wait_value;
        SWINUP_CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&order.wait, &wait, 1, stream));
    }
    launch_frame(graph, p, frame_index, stream);
    if (order.signal != nullptr) {
        cudaExternalSemaphoreSignalParams signal{};
        signal.params.fence.value = order.signal_value;
        SWINUP_CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&order.signal, &signal, 1, stream));
    }
    enqueue_counts(count_slot, stream);
    SWINUP_CUDA_CHECK(cudaEventRecord(last_frame_done_, stream));
    frames_.commit(frame);
}

int CudaBackend::claim_count_slot() {
    const int slot = next_count_slot_;
    next_count_slot_ = (next_count_slot_ + 1) % kCountSlots;
    CountSlot& c = count_slots_[slot];
    if (c.pending) {  // kCountSlots frames ago: its counts arrived long since, or are waited for here
        SWINUP_CUDA_CHECK(cudaEventSynchronize(c.done));
        collect_counts(false);
    }
    // The slot is read and free: the frame about to be enqueued may write it.
    return slot;
}

void CudaBackend::enqueue_counts(int slot, cudaStream_t stream) {
    if (!published_counts_) {
        SWINUP_CUDA_CHECK(cudaMemcpyAsync(host_counts_ + size_t(slot) * kFrameCounts, planes_.counts,
                                          sizeof(unsigned int) * kFrameCounts, cudaMemcpyDeviceToHost, stream));
    }
    CountSlot& c = count_slots_[slot];
    SWINUP_CUDA_CHECK(cudaEventRecord(c.done, stream));
    c.pending = true;
}

void CudaBackend::collect_counts(bool wait) const {
    for (int slot = 0; slot < kCountSlots; ++slot) {
        CountSlot& c = count_slots_[slot];
        if (!c.pending) continue;
        if (wait) {
            SWINUP_CUDA_CHECK(cudaEventSynchronize(c.done));
        } else {
            const cudaError_t status = cudaEventQuery(c.done);
            if (status == cudaErrorNotReady) continue;
            SWINUP_CUDA_CHECK(status);
        }
        // Written by the frame's staging kernel (or the copy) before the event: the event's
        // completion makes them visible here.
        const unsigned int* n = host_counts_ + size_t(slot) * kFrameCounts;
        // Each mask's two counts follow each other (frame_planes.cuh), reactive first.
        add_frame_counts(statistics_, n[kCountColor], n[kCountDepth], n[kCountMotion], n + kCountReactiveNonfinite,
                         n + kCountReactiveOutOfRange);
        c.pending = false;
    }
}

swinup_status CudaBackend::input_statistics(InputStatistics* out, std::string* error) const {
    try {
        SWINUP_CUDA_CHECK(cudaSetDevice(device_));
        collect_counts(true);
    } catch (const CudaError& e) {
        *error = e.what();
        return SWINUP_STATUS_DEVICE_ERROR;
    }
    *out = statistics_;
    return SWINUP_STATUS_OK;
}

InputStatistics CudaBackend::input_statistics_known() const {
    try {
        cudaSetDevice(device_);
        collect_counts(false);
    } catch (const CudaError&) {  // a failed device: the next dispatch reports it
    }
    return statistics_;
}

swinup_status CudaBackend::dispatch(const swinup_dispatch_desc& desc, uint64_t frame_index, std::string* error) {
    return guarded("dispatch: ", error, [&] {
        SWINUP_CUDA_CHECK(cudaSetDevice(device_));
        run_frame(desc, frame_index, static_cast<cudaStream_t>(desc.cuda_stream));
    });
}

swinup_status CudaBackend::generate_reactive_mask(const swinup_reactive_mask_desc& d, std::string* error) {
    return guarded("", error, [&] {
        SWINUP_CUDA_CHECK(cudaSetDevice(device_));
        if (!mask_staging_) {
            const size_t render = size_t(desc_.max_render_width) * desc_.max_render_height;
            auto staging = std::make_unique<MaskStaging>();
            staging->opaque = DeviceBuffer(render * 16);
            staging->final_color = DeviceBuffer(render * 16);
            staging->output = DeviceBuffer(render * 4);
            mask_staging_ = std::move(staging);
            device_bytes_ += render * 36;
        }
        const cudaStream_t stream = nullptr;  // the legacy default stream
        const InputImage opaque = input(d.opaque_color, mask_staging_->opaque, stream);
        const InputImage final_color = input(d.final_color, mask_staging_->final_color, stream);
        const bool host_output = d.output.memory == SWINUP_MEMORY_HOST;
        const size_t row = size_t(d.render_width) * format_pixel_bytes(d.output.format);
        auto* out = host_output ? mask_staging_->output.get<uint8_t>() : static_cast<uint8_t*>(d.output.data_mut);
        launch_reactive_mask(opaque, final_color, reactive_mask_params(d), int(d.render_width), int(d.render_height),
                             d.output.format, out, host_output ? row : resource_row_pitch(d.output), stream);
        if (host_output) {  // written into the caller's rows only after the kernel succeeded
            SWINUP_CUDA_CHECK(cudaMemcpy2DAsync(d.output.data_mut, resource_row_pitch(d.output), out, row, row,
                                                d.render_height, cudaMemcpyDeviceToHost, stream));
        }
        SWINUP_CUDA_CHECK(cudaStreamSynchronize(stream));
    });
}

}  // namespace swinup::cuda

namespace swinup {

BackendMemory cuda_memory_estimate(const swinup_context_desc& desc, const Weights& weights) {
    // The backend's own constructors, counting instead of allocating (DeviceTally).
    cuda::DeviceTally tally(cuda::DeviceTally::Mode::count_only);
    const cuda::CudaNetwork network(weights, desc.precision, pad_to_grid(int(desc.max_render_width)),
                                    pad_to_grid(int(desc.max_render_height)));
    const cuda::FrameBuffers buffers(desc, sizeof(cuda::FrameParams));
    BackendMemory m;
    m.device_bytes = tally.bytes();
    m.graph_device_bytes = cuda::CudaBackend::kGraphCacheDeviceBytes;
    return m;
}

std::unique_ptr<Backend> make_cuda_backend(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights,
                                           std::string* error) {
    try {
        return std::make_unique<cuda::CudaBackend>(desc, std::move(weights));
    } catch (const std::exception& e) {
        cudaGetLastError();  // clear a sticky-free error so that later calls start clean
        *error = std::string("backend: the CUDA backend could not be created: ") + e.what();
        return nullptr;
    }
}

bool cuda_backend_available() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) == cudaSuccess &&
            (prop.major > 8 || (prop.major == 8 && prop.minor >= 9)))
            return true;
    }
    return false;
}

}  // namespace swinup
