#include "cuda/backend/cuda_backend.cuh"

#include <algorithm>
#include <new>
#include <stdexcept>

#include "cuda/backend/cuda_check.cuh"
#include "frame/formats.h"
#include "frame/input_image.h"
#include "model/model_spec.h"

namespace swinup::cuda {

namespace {

constexpr int kMinMajor = 8, kMinMinor = 9;  // FP8 mma.sync needs sm_89

bool device_usable(const cudaDeviceProp& prop) {
    return prop.major > kMinMajor || (prop.major == kMinMajor && prop.minor >= kMinMinor);
}

}  // namespace

CudaBackend::CudaBackend(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights)
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

    const int max_w = static_cast<int>(desc.max_render_width), max_h = static_cast<int>(desc.max_render_height);
    const int padded_w = pad_to_grid(max_w), padded_h = pad_to_grid(max_h);
    network_ = std::make_unique<CudaNetwork>(*weights_, desc.precision, padded_w, padded_h);
    const size_t render = size_t(max_w) * max_h, padded = size_t(padded_w) * padded_h;
    const size_t display = size_t(desc.display_width) * desc.display_height;
    for (int i = 0; i < 2; ++i) {
        history_[i] = DeviceBuffer(display * 4 * 2);
        depth_[i] = DeviceBuffer(render * 4);
        recurrent_[i] = DeviceBuffer(render * 4 * 2);
        SWINUP_CUDA_CHECK(cudaMemset(history_[i].get(), 0, history_[i].bytes()));
        SWINUP_CUDA_CHECK(cudaMemset(depth_[i].get(), 0, depth_[i].bytes()));
        SWINUP_CUDA_CHECK(cudaMemset(recurrent_[i].get(), 0, recurrent_[i].bytes()));
    }
    color_ = DeviceBuffer(render * 3 * 4);
    motion_ = DeviceBuffer(render * 2 * 4);
    dilated_ = DeviceBuffer(render * 2 * 4);
    tc_ = DeviceBuffer(render * 3 * 4);
    staged_ = DeviceBuffer(padded * kSlots);
    head_ = DeviceBuffer(padded * kHeadOutputs * 4);
    row_sums_ = DeviceBuffer(size_t(max_h) * 8);
    exposure_ = DeviceBuffer(4);
    params_ = DeviceBuffer(sizeof(FrameParams));
    // Host resources are copied through these (the largest formats: RGBA32F, RG32F at display res).
    host_color_ = DeviceBuffer(render * 16);
    host_depth_ = DeviceBuffer(render * 4);
    host_motion_ = DeviceBuffer(std::max(render, display) * 8);
    host_output_ = DeviceBuffer(display * 8);
    planes_.color = color_.get<float>();
    planes_.motion = motion_.get<float>();
    planes_.dilated = dilated_.get<float>();
    planes_.tc = tc_.get<float>();
    planes_.staged = staged_.get<uint8_t>();
    planes_.head = head_.get<float>();
    planes_.row_sums = row_sums_.get<double>();
    planes_.exposure = exposure_.get<float>();
    if (desc.precision == SWINUP_PRECISION_FAST) {  // the fast output pass's per-render-pixel planes
        out_color_ = DeviceBuffer(render * sizeof(float4));
        out_kernel_ = DeviceBuffer(render * sizeof(float4));
        out_motion_ = DeviceBuffer(render * sizeof(float2));
        out_axes_ = DeviceBuffer((size_t(desc.display_width) + desc.display_height) * sizeof(OutputAxis));
        planes_.out_color = out_color_.get<float4>();
        planes_.out_kernel = out_kernel_.get<float4>();
        planes_.out_motion = out_motion_.get<float2>();
        planes_.out_axes = out_axes_.get<OutputAxis>();
    }
    // The memsets above and the weight uploads ran on the legacy stream; wait for that stream
    // only. A device-wide synchronisation here failed, and invalidated the capture, when another
    // context on this device was capturing its frame graph from another thread
    // (cudaErrorStreamCaptureUnsupported; test_cuda_backend's two-thread test).
    SWINUP_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

CudaBackend::~CudaBackend() {
    cudaSetDevice(device_);
    for (auto& [key, exec] : graphs_) cudaGraphExecDestroy(exec);
    if (capture_stream_) cudaStreamDestroy(capture_stream_);
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
    const FrameParams* params = params_.get<FrameParams>();
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
    stage("input_planes", render * (8 + 4 + 4 + 12 + 4 + 8),
          [&] { launch_input_planes(host, params, planes_, stream); });
    stage("staging", render * (12 + 4 + 8 + 4 + 8 + 8 + 12) + padded * kSlots + display * 8,
          [&] { launch_staging(host, params, planes_, stream); });
    network_->run(planes_.staged, host.padded_width, host.padded_height, frame_index, planes_.head, stream);
    // Fast mode: the pre-pass (head 0..7, t(colour), motion in; 40 bytes and the recurrent state out)
    // also writes the recurrent state; exact mode has a pass of its own for it after the output.
    const bool fast = desc_.precision != SWINUP_PRECISION_EXACT;
    if (fast)
        stage("output_prepass", render * (32 + 12 + 8 + 40 + 8),
              [&] { launch_output_prepass(host, params, planes_, desc_.precision, stream); });
    stage("output", display * (8 + 8 + 8) + render * (12 + 8 + kHeadOutputs * 4),
          [&] { launch_output(host, params, planes_, desc_.precision, stream); });
    if (!fast) stage("recurrent", render * (16 + 8), [&] { launch_recurrent(host, params, planes_, stream); });
}

void CudaBackend::run_frame(const swinup_dispatch_desc& d, uint64_t frame_index, cudaStream_t stream) {
    const FrameSetup frame = frames_.begin(desc_, d);
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
    p.depth_inverted = frame.depth_inverted ? 1 : 0;
    p.mv_display_res = frame.mv_display_res ? 1 : 0;
    p.mv_scale_x = d.mv_scale_x;
    p.mv_scale_y = d.mv_scale_y;
    p.motion_offset_x = frame.motion_offset_x;
    p.motion_offset_y = frame.motion_offset_y;
    p.history_valid = frame.history_valid ? 1 : 0;
    p.prev_width = frame.previous_width;
    p.prev_height = frame.previous_height;
    p.history_in = history_[frame.current].get<uint16_t>();
    p.history_out = history_[frame.next].get<uint16_t>();
    p.z_prev = depth_[frame.current].get<float>();
    p.z = depth_[frame.next].get<float>();
    p.recurrent_in = recurrent_[frame.current].get<uint16_t>();
    p.recurrent_out = recurrent_[frame.next].get<uint16_t>();

    p.color = input(d.color, host_color_, stream);
    p.depth = input(d.depth, host_depth_, stream);
    p.motion = input(d.motion_vectors, host_motion_, stream);
    const bool host_output = d.output.memory == SWINUP_MEMORY_HOST;
    const size_t out_row = size_t(d.output.width) * format_pixel_bytes(d.output.format);
    p.output_format = d.output.format;
    if (host_output) {
        p.output = host_output_.get();
        p.output_pitch = out_row;
    } else {
        p.output = d.output.data_mut;
        p.output_pitch = resource_row_pitch(d.output);
    }
    // Pageable source: the call returns once `p` is staged, so `p` may die right after.
    SWINUP_CUDA_CHECK(cudaMemcpyAsync(params_.get(), &p, sizeof p, cudaMemcpyHostToDevice, stream));

    if (use_graphs_) {
        const auto key = std::make_tuple(p.width, p.height, static_cast<int>(frame_index & 1u));
        auto it = graphs_.find(key);
        if (it == graphs_.end()) {
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
            cudaGraphExec_t exec = nullptr;
            const cudaError_t status = cudaGraphInstantiate(&exec, graph, 0);
            cudaGraphDestroy(graph);
            SWINUP_CUDA_CHECK(status);
            it = graphs_.emplace(key, exec).first;
        }
        SWINUP_CUDA_CHECK(cudaGraphLaunch(it->second, stream));
    } else {
        enqueue(p, frame_index, stream);
    }
    if (host_output) {
        SWINUP_CUDA_CHECK(cudaMemcpy2DAsync(d.output.data_mut, resource_row_pitch(d.output), host_output_.get(),
                                            out_row, out_row, d.output.height, cudaMemcpyDeviceToHost, stream));
    }
    if (host_output || d.color.memory == SWINUP_MEMORY_HOST || d.depth.memory == SWINUP_MEMORY_HOST ||
        d.motion_vectors.memory == SWINUP_MEMORY_HOST) {
        SWINUP_CUDA_CHECK(cudaStreamSynchronize(stream));  // host memory must be done with on return
    }

    // Commit (host-side bookkeeping; the device state was written into the `next` buffers).
    frames_.commit(frame);
}

swinup_status CudaBackend::dispatch(const swinup_dispatch_desc& desc, uint64_t frame_index, std::string* error) {
    try {
        SWINUP_CUDA_CHECK(cudaSetDevice(device_));
        run_frame(desc, frame_index, static_cast<cudaStream_t>(desc.cuda_stream));
    } catch (const CudaError& e) {
        *error = std::string("dispatch: ") + e.what();
        return SWINUP_STATUS_DEVICE_ERROR;
    } catch (const std::bad_alloc&) {
        *error = "dispatch: out of host memory";
        return SWINUP_STATUS_OUT_OF_MEMORY;
    } catch (const std::exception& e) {
        *error = std::string("dispatch: internal error in the CUDA backend: ") + e.what();
        return SWINUP_STATUS_INTERNAL;
    }
    return SWINUP_STATUS_OK;
}

}  // namespace swinup::cuda

namespace swinup {

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
