#include "cpu/cpu_backend.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <new>
#include <stdexcept>
#include <thread>

#include "api/input_statistics_count.h"
#include "cpu/input_planes.h"
#include "cpu/reactive_mask.h"
#include "cpu/network.h"
#include "cpu/output_pass.h"
#include "cpu/staging.h"
#include "frame/frame_sequence.h"
#include "frame/recurrent_features.h"
#include "model/model_spec.h"

namespace swinup::cpu {

namespace {

int arena_concurrency(uint32_t num_threads) {
    // validate_context_desc bounds num_threads by SWINUP_MAX_THREADS.
    return num_threads == 0 ? tbb::task_arena::automatic : static_cast<int>(num_threads);
}

// "model name" of /proc/cpuinfo where there is one.
std::string cpu_model_name() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            const size_t colon = line.find(':');
            if (colon != std::string::npos) {
                size_t start = line.find_first_not_of(' ', colon + 1);
                if (start != std::string::npos) return line.substr(start);
            }
        }
    }
    return "CPU";
}

}  // namespace

CpuBackend::CpuBackend(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights,
                       NetworkFn network)
    : desc_(desc), weights_(std::move(weights)), network_fn_(std::move(network)),
      arena_(arena_concurrency(desc.num_threads)) {
    for_each_frame_buffer(desc, state_, planes_, [](auto& buffer, size_t count) { buffer.assign(count, {}); });
    if (!network_fn_) {
        network_ = std::make_unique<Network>(weights_, desc.precision);
        network_->reserve(pad_to_grid(static_cast<int>(desc.max_render_width)),
                          pad_to_grid(static_cast<int>(desc.max_render_height)));
    }
}

BackendMemory CpuBackend::memory() const {
    BackendMemory m;
    for_each_frame_buffer(desc_, state_, planes_, [&](const auto& buffer, size_t) {
        m.host_bytes += buffer.capacity() * sizeof(buffer[0]);
    });
    if (network_) m.host_bytes += network_->heap_bytes();
    return m;
}

CpuBackend::~CpuBackend() = default;

std::string CpuBackend::device_name() const {
    const int threads = desc_.num_threads != 0 ? static_cast<int>(desc_.num_threads)
                                               : static_cast<int>(std::thread::hardware_concurrency());
    return cpu_model_name() + " (" + std::to_string(threads) + " threads)";
}

swinup_status CpuBackend::dispatch(const swinup_dispatch_desc& desc, uint64_t frame_index,
                                   std::string* error) {
    // Everything below writes only scratch planes, the inactive state slot and the caller's
    // output; the state changes in the commit at the end of run_frame, so a throw leaves it as it was.
    try {
        arena_.get().execute([&] { run_frame(desc, frame_index); });
    } catch (const std::bad_alloc&) {
        *error = "dispatch: out of host memory";
        return SWINUP_STATUS_OUT_OF_MEMORY;
    } catch (const std::exception& e) {
        *error = std::string("dispatch: internal error in the CPU backend: ") + e.what();
        return SWINUP_STATUS_INTERNAL;
    }
    return SWINUP_STATUS_OK;
}

void CpuBackend::run_frame(const swinup_dispatch_desc& d, uint64_t frame_index) {
    const FrameSetup frame = state_.frames.begin(desc_, d);
    const FrameGeometry& geometry = frame.geometry;
    const int width = geometry.width;
    const int height = geometry.height;
    const ExposureChoice& choice = frame.exposure;
    if (choice.device_texture != nullptr)  // validation admits only host resources on the CPU
        throw std::logic_error("the exposure texture is in device memory");
    const float exposure = choice.automatic
                               ? auto_exposure(d, width, height, choice.pre_exposure, frame.srgb, planes_.row_sums)
                               : choice.value;

    float* z = state_.depth[frame.next].data();
    const bool has_masks = d.reactive_mask.data != nullptr || d.transparency_mask.data != nullptr;
    const ReplacedCounts counts =
        read_input_planes(d, frame, exposure, planes_.color.data(), z, planes_.motion.data(),
                          has_masks ? planes_.masks.data() : nullptr, planes_.row_counts);

    StageCurrent cur;
    static_cast<FrameGeometry&>(cur) = geometry;
    cur.color = planes_.color.data();
    cur.z = z;
    cur.motion = planes_.motion.data();
    StagePrevious prev;
    prev.valid = frame.history_valid;
    prev.history = state_.history[frame.current].data();
    prev.z = state_.depth[frame.current].data();
    prev.recurrent = state_.recurrent[frame.current].data();
    prev.width = frame.previous_width;
    prev.height = frame.previous_height;
    StagingOutput staging;
    staging.dilated = planes_.dilated.data();
    staging.tc = planes_.tc.data();
    staging.staged = planes_.staged.data();
    staging.padded_width = frame.padded_width;
    staging.padded_height = frame.padded_height;
    if (has_masks) {
        staging.masks = planes_.masks.data();
        staging.staged_masks = planes_.staged_masks.data();
    }
    stage_frame(cur, prev, staging);

    if (network_fn_) {
        network_fn_(planes_.staged.data(), frame.padded_width, frame.padded_height, frame_index,
                    planes_.head.data());
    } else {
        network_->run(planes_.staged.data(), frame.padded_width, frame.padded_height, frame_index,
                      planes_.head.data(), has_masks ? planes_.staged_masks.data() : nullptr);
    }

    OutputCurrent out;
    static_cast<FrameGeometry&>(out) = geometry;
    out.tc = planes_.tc.data();
    out.motion = planes_.dilated.data();
    out.head = planes_.head.data();
    out.head_stride = frame.padded_width;
    out.still_history_shift = weights_->config.still_history_shift;
    out.masks = has_masks ? planes_.masks.data() : nullptr;
    out.debug_depth = frame.debug_view ? z : nullptr;
    OutputPrevious out_prev;
    out_prev.valid = frame.history_valid;
    out_prev.history = state_.history[frame.current].data();
    OutputTarget target;
    target.resource = &d.output;
    target.exposure = exposure;
    target.pre_exposure = choice.pre_exposure;
    target.sharpness = d.sharpness;
    target.presharpen = planes_.presharpen.data();
    output_frame(out, out_prev, planes_.kernels.data(), state_.history[frame.next].data(), target);
    keep_recurrent_features(planes_.head.data(), frame.padded_width, width, height,
                            state_.recurrent[frame.next].data());

    state_.frames.commit(frame);
    stats_.color_replaced = counts.color;
    stats_.depth_replaced = counts.depth;
    stats_.motion_replaced = counts.motion;
    stats_.exposure = exposure;
    add_frame_counts(input_statistics_, counts.color_pixels, counts.depth, counts.motion_pixels, counts.mask_nonfinite,
                     counts.mask_out_of_range);
}

swinup_status CpuBackend::generate_reactive_mask(const swinup_reactive_mask_desc& desc, std::string* error) {
    try {
        arena_.get().execute([&] { write_reactive_mask(desc); });
    } catch (const std::bad_alloc&) {
        *error = "out of host memory";
        return SWINUP_STATUS_OUT_OF_MEMORY;
    } catch (const std::exception& e) {
        *error = std::string("internal error in the CPU backend: ") + e.what();
        return SWINUP_STATUS_INTERNAL;
    }
    return SWINUP_STATUS_OK;
}

swinup_status CpuBackend::input_statistics(InputStatistics* out, std::string*) const {
    *out = input_statistics_;
    return SWINUP_STATUS_OK;
}

}  // namespace swinup::cpu

namespace swinup {

BackendMemory cpu_memory_estimate(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights) {
    BackendMemory m;
    cpu::TemporalState state;  // empty: the walk only reads the element types
    cpu::FramePlanes planes;
    cpu::for_each_frame_buffer(desc, state, planes, [&](const auto& buffer, size_t count) {
        m.host_bytes += count * sizeof(buffer[0]);
    });
    // The decoded weights are counted on a network decoded from them (their sizes are the
    // layers' own, with their packing), which is then freed; the activations by the sizes
    // Network::reserve allocates.
    const cpu::Network network(weights, desc.precision);
    m.host_bytes += network.heap_bytes();
    m.host_bytes += cpu::Network::activation_bytes(weights->config, pad_to_grid(static_cast<int>(desc.max_render_width)),
                                                   pad_to_grid(static_cast<int>(desc.max_render_height)));
    return m;
}

std::unique_ptr<Backend> make_cpu_backend(const swinup_context_desc& desc,
                                          std::shared_ptr<const Weights> weights, std::string* error) {
    // std::bad_alloc propagates: the context turns it into SWINUP_STATUS_OUT_OF_MEMORY.
    try {
        return std::make_unique<cpu::CpuBackend>(desc, std::move(weights));
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        *error = std::string("backend: the CPU backend could not be created: ") + e.what();
        return nullptr;
    }
}

}  // namespace swinup
