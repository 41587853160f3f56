// The CUDA backend: the whole pipeline of a frame (exposure, input planes, staging, the network,
// the output pass, the recurrent state) as one CUDA Graph per evaluation shape (render size and
// window-shift parity), launched on the caller's stream. Inputs and outputs are device pointers
// used in place, or host pointers copied through buffers allocated at creation: a dispatch
// allocates nothing.
#pragma once

#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "api/backend.h"
#include "cuda/backend/device_buffer.cuh"
#include "cuda/frame/post_network.cuh"
#include "cuda/frame/pre_network.cuh"
#include "cuda/backend/frame_params.cuh"
#include "cuda/backend/network_cuda.cuh"
#include "frame/frame_sequence.h"

namespace swinup::cuda {

class CudaBackend final : public Backend {
public:
    // Throws CudaError (no device, too old, out of memory) or std::invalid_argument.
    CudaBackend(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights);
    ~CudaBackend() override;

    swinup_backend kind() const override { return SWINUP_BACKEND_CUDA; }
    std::string device_name() const override { return device_name_; }
    swinup_status dispatch(const swinup_dispatch_desc& desc, uint64_t frame_index, std::string* error) override;

    // For tests and bench: the network (layer hooks, stage markers), and the frame's work enqueued
    // without a graph on `stream` (bench times its stages one by one).
    CudaNetwork& network() { return *network_; }
    void set_use_graphs(bool use) { use_graphs_ = use; }
    // Bench: called around every launch of the frame (the network's too).
    void set_stage_marker(CudaNetwork::StageMarker marker) {
        marker_ = marker;
        network_->set_stage_marker(std::move(marker));
    }

private:
    void run_frame(const swinup_dispatch_desc& desc, uint64_t frame_index, cudaStream_t stream);
    void enqueue(const FrameParams& host, uint64_t frame_index, cudaStream_t stream);
    InputImage input(const swinup_resource& r, DeviceBuffer& staging, cudaStream_t stream);

    swinup_context_desc desc_;
    std::shared_ptr<const Weights> weights_;
    std::string device_name_;
    int device_ = 0;
    std::unique_ptr<CudaNetwork> network_;
    cudaStream_t capture_stream_ = nullptr;
    bool use_graphs_ = true;
    CudaNetwork::StageMarker marker_;
    // (render width, render height, shift parity) -> the frame's graph.
    std::map<std::tuple<int, int, int>, cudaGraphExec_t> graphs_;

    // Temporal state, double-buffered like the CPU backend's: slot `frames_.current()` is what the
    // next frame reads.
    DeviceBuffer history_[2], depth_[2], recurrent_[2];
    FrameSequence frames_;

    // Frame scratch and the host-pointer staging buffers.
    DeviceBuffer color_, motion_, dilated_, tc_, staged_, head_, row_sums_, exposure_, params_;
    DeviceBuffer out_color_, out_kernel_, out_motion_, out_axes_;  // fast mode only
    DeviceBuffer host_color_, host_depth_, host_motion_, host_output_;
    FramePlanes planes_;
};

}  // namespace swinup::cuda
