#include "cpu/cpu_backend.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <new>
#include <thread>

#include "frame/formats.h"
#include "model/model_spec.h"
#include "frame/pixel_ops.h"
#include "cpu/input_planes.h"
#include "cpu/network.h"
#include "cpu/output_pass.h"
#include "cpu/resource_io.h"
#include "cpu/staging.h"

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

// The exposure texture's value, or 1 when it is not a positive finite number (bad data is
// replaced like any other input, never an error: a device texture could not be checked anyway).
float read_exposure_texture(const swinup_resource& r) {
    float v;
    std::memcpy(&v, r.data, sizeof v);
    return (px::is_finite(v) && v > 0.0f) ? v : 1.0f;
}

}  // namespace

CpuBackend::CpuBackend(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights,
                       NetworkFn network)
    : desc_(desc), weights_(std::move(weights)), network_fn_(std::move(network)),
      arena_(arena_concurrency(desc.num_threads)) {
    const size_t render = static_cast<size_t>(desc.max_render_width) * desc.max_render_height;
    const size_t padded = static_cast<size_t>(pad_to_grid(static_cast<int>(desc.max_render_width))) *
                          static_cast<size_t>(pad_to_grid(static_cast<int>(desc.max_render_height)));
    const size_t display = static_cast<size_t>(desc.display_width) * desc.display_height;
    for (int i = 0; i < 2; ++i) {
        state_.history[i].assign(display * 4, 0);
        state_.depth[i].assign(render, 0.0f);
        state_.recurrent[i].assign(render * kRecurrentFeatures, 0);
    }
    planes_.color.assign(render * 3, 0.0f);
    planes_.motion.assign(render * 2, 0.0f);
    planes_.dilated.assign(render * 2, 0.0f);
    planes_.tc.assign(render * 3, 0.0f);
    planes_.staged.assign(padded * kSlots, 0.0f);
    planes_.head.assign(padded * kHeadOutputs, 0.0f);
    planes_.kernels.assign(render, PixelKernel{});
    planes_.row_counts.assign(static_cast<size_t>(desc.max_render_height) * 3, 0);
    planes_.row_sums.assign(desc.max_render_height, 0.0);
    if (!network_fn_) network_ = std::make_unique<Network>(weights_, desc.precision);
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
    FrameGeometry geometry;
    geometry.width = static_cast<int>(d.render_width);
    geometry.height = static_cast<int>(d.render_height);
    geometry.display_width = static_cast<int>(desc_.display_width);
    geometry.display_height = static_cast<int>(desc_.display_height);
    geometry.jitter_x = d.jitter_x;
    geometry.jitter_y = d.jitter_y;
    geometry.scale_x = exact::div(static_cast<float>(geometry.display_width), static_cast<float>(geometry.width));
    geometry.scale_y = exact::div(static_cast<float>(geometry.display_height), static_cast<float>(geometry.height));
    const int width = geometry.width;
    const int height = geometry.height;
    const int padded_width = pad_to_grid(width);
    const int padded_height = pad_to_grid(height);
    const bool history_valid = state_.valid && d.reset == 0;
    const int next = state_.next();

    // Exposure: auto, the 1x1 texture, or the value (0 means 1).
    const float pre_exposure = d.pre_exposure == 0.0f ? 1.0f : d.pre_exposure;
    float exposure;
    if (desc_.flags & SWINUP_FLAG_AUTO_EXPOSURE) {
        exposure = auto_exposure(d, width, height, pre_exposure, planes_.row_sums);
    } else if (d.exposure.data != nullptr) {
        exposure = read_exposure_texture(d.exposure);
    } else {
        exposure = d.exposure_value == 0.0f ? 1.0f : d.exposure_value;
    }

    InputSettings in;
    static_cast<FrameGeometry&>(in) = geometry;
    in.exposure = exposure;
    in.pre_exposure = pre_exposure;
    in.ldr = (desc_.flags & SWINUP_FLAG_HDR) == 0;
    in.depth_inverted = (desc_.flags & SWINUP_FLAG_DEPTH_INVERTED) != 0;
    in.mv_display_res = (desc_.flags & SWINUP_FLAG_MV_DISPLAY_RES) != 0;
    if ((desc_.flags & SWINUP_FLAG_MV_JITTERED) && history_valid) {
        // A sample offset by j shows the scene shifted by -j, so vectors measured between
        // jittered images carry -(j_prev - j_cur): add it back.
        in.motion_offset_x = exact::sub(state_.jitter_x, d.jitter_x);
        in.motion_offset_y = exact::sub(state_.jitter_y, d.jitter_y);
    }
    float* z = state_.depth[next].data();
    const ReplacedCounts counts = read_input_planes(d, in, planes_.color.data(), z,
                                                    planes_.motion.data(), planes_.row_counts);

    StageCurrent cur;
    static_cast<FrameGeometry&>(cur) = geometry;
    cur.color = planes_.color.data();
    cur.z = z;
    cur.motion = planes_.motion.data();
    StagePrevious prev;
    prev.valid = history_valid;
    prev.history = state_.history[state_.active].data();
    prev.z = state_.depth[state_.active].data();
    prev.recurrent = state_.recurrent[state_.active].data();
    prev.width = state_.width;
    prev.height = state_.height;
    StagingOutput staging;
    staging.dilated = planes_.dilated.data();
    staging.tc = planes_.tc.data();
    staging.staged = planes_.staged.data();
    staging.padded_width = padded_width;
    staging.padded_height = padded_height;
    stage_frame(cur, prev, staging);

    if (network_fn_) {
        network_fn_(planes_.staged.data(), padded_width, padded_height, frame_index, planes_.head.data());
    } else {
        network_->run(planes_.staged.data(), padded_width, padded_height, frame_index, planes_.head.data());
    }

    OutputCurrent out;
    static_cast<FrameGeometry&>(out) = geometry;
    out.tc = planes_.tc.data();
    out.motion = planes_.dilated.data();
    out.head = planes_.head.data();
    out.head_stride = padded_width;
    out.still_history_shift = weights_->config.still_history_shift;
    OutputPrevious out_prev;
    out_prev.valid = history_valid;
    out_prev.history = state_.history[state_.active].data();
    OutputTarget target;
    target.resource = &d.output;
    target.exposure = exposure;
    target.pre_exposure = pre_exposure;
    output_frame(out, out_prev, planes_.kernels.data(), state_.history[next].data(), target);
    keep_recurrent_features(planes_.head.data(), padded_width, width, height,
                            state_.recurrent[next].data());

    // Commit.
    state_.active = next;
    state_.valid = true;
    state_.width = width;
    state_.height = height;
    state_.jitter_x = d.jitter_x;
    state_.jitter_y = d.jitter_y;
    stats_.color_replaced = counts.color;
    stats_.depth_replaced = counts.depth;
    stats_.motion_replaced = counts.motion;
    stats_.exposure = exposure;
}

}  // namespace swinup::cpu

namespace swinup {

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
