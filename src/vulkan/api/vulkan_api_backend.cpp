#include "vulkan/api/vulkan_api_backend.h"

#include <array>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "vulkan/api/recording_slots.h"
#include "vulkan/backend/vulkan_backend.h"
#include "vulkan/frame/reactive_mask_pass.h"
#include "vulkan/runtime/device.h"
#include "vulkan/runtime/recorder.h"
#include "vulkan/runtime/vulkan_error.h"

namespace swinup::vulkan_api {

namespace {

class ApiBackend final : public VulkanApiBackend {
public:
    // `app`: the application's device description (validated), or null for swinup's own device.
    // `log`: the context's messages (the destructor's warning).
    ApiBackend(std::unique_ptr<vulkan::VulkanBackend> frame, const swinup_vulkan_device_desc* app, const Log& log)
        : frame_(std::move(frame)), slots_(frame_->device().handle(), frame_->device().allocator()), own_device_(app == nullptr),
          counts_(frame_->recorded_counts()), log_(log) {
        static_assert(RecordingSlots::kMaxSlots == vulkan::VulkanBackend::kRecordedCountSlots,
                      "one place in recorded_counts per recording slot");
        // A recorded frame's counts are copied into its slot's place in counts_ before its event;
        // once the event is seen set they are read and added to the statistics.
        slots_.on_completed([this](RecordingSlots::Slot& slot) {
            if (!slot.frame) return;  // a reactive mask: no counts
            vulkan::FrameScalars scalars;
            counts_.read(&scalars, sizeof scalars, slot.index * sizeof scalars);
            frame_->count_frame(scalars);
        });
        swinup_vulkan_device_desc_init(&handles_);
        vulkan::Device& device = frame_->device();
        if (app != nullptr) {
            handles_ = *app;
            handles_.enabled_extension_count = 0;  // the application's memory: not kept
            handles_.enabled_extensions = nullptr;
            handles_.enabled_features = nullptr;
            handles_.pipeline_cache = VK_NULL_HANDLE;  // used during creation only
            handles_.allocation_callbacks = nullptr;   // the application's memory: not kept (swinup keeps a copy)
        } else {
            handles_.instance = device.instance();
            handles_.physical_device = device.physical_device();
            handles_.device = device.handle();
            handles_.queue_family_index = device.queue_family();
            handles_.api_version = device.capabilities().api_version;
            handles_.get_instance_proc_addr = vkGetInstanceProcAddr;
            handles_.get_device_proc_addr = vkGetDeviceProcAddr;
        }
    }

    // slots_ (its events and descriptor pools) goes before frame_, whose destructor waits for
    // swinup's own device: the wait is done here first, while the slots still exist. On the
    // application's device nothing is waited for: swinup_vulkan.h requires every recorded frame
    // to have completed before the context is destroyed. swinup cannot enforce that (it does not
    // know whether a pending frame was submitted), so it says so when it cannot see it held.
    ~ApiBackend() override {
        if (own_device_) vkDeviceWaitIdle(frame_->device().handle());
        warn_about_unfinished_recordings();
    }
    ApiBackend(const ApiBackend&) = delete;
    ApiBackend& operator=(const ApiBackend&) = delete;

    swinup_backend kind() const override { return SWINUP_BACKEND_VULKAN; }
    std::string device_name() const override { return frame_->device_name(); }
    // The frame backend's allocations (the recording slots hold descriptor pools and events only).
    BackendMemory memory() const override { return frame_->memory(); }

    // Host-pointer frames are counted when they complete (dispatch waits for them); a recorded
    // frame once swinup sees it completed (its signal_value, or its slot's event). swinup does not submit the
    // application's command buffers, so it cannot wait for them (a frame recorded but not yet
    // submitted would never complete): the counts cover the frames seen completed, and `frames`
    // says how many. Never waits.
    swinup_status input_statistics(InputStatistics* out, std::string* error) const override {
        try {
            slots_.collect();
        } catch (const vulkan::VulkanError& e) {
            *error = e.what();
            return e.status();
        }
        *out = frame_->input_statistics_known();
        return SWINUP_STATUS_OK;
    }
    InputStatistics input_statistics_known() const override { return frame_->input_statistics_known(); }

    // Host pointers: submitted on swinup's own queue; the application's device has none of ours.
    swinup_status dispatch(const swinup_dispatch_desc& desc, uint64_t frame_index, std::string* error) override {
        if (!own_device_) {
            *error = "swinup_dispatch: this context runs on the application's VkDevice, whose queues swinup does "
                     "not submit to; record the frame with swinup_vulkan_record_dispatch (host pointers need a "
                     "context with swinup's own device: swinup_vulkan_context_create with device NULL)";
            return SWINUP_STATUS_UNSUPPORTED;
        }
        const swinup_status status = frame_->dispatch(desc, frame_index, error);
        if (status == SWINUP_STATUS_OK) ++history_serial_;  // a frame no recorded one may be abandoned under
        return status;
    }

    swinup_status record(VkCommandBuffer cmd, const swinup_dispatch_desc& desc, const FrameImages& images,
                         uint64_t frame_index, const ContextSequencePoint& before, std::string* error) override {
        const vulkan::VulkanBackend::SequencePoint backend_before = frame_->sequence_point();
        const RecordingSlots::Completion completion{images.completion_semaphore, images.completion_value};
        return record_in_slot(cmd, /*frame=*/true, completion, "swinup_vulkan_record_dispatch: ",
                              " (the temporal state is unchanged; the command buffer holds part of the frame and "
                              "is invalid: record nothing more into it, do not end or submit it; reset or free it)",
                              error, [&](vulkan::Recorder& rec, RecordingSlots::Slot& slot) {
            // swinup's previous frame (recorded earlier, run earlier on this queue) wrote the state
            // and scratch this one reads and overwrites.
            rec.barrier();
            const FrameSetup setup = frame_->begin_frame(desc);
            vulkan::FrameInputViews inputs;
            inputs.color = {images.color.view, images.color.layout};
            inputs.depth = {images.depth.view, images.depth.layout};
            inputs.motion = {images.motion_vectors.view, images.motion_vectors.layout};
            if (images.exposure.image != VK_NULL_HANDLE) inputs.exposure = {images.exposure.view, images.exposure.layout};
            if (images.reactive_mask.image != VK_NULL_HANDLE) {
                inputs.reactive = {images.reactive_mask.view, images.reactive_mask.layout};
                inputs.reactive_unorm8 = images.reactive_mask.format == VK_FORMAT_R8_UNORM;
            }
            if (images.transparency_mask.image != VK_NULL_HANDLE) {
                inputs.transparency = {images.transparency_mask.view, images.transparency_mask.layout};
                inputs.transparency_unorm8 = images.transparency_mask.format == VK_FORMAT_R8_UNORM;
            }
            frame_->record_frame(rec, setup, desc, inputs, images.output.view, frame_index);
            if (injected_ != VK_SUCCESS) vulkan::check(std::exchange(injected_, VK_SUCCESS), "(injected by a test)");
            // The frame's counts into its slot's place, visible to the host once its event is set.
            rec.copy_buffer(frame_->frame_buffers().scalars, 0, counts_, slot.index * sizeof(vulkan::FrameScalars),
                            sizeof(vulkan::FrameScalars));
            rec.barrier(true);
            slots_.finish(slot, cmd);
            // Recorded: the frame counts as done (swinup_vulkan.h: it must be submitted, or abandoned).
            frame_->commit(setup);
            records_[slot.index] = {++history_serial_, backend_before, before};
        });
    }

    swinup_status abandon(VkCommandBuffer cmd, ContextSequencePoint* restored, size_t* frames,
                          std::string* error) override {
        try {
            slots_.collect();  // what has completed is not abandoned
        } catch (const vulkan::VulkanError& e) {
            *error = e.what();
            return e.status();
        }
        const std::vector<RecordingSlots::Slot*> found = slots_.pending_in(cmd);
        if (found.empty()) {
            *error = "cmd: nothing recorded into this command buffer by swinup_vulkan_record_dispatch or "
                     "swinup_vulkan_record_reactive_mask is pending (none was, or it has completed: its signal_value was "
                     "seen reached, or without one its end-of-frame event seen set)";
            return SWINUP_STATUS_INVALID_ARGUMENT;
        }
        // The frames among them must be the latest frames of the context: a later frame (recorded
        // into another command buffer, or a swinup_dispatch) read the history they wrote.
        size_t count = 0;
        const FrameRecord* first = nullptr;
        for (const RecordingSlots::Slot* slot : found) {
            if (!slot->frame) continue;
            ++count;
            const FrameRecord& r = records_[slot->index];
            if (first == nullptr || r.serial < first->serial) first = &r;
        }
        if (first != nullptr && history_serial_ - first->serial + 1 != count) {
            *error = "cmd: " + std::to_string(history_serial_ - first->serial + 1 - count) +
                     " frame(s) recorded later into another command buffer (or run by swinup_dispatch) build on the "
                     "history of the frames in this command buffer; abandon the most recent command buffer first "
                     "(nothing was abandoned)";
            return SWINUP_STATUS_INVALID_ARGUMENT;
        }
        if (first != nullptr) {
            frame_->restore(first->backend);
            *restored = first->context;
            history_serial_ = first->serial - 1;
        }
        for (RecordingSlots::Slot* slot : found) slots_.give_up(*slot);
        *frames = count;
        return SWINUP_STATUS_OK;
    }

    // Host pointers: as dispatch, on swinup's own device only.
    swinup_status generate_reactive_mask(const swinup_reactive_mask_desc& desc, std::string* error) override {
        if (!own_device_) {
            *error = "this context runs on the application's VkDevice, whose queues swinup does not submit to; "
                     "record the mask with swinup_vulkan_record_reactive_mask";
            return SWINUP_STATUS_UNSUPPORTED;
        }
        return frame_->generate_reactive_mask(desc, error);
    }

    swinup_status record_reactive_mask(VkCommandBuffer cmd, const swinup_reactive_mask_desc& mask,
                                       const ReactiveMaskImages& images, std::string* error) override {
        return record_in_slot(cmd, /*frame=*/false, RecordingSlots::Completion{}, "", "", error,
                              [&](vulkan::Recorder& rec, RecordingSlots::Slot& slot) {
            vulkan::record_reactive_mask_image(frame_->device(), rec, vulkan::reactive_mask_push(mask),
                                               {images.opaque_color.view, images.opaque_color.layout},
                                               {images.final_color.view, images.final_color.layout},
                                               images.output.view, images.output.format);
            slots_.finish(slot, cmd);
        });
    }

    swinup_vulkan_device_desc device() const override { return handles_; }
    void inject_record_failure(VkResult result) override { injected_ = result; }

private:
    // Records `work(rec, slot)` into cmd with a recording slot (`frame`: it records a frame, whose
    // counts are read once it completes). A slot that cannot be had fails before anything is
    // recorded; a failure inside `work` gives the slot back. Messages start with `prefix`; a
    // device error's ends with `unfinished` (what the caller's command buffer and state hold then).
    template <class Work>
    swinup_status record_in_slot(VkCommandBuffer cmd, bool frame, const RecordingSlots::Completion& completion,
                                 const char* prefix, const char* unfinished, std::string* error, Work&& work) {
        RecordingSlots::Slot* slot = nullptr;
        try {
            slots_.collect();  // every completed frame's counts, before their slots are reused
            slot = &slots_.acquire(completion);
            slot->frame = frame;
            slot->commands = cmd;
        } catch (const vulkan::VulkanError& e) {  // nothing recorded yet
            *error = std::string(prefix) + e.what();
            return e.status();
        }
        try {
            vulkan::Recorder rec(frame_->device(), cmd, *slot->arena);
            work(rec, *slot);
            return SWINUP_STATUS_OK;
        } catch (const vulkan::VulkanError& e) {
            slots_.release(*slot);
            *error = std::string(prefix) + e.what() + unfinished;
            return e.status();
        } catch (const std::bad_alloc&) {
            slots_.release(*slot);
            *error = std::string(prefix) + "out of host memory";
            return SWINUP_STATUS_OUT_OF_MEMORY;
        } catch (const std::exception& e) {
            slots_.release(*slot);
            *error = std::string(prefix) + "internal error in the Vulkan backend: " + e.what();
            return SWINUP_STATUS_INTERNAL;
        }
    }

    // The destructor's warning: recordings (frames, reactive masks) not abandoned whose end-of-frame
    // event is not set (their commands may still be to run). If one of them is still to run, or
    // running, on the GPU it reads descriptor sets, buffers and images that destroying the context
    // frees: memory corruption in the driver, which neither swinup nor the validation layer sees at
    // that moment. A recording that will never be submitted is harmless, but swinup cannot tell the
    // two apart, so both are counted.
    void warn_about_unfinished_recordings() noexcept {
        try {
            // Not collect(): that reads the completion semaphores, which the application may have
            // destroyed once its frames completed.
            const size_t pending = slots_.unfinished_count();
            if (pending == 0) return;
            log_.warning("swinup_context_destroy: " + std::to_string(pending) +
                         " recording(s) made with swinup_vulkan_record_dispatch or swinup_vulkan_record_reactive_mask "
                         "were never seen completed (their end-of-frame event is not set). One still to run or "
                         "running on the GPU uses the buffers, images and descriptor sets this call frees: destroy a "
                         "context only after the frames it recorded have completed (a fence, vkQueueWaitIdle), and "
                         "never submit them afterwards; swinup_vulkan_abandon_frame gives back a recording that will "
                         "never be submitted");
        } catch (...) {  // a destructor: the device may be lost; nothing more to say
        }
    }

    // What abandoning a recorded frame needs: its place in the sequence of the context's frames
    // (serial, counted from 1 over recorded and host-pointer frames alike) and the state before it.
    struct FrameRecord {
        uint64_t serial = 0;
        vulkan::VulkanBackend::SequencePoint backend;
        ContextSequencePoint context;
    };

    std::unique_ptr<vulkan::VulkanBackend> frame_;
    mutable RecordingSlots slots_;
    std::array<FrameRecord, RecordingSlots::kMaxSlots> records_{};  // per slot: its frame's record
    uint64_t history_serial_ = 0;  // the serial of the last frame the temporal state holds
    VkResult injected_ = VK_SUCCESS;  // inject_record_failure  // input_statistics (const) collects completed frames
    bool own_device_;
    vulkan::Buffer& counts_;  // per slot: the FrameScalars of the frame recorded with it (frame_'s)
    swinup_vulkan_device_desc handles_{};
    Log log_;
};

// The physical device of swinup's own device: SWINUP_VULKAN_DEVICE when set, else device_index.
std::string own_device_selector(const swinup_context_desc& desc) {
    const char* env = std::getenv("SWINUP_VULKAN_DEVICE");
    if (env != nullptr && *env != '\0') return env;
    return std::to_string(desc.device_index);
}

}  // namespace

std::unique_ptr<VulkanApiBackend> make_vulkan_api_backend(const swinup_context_desc& desc,
                                                          std::shared_ptr<const Weights> weights,
                                                          const swinup_vulkan_device_desc* app, const Log& log,
                                                          swinup_status* status, std::string* message) {
    try {
        std::unique_ptr<vulkan::Device> device;
        if (app != nullptr) {
            vulkan::ExternalHandles h;
            h.instance = app->instance;
            h.physical_device = app->physical_device;
            h.device = app->device;
            h.queue_family = app->queue_family_index;  // checked by wrap before any queue is taken
            h.enabled_features = app->enabled_features;
            h.allocator = app->allocation_callbacks;
            h.pipeline_cache = app->pipeline_cache;
            device = vulkan::Device::wrap(h);
        } else {
            vulkan::DeviceOptions options;
            options.selector = own_device_selector(desc);
            device = vulkan::Device::create(options);
        }
        vulkan::Device& ref = *device;
        // On the application's device swinup_dispatch is refused (its queues are the application's),
        // so the host path's copies are not made.
        const auto host_path = app != nullptr ? vulkan::VulkanBackend::HostPath::kNone
                                              : vulkan::VulkanBackend::HostPath::kEnabled;
        auto frame = std::make_unique<vulkan::VulkanBackend>(desc, std::move(weights), ref, std::move(device),
                                                             vulkan::VulkanBackend::NetworkFn{}, host_path);
        ref.set_pipeline_cache(VK_NULL_HANDLE);  // the application's cache: used during creation only
        return std::make_unique<ApiBackend>(std::move(frame), app, log);
    } catch (const vulkan::VulkanError& e) {
        *status = e.status();
        *message = std::string("swinup_vulkan_context_create: ") + e.what();
        return nullptr;
    } catch (const std::invalid_argument& e) {  // weights the network cannot use
        *status = SWINUP_STATUS_WEIGHTS_INVALID;
        *message = std::string("swinup_vulkan_context_create: ") + e.what();
        return nullptr;
    }
}

}  // namespace swinup::vulkan_api
