#include "vulkan/backend/vulkan_backend.h"

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <vector>

#include "api/input_statistics_count.h"
#include "frame/formats.h"
#include "frame/mask_pixel.h"
#include "frame/reactive_mask_pixel.h"
#include "model/model_spec.h"
#include "vulkan/backend/network_vulkan.h"
#include "vulkan/frame/reactive_mask_pass.h"
#include "vulkan/layers/runtime_layer_recorder.h"
#include "vulkan/runtime/vulkan_error.h"

namespace swinup::vulkan {

VulkanBackend::VulkanBackend(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights,
                             Device& device, std::unique_ptr<Device> owned, NetworkFn network, HostPath host_path)
    : desc_(desc), weights_(std::move(weights)), owned_(std::move(owned)), device_(device),
      buffers_(device, static_cast<int>(desc.max_render_width), static_cast<int>(desc.max_render_height),
               static_cast<int>(desc.display_width), static_cast<int>(desc.display_height)),
      passes_(device, desc.precision), network_fn_(std::move(network)), submitter_(device),
      scalars_readback_(device, sizeof(FrameScalars), MemoryUse::Readback),
      recorded_counts_(device, kRecordedCountSlots * sizeof(FrameScalars), MemoryUse::Readback) {
    if ((desc.flags & SWINUP_FLAG_AUTO_EXPOSURE) && !device.capabilities().shader_float64) {
        // Refused at creation rather than at the first frame: the engine learns it up front.
        throw VulkanError(SWINUP_STATUS_UNSUPPORTED,
                          "SWINUP_FLAG_AUTO_EXPOSURE needs shaderFloat64, which Vulkan device \"" + device.name() +
                              "\" lacks (pass an exposure value or texture instead)");
    }
    if (!network_fn_) {
        network_ = std::make_unique<VulkanNetwork>(device, weights_, desc.precision,
                                                   pad_to_grid(static_cast<int>(desc.max_render_width)),
                                                   pad_to_grid(static_cast<int>(desc.max_render_height)));
    }
    check_output_format_storable(device, desc.output_format);
    if (host_path == HostPath::kEnabled) io_ = std::make_unique<HostFrameIo>(device, desc);
    // Every pipeline this context's frames and reactive masks record is made now, once, rather
    // than at the first frame (its cost is creation's: swinup_vulkan.h says how much).
    passes_.build_pipelines((desc.flags & SWINUP_FLAG_AUTO_EXPOSURE) != 0, weights_->config.masks, desc.output_format);
    if (!network_fn_) build_layer_pipelines(device);
    build_reactive_mask_pipelines(device);
}

VulkanBackend::~VulkanBackend() {
    // Nothing of ours may be in flight when the buffers go (the host path always waits; a failed
    // wait leaves the device lost, where this returns at once). The application's device is not
    // waited on: its queues are the application's to synchronise (vkDeviceWaitIdle would touch
    // them all), and swinup_vulkan.h requires its recorded frames to be complete by now.
    if (device_.handle() && device_.owned()) vkDeviceWaitIdle(device_.handle());
}

void VulkanBackend::set_stage_timing(bool on, bool per_kernel) {
    // Per kernel: about 100 marks a frame (full has the most layers).
    timer_ = on ? std::make_unique<StageTimer>(device_, per_kernel ? 256u : 64u) : nullptr;
    if (!network_) return;
    network_->set_layer_marker(nullptr);
    network_->set_kernel_marker(nullptr);
    if (!on) return;
    if (per_kernel) {
        network_->set_kernel_marker([this](const std::string& layer, const char* kernel, Recorder& rec) {
            if (timer_) timer_->mark(rec, ("network: " + layer + ": " + kernel).c_str());
        });
        return;
    }
    network_->set_layer_marker([this](const std::string& layer, bool begin, Recorder& rec) {
        if (!begin && timer_) timer_->mark(rec, ("network: " + layer).c_str());
    });
}

void VulkanBackend::record_frame(Recorder& rec, const FrameSetup& frame, const swinup_dispatch_desc& desc,
                                 const FrameInputViews& inputs, VkImageView output, uint64_t frame_index) {
    if (!state_initialised_) buffers_.record_initialise(rec);
    FramePush push = frame_push(frame, desc, weights_->config.still_history_shift);
    push.flags |= mask_flags(inputs);
    passes_.record_exposure(rec, push, frame, inputs, buffers_);
    passes_.record_input_planes(rec, push, frame, inputs, buffers_);
    passes_.record_staging(rec, push, frame, buffers_);
    // The masks as mask_embed reads them, when the frame has one and the weights the layer.
    const bool network_masks = mask_flags(inputs) != 0 && weights_->config.masks;
    if (network_masks) passes_.record_mask_tokens(rec, push, buffers_, weights_->config.variant == Variant::lite);
    if (timer_) timer_->mark(rec, "exposure, input planes, staging");
    rec.barrier();
    if (network_fn_) {
        network_fn_(rec, buffers_.staged, frame.padded_width, frame.padded_height, frame_index, buffers_.head);
    } else {
        const BufferView masks = network_masks ? BufferView{buffers_.mask_tokens.handle(), 0, buffers_.mask_tokens.size()}
                                               : BufferView{};
        network_->record(rec, BufferView{buffers_.staged.handle(), 0, buffers_.staged.size()}, frame.padded_width,
                         frame.padded_height, frame_index, BufferView{buffers_.head.handle(), 0, buffers_.head.size()},
                         masks);
    }
    if (timer_) timer_->mark(rec, "network");
    rec.barrier();
    passes_.record_output(rec, push, frame, buffers_, output, desc_.output_format);
    if (push.sharpness > 0.0f) {  // the output pass left the values in presharpen
        rec.barrier();
        passes_.record_sharpen(rec, push, buffers_, output, desc_.output_format);
    }
    passes_.record_recurrent(rec, push, frame, buffers_);
    if (timer_) timer_->mark(rec, "output pass, recurrent store");
}

namespace {

// Runs host-path `work` (recorded, submitted and waited for) and turns what it throws into a status
// and *error (prefixed by `prefix`; `unchanged` says what a failure left as it was). On any failure
// whatever was recorded did not run (or is not known to have): its first-use layout transitions
// are recorded again next time (moving an image from UNDEFINED again is always valid: every use
// rewrites the input images and the output image whole).
template <class Work>
swinup_status guarded_host_work(HostFrameIo* io_or_null, const char* prefix, const char* unchanged, std::string* error,
                                Work&& work) {
    if (io_or_null == nullptr) {
        *error = std::string(prefix) + "this context has no host-pointer path (it runs on the application's device)";
        return SWINUP_STATUS_UNSUPPORTED;
    }
    HostFrameIo& io = *io_or_null;
    try {
        work();
        return SWINUP_STATUS_OK;
    } catch (const VulkanError& e) {
        io.frame_not_run();
        *error = std::string(prefix) + "the Vulkan backend failed: " + e.what() + " (" + unchanged + ")";
        return e.status();
    } catch (const std::bad_alloc&) {
        io.frame_not_run();
        *error = std::string(prefix) + "out of host memory";
        return SWINUP_STATUS_OUT_OF_MEMORY;
    } catch (const std::exception& e) {
        io.frame_not_run();
        *error = std::string(prefix) + "internal error in the Vulkan backend: " + e.what();
        return SWINUP_STATUS_INTERNAL;
    }
}

}  // namespace

swinup_status VulkanBackend::dispatch(const swinup_dispatch_desc& d, uint64_t frame_index, std::string* error) {
    // Everything recorded writes only scratch, the state slot frame.next and swinup's output image;
    // the caller's output is written and the state committed only after the frame completed.
    return guarded_host_work(io_.get(), "dispatch: ", "the temporal state is unchanged; a lost device needs a new context",
                             error, [&] {
        const FrameSetup frame = frames_.begin(desc_, d);
        Recorder& rec = submitter_.begin();
        // A frame the application recorded on this (swinup's own) device and submitted may still
        // run on the queue: it wrote the state and scratch this frame reads and overwrites.
        rec.barrier();
        if (timer_) timer_->begin(rec);
        const FrameInputViews inputs = io_->record_upload(rec, d);
        if (timer_) timer_->mark(rec, "upload (host inputs into images)");
        record_frame(rec, frame, d, inputs, io_->output_view(), frame_index);
        io_->record_readback(rec);
        rec.copy_buffer(buffers_.scalars, 0, scalars_readback_, 0, sizeof(FrameScalars));
        if (timer_) timer_->mark(rec, "readback (output image to host)");
        submitter_.submit_and_wait();
        io_->write_output(d);
        FrameScalars scalars;
        scalars_readback_.read(&scalars, sizeof scalars);
        stats_ = {scalars.color_replaced, scalars.depth_replaced, scalars.motion_replaced, scalars.exposure};
        commit(frame);
        count_frame(scalars);
    });
}

swinup_status VulkanBackend::generate_reactive_mask(const swinup_reactive_mask_desc& d, std::string* error) {
    // Nothing of the temporal state is touched, and desc.output is written only after the device
    // finished, so a failure leaves the caller's memory as it was.
    return guarded_host_work(io_.get(), "", "the output was not written", error, [&] {
        const size_t pixels = static_cast<size_t>(desc_.max_render_width) * desc_.max_render_height;
        if (!mask_values_) {
            mask_values_ = std::make_unique<Buffer>(device_, pixels * 4, MemoryUse::DeviceLocal);
            mask_readback_ = std::make_unique<Buffer>(device_, pixels * 4, MemoryUse::Readback);
        }
        Recorder& rec = submitter_.begin();
        rec.barrier();  // a frame the application recorded on this device may still run
        const auto [opaque, final_color] = io_->record_upload_colours(rec, d.opaque_color, d.final_color);
        record_reactive_mask_values(device_, rec, reactive_mask_push(d), opaque, final_color, *mask_values_);
        const size_t bytes = static_cast<size_t>(d.render_width) * d.render_height * 4;
        rec.copy_buffer(*mask_values_, 0, *mask_readback_, 0, bytes);
        submitter_.submit_and_wait();
        std::vector<float> values(static_cast<size_t>(d.render_width) * d.render_height);
        mask_readback_->read(values.data(), bytes);
        const swinup_resource& out = d.output;
        for (uint32_t y = 0; y < d.render_height; ++y) {
            auto* row = static_cast<uint8_t*>(out.data_mut) + static_cast<size_t>(y) * resource_row_pitch(out);
            for (uint32_t x = 0; x < d.render_width; ++x) {
                write_mask_pixel(out.format, values[static_cast<size_t>(y) * d.render_width + x], row, static_cast<int>(x));
            }
        }
    });
}

void VulkanBackend::count_frame(const FrameScalars& s) {
    add_frame_counts(statistics_, s.color_pixels, s.depth_replaced, s.motion_pixels, s.mask_nonfinite, s.mask_out_of_range);
    // A frame completed: it, or one before it on the queue, carried the weights' copy (each frame
    // does until now), so they are in place.
    if (network_) network_->weights_arrived();
}

BackendMemory VulkanBackend::memory() const {
    BackendMemory m;
    m.device_bytes = device_.allocated_bytes();
    return m;
}

}  // namespace swinup::vulkan

namespace swinup {

bool vulkan_backend_available() { return true; }

bool vulkan_memory_estimate(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights,
                            BackendMemory* memory, swinup_status* status, std::string* error) {
    // The exact figure needs the device's memory requirements (alignment, image layouts), which
    // only its driver knows: the backend is made as creation would make it, its allocations read
    // and everything freed again before returning.
    const std::unique_ptr<Backend> probe = make_vulkan_backend(desc, std::move(weights), error, status);
    if (!probe) return false;
    *memory = probe->memory();
    return true;
}

std::unique_ptr<Backend> make_vulkan_backend(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights,
                                             std::string* error, swinup_status* status) {
    try {
        vulkan::DeviceOptions options;
        // SWINUP_VULKAN_DEVICE (index or name) chooses the device, else device_index.
        const char* env = std::getenv("SWINUP_VULKAN_DEVICE");
        options.selector = (env != nullptr && *env != '\0') ? env : std::to_string(desc.device_index);
        auto device = vulkan::Device::create(options);
        vulkan::Device& ref = *device;
        return std::make_unique<vulkan::VulkanBackend>(desc, std::move(weights), ref, std::move(device));
    } catch (const vulkan::VulkanError& e) {
        *error = std::string("context_desc.backend: SWINUP_BACKEND_VULKAN: ") + e.what();
        *status = e.status();
        return nullptr;
    } catch (const std::invalid_argument& e) {  // weights the network cannot use
        *error = std::string("context_desc.backend: SWINUP_BACKEND_VULKAN: ") + e.what();
        *status = SWINUP_STATUS_WEIGHTS_INVALID;
        return nullptr;
    }
}

}  // namespace swinup
