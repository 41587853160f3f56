// The C entry points of include/swinup/swinup_vulkan.h. They follow swinup.h's rules (api/context.cpp):
// every field is validated before anything runs, failures are reported through swinup_last_error,
// no exception crosses, and a refused or failed frame leaves the temporal state as it was.
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "api/context_state.h"
#include "api/jitter_convention.h"
#include "api/raw_enum.h"
#include "swinup/swinup_vulkan.h"
#include "vulkan/api/cuda_interop_backend.h"
#include "vulkan/api/cuda_interop_validation.h"
#include "vulkan/api/vulkan_api_backend.h"
#include "vulkan/api/vulkan_dispatch_validation.h"

namespace {

using swinup::fail_context;
using swinup::fail_thread;
using swinup::vulkan_api::CudaInteropBackend;
using swinup::vulkan_api::VulkanApiBackend;

swinup::vulkan_api::BoundImage bound(const swinup_vulkan_image& i) {
    return {i.image, i.view, i.format, i.layout};
}

VulkanApiBackend* vulkan_backend_of(swinup_context* ctx) {
    return dynamic_cast<VulkanApiBackend*>(ctx->backend.get());
}

CudaInteropBackend* cuda_backend_of(const swinup_context* ctx) {
    return dynamic_cast<CudaInteropBackend*>(ctx->backend.get());
}

// swinup_vulkan_record_dispatch's descriptor read (in the caller's struct size) into *read,
// validated against the context, its jitter in swinup's convention (api/jitter_convention.h); on
// failure the context's error is set and its status returned.
swinup_status read_dispatch_desc(swinup_context* ctx, const swinup_vulkan_dispatch_desc* caller_desc,
                                 swinup_vulkan_dispatch_desc* read) {
    if (caller_desc == nullptr) {
        return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT, "swinup_vulkan_record_dispatch: desc is NULL");
    }
    swinup::Validation v = swinup::vulkan_api::read_vulkan_dispatch_desc(caller_desc, read);
    if (!v.ok()) return fail_context(ctx, v.status, v.message);
    v = swinup::vulkan_api::validate_vulkan_dispatch_desc(*read, ctx->desc);
    if (!v.ok()) return fail_context(ctx, v.status, v.message);
    swinup::to_sample_offset_jitter(&read->frame);
    return SWINUP_STATUS_OK;
}

// Whether the frame reads its exposure from the descriptor's image (given, and auto exposure off).
bool reads_exposure_image(const swinup_context* ctx, const swinup_vulkan_dispatch_desc& desc) {
    return desc.exposure.image != VK_NULL_HANDLE && (ctx->desc.flags & SWINUP_FLAG_AUTO_EXPOSURE) == 0;
}

// A CUDA context's frame: the same checks as the Vulkan backend's, then the import's own.
swinup_status run_cuda_frame(swinup_context* ctx, CudaInteropBackend* backend,
                             const swinup_vulkan_dispatch_desc* caller_desc) {
    swinup_vulkan_dispatch_desc read;
    const swinup_status read_status = read_dispatch_desc(ctx, caller_desc, &read);
    if (read_status != SWINUP_STATUS_OK) return read_status;
    const swinup_vulkan_dispatch_desc* desc = &read;
    const bool exposure_image = reads_exposure_image(ctx, *desc);
    const swinup::Validation v = swinup::vulkan_api::validate_cuda_interop_desc(*desc, ctx->desc, exposure_image);
    if (!v.ok()) return fail_context(ctx, v.status, v.message);
    std::string error;
    const uint64_t frame_index = swinup::frame_index_for(*ctx, desc->frame);
    const swinup_status status = backend->run(*desc, exposure_image, frame_index, &error);
    if (status != SWINUP_STATUS_OK) return fail_context(ctx, status, error);
    swinup::frame_succeeded(ctx, desc->frame, frame_index);
    return SWINUP_STATUS_OK;
}

// The two release entry points: a CUDA context releases its imports, a Vulkan one has none.
template <typename Release>
swinup_status release_imports(swinup_context* ctx, const char* caller, const Release& release) {
    if (ctx == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, std::string(caller) + ": ctx is NULL");
    try {
        if (CudaInteropBackend* cuda = cuda_backend_of(ctx)) {
            std::string error;
            const swinup_status status = release(*cuda, &error);
            if (status != SWINUP_STATUS_OK) return fail_context(ctx, status, std::string(caller) + ": " + error);
            return SWINUP_STATUS_OK;
        }
        if (vulkan_backend_of(ctx) == nullptr) {
            return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT,
                                std::string(caller) + ": ctx was not made by swinup_vulkan_context_create");
        }
        return SWINUP_STATUS_OK;
    } catch (const std::bad_alloc&) {
        return fail_context(ctx, SWINUP_STATUS_OUT_OF_MEMORY, std::string(caller) + ": out of host memory");
    } catch (...) {
        return fail_context(ctx, SWINUP_STATUS_INTERNAL, std::string(caller) + ": internal error");
    }
}

// swinup_vulkan_context_create's context with the backend `make(desc, weights, device, log, status,
// message)` makes (`log`: the context's messages).
template <typename Device, typename Make>
swinup_status create_vulkan_context(const swinup_context_desc* desc, Device device, Make make, swinup_context** out) {
    const swinup::BackendMaker maker = [device, make](const swinup_context_desc& d,
                                                      const std::shared_ptr<const swinup::Weights>& weights,
                                                      const swinup::Log& log, swinup_status* status,
                                                      std::string* message) -> std::unique_ptr<swinup::Backend> {
        return make(d, weights, device, log, status, message);
    };
    return swinup::create_context("swinup_vulkan_context_create", desc, maker, out);
}

}  // namespace

extern "C" {

void swinup_vulkan_device_desc_init(swinup_vulkan_device_desc* desc) {
    if (desc == nullptr) return;
    std::memset(desc, 0, sizeof *desc);
    desc->struct_size = sizeof *desc;
}

void swinup_vulkan_dispatch_desc_init(swinup_vulkan_dispatch_desc* desc) {
    if (desc == nullptr) return;
    std::memset(desc, 0, sizeof *desc);
    desc->struct_size = sizeof *desc;
    swinup_dispatch_desc_init(&desc->frame);
    for (swinup_vulkan_image* i : {&desc->color, &desc->depth, &desc->motion_vectors, &desc->output, &desc->exposure,
                                   &desc->reactive_mask, &desc->transparency_mask}) {
        i->format = VK_FORMAT_UNDEFINED;
        i->layout = VK_IMAGE_LAYOUT_UNDEFINED;
    }
}

void swinup_vulkan_reactive_mask_desc_init(swinup_vulkan_reactive_mask_desc* desc) {
    if (desc == nullptr) return;
    std::memset(desc, 0, sizeof *desc);
    desc->struct_size = sizeof *desc;
    swinup_reactive_mask_desc_init(&desc->mask);
    for (swinup_vulkan_image* i : {&desc->opaque_color, &desc->final_color, &desc->output}) {
        i->format = VK_FORMAT_UNDEFINED;
        i->layout = VK_IMAGE_LAYOUT_UNDEFINED;
    }
}

swinup_status swinup_vulkan_context_create(const swinup_context_desc* desc, const swinup_vulkan_device_desc* device,
                                           swinup_context** out) {
    if (out != nullptr) *out = nullptr;
    try {
        // The caller's device descriptor in the newest layout (a V1 caller's without the cache and
        // the allocation callbacks).
        swinup_vulkan_device_desc device_read;
        if (device != nullptr) {
            swinup::Validation v = swinup::vulkan_api::read_vulkan_device_desc(device, &device_read);
            if (!v.ok()) return fail_thread(v.status, v.message);
            v = swinup::vulkan_api::validate_vulkan_device_desc(device_read);
            if (!v.ok()) return fail_thread(v.status, v.message);
            device = &device_read;
        }
        if (desc != nullptr) {
            // The backend field keeps its meaning: what runs the frame on these Vulkan images.
            const int64_t backend = swinup::raw_enum(desc->backend);
            if (backend == SWINUP_BACKEND_CUDA) {
                if (device == nullptr) {
                    return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT,
                                       "swinup_vulkan_context_create: device is NULL, but SWINUP_BACKEND_CUDA runs on "
                                       "the application's images, which need the application's device");
                }
                const swinup::Validation v = swinup::vulkan_api::validate_cuda_interop_device(*device);
                if (!v.ok()) return fail_thread(v.status, v.message);
                // The CUDA backend logs nothing of its own.
                const auto make_cuda = [](const swinup_context_desc& d, std::shared_ptr<const swinup::Weights> weights,
                                          const swinup_vulkan_device_desc& app, const swinup::Log&,
                                          swinup_status* status, std::string* message) {
                    return swinup::vulkan_api::make_cuda_interop_backend(d, std::move(weights), app, status, message);
                };
                return create_vulkan_context(desc, *device, make_cuda, out);
            }
            if (backend == SWINUP_BACKEND_CPU) {
                return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT,
                                   "context_desc.backend: SWINUP_BACKEND_CPU cannot record into Vulkan command "
                                   "buffers; use SWINUP_BACKEND_VULKAN (or swinup_context_create for the CPU)");
            }
        }
        return create_vulkan_context(desc, device, swinup::vulkan_api::make_vulkan_api_backend, out);
    } catch (const std::bad_alloc&) {
        return fail_thread(SWINUP_STATUS_OUT_OF_MEMORY, "swinup_vulkan_context_create: out of host memory");
    } catch (...) {
        return fail_thread(SWINUP_STATUS_INTERNAL, "swinup_vulkan_context_create: internal error");
    }
}

swinup_status swinup_vulkan_context_get_device(const swinup_context* ctx, swinup_vulkan_device_desc* out) {
    if (ctx == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_vulkan_context_get_device: ctx is NULL");
    if (out == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_vulkan_context_get_device: out is NULL");
    // The struct_size rule: *out is written only when its size is one swinup_vulkan_device_desc has
    // had, and only its first struct_size bytes.
    const uint32_t out_size = out->struct_size;
    const swinup::Validation size_check = swinup::vulkan_api::device_desc_size_check_for_output(out_size);
    if (!size_check.ok()) return fail_thread(size_check.status, size_check.message);
    try {
        swinup_vulkan_device_desc handles;
        if (const CudaInteropBackend* cuda = cuda_backend_of(ctx)) {
            handles = cuda->device();
        } else if (const auto* backend = dynamic_cast<const VulkanApiBackend*>(ctx->backend.get())) {
            handles = backend->device();
        } else {
            return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT,
                               "swinup_vulkan_context_get_device: ctx was not made by swinup_vulkan_context_create");
        }
        handles.struct_size = out_size;
        std::memcpy(out, &handles, out_size);
        swinup::clear_thread_error();
        return SWINUP_STATUS_OK;
    } catch (...) {
        return fail_thread(SWINUP_STATUS_INTERNAL, "swinup_vulkan_context_get_device: internal error");
    }
}

swinup_status swinup_vulkan_record_dispatch(swinup_context* ctx, VkCommandBuffer cmd,
                                            const swinup_vulkan_dispatch_desc* caller_desc) {
    if (ctx == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_vulkan_record_dispatch: ctx is NULL");
    try {
        if (CudaInteropBackend* cuda = cuda_backend_of(ctx)) return run_cuda_frame(ctx, cuda, caller_desc);
        VulkanApiBackend* backend = vulkan_backend_of(ctx);
        if (backend == nullptr) {
            return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT,
                                "swinup_vulkan_record_dispatch: ctx was not made by swinup_vulkan_context_create");
        }
        if (cmd == VK_NULL_HANDLE) {
            return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT, "swinup_vulkan_record_dispatch: cmd is VK_NULL_HANDLE");
        }
        swinup_vulkan_dispatch_desc read;
        const swinup_status read_status = read_dispatch_desc(ctx, caller_desc, &read);
        if (read_status != SWINUP_STATUS_OK) return read_status;
        const swinup_vulkan_dispatch_desc* desc = &read;
        for (const auto& [name, buffer] : {std::pair<const char*, const swinup_vulkan_buffer*>{"color", &desc->color_buffer},
                                           {"depth", &desc->depth_buffer},
                                           {"motion_vectors", &desc->motion_vectors_buffer},
                                           {"output", &desc->output_buffer},
                                           {"reactive_mask", &desc->reactive_mask_buffer},
                                           {"transparency_mask", &desc->transparency_mask_buffer}}) {
            if (buffer->buffer == VK_NULL_HANDLE) continue;
            return fail_context(ctx, SWINUP_STATUS_UNSUPPORTED,
                                std::string("vulkan_dispatch.") + name + "_buffer.buffer: the Vulkan backend reads and "
                                "writes images only in this version (buffers are the CUDA backend's: "
                                "SWINUP_BACKEND_CUDA); pass vulkan_dispatch." + name + " as an image");
        }

        swinup::vulkan_api::FrameImages images;
        images.color = bound(desc->color);
        images.depth = bound(desc->depth);
        images.motion_vectors = bound(desc->motion_vectors);
        images.output = bound(desc->output);
        if (reads_exposure_image(ctx, *desc)) images.exposure = bound(desc->exposure);
        if (desc->reactive_mask.image != VK_NULL_HANDLE) images.reactive_mask = bound(desc->reactive_mask);
        if (desc->transparency_mask.image != VK_NULL_HANDLE) images.transparency_mask = bound(desc->transparency_mask);
        images.completion_semaphore = desc->signal_semaphore;
        images.completion_value = desc->signal_value;
        std::string error;
        const uint64_t frame_index = swinup::frame_index_for(*ctx, desc->frame);
        const swinup_status status =
            backend->record(cmd, desc->frame, images, frame_index, swinup::sequence_point(*ctx), &error);
        if (status != SWINUP_STATUS_OK) return fail_context(ctx, status, error);
        swinup::frame_succeeded(ctx, desc->frame, frame_index);
        return SWINUP_STATUS_OK;
    } catch (const std::bad_alloc&) {
        return fail_context(ctx, SWINUP_STATUS_OUT_OF_MEMORY, "swinup_vulkan_record_dispatch: out of host memory");
    } catch (const std::exception& e) {
        return fail_context(ctx, SWINUP_STATUS_INTERNAL,
                            std::string("swinup_vulkan_record_dispatch: internal error: ") + e.what());
    } catch (...) {
        return fail_context(ctx, SWINUP_STATUS_INTERNAL, "swinup_vulkan_record_dispatch: internal error");
    }
}

swinup_status swinup_vulkan_record_reactive_mask(swinup_context* ctx, VkCommandBuffer cmd,
                                                 const swinup_vulkan_reactive_mask_desc* desc) {
    constexpr const char* kCaller = "swinup_vulkan_record_reactive_mask";
    if (ctx == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, std::string(kCaller) + ": ctx is NULL");
    try {
        if (cuda_backend_of(ctx) != nullptr) {
            return fail_context(ctx, SWINUP_STATUS_UNSUPPORTED,
                                std::string(kCaller) + ": the CUDA backend on Vulkan images does not generate "
                                                       "reactive masks in this version (a Vulkan context does)");
        }
        VulkanApiBackend* backend = vulkan_backend_of(ctx);
        if (backend == nullptr) {
            return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT,
                                std::string(kCaller) + ": ctx was not made by swinup_vulkan_context_create");
        }
        if (cmd == VK_NULL_HANDLE) {
            return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT, std::string(kCaller) + ": cmd is VK_NULL_HANDLE");
        }
        if (desc == nullptr) return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT, std::string(kCaller) + ": desc is NULL");
        // Only struct_size is read before it is known to be this layout's (the check names the
        // accepted size).
        if (desc->struct_size != SWINUP_VULKAN_REACTIVE_MASK_DESC_SIZE_V1) {
            swinup_vulkan_reactive_mask_desc sized;
            swinup_vulkan_reactive_mask_desc_init(&sized);
            sized.struct_size = desc->struct_size;
            const swinup::Validation v = swinup::vulkan_api::validate_vulkan_reactive_mask_desc(sized, ctx->desc);
            return fail_context(ctx, v.status, v.message);
        }
        const swinup::Validation v = swinup::vulkan_api::validate_vulkan_reactive_mask_desc(*desc, ctx->desc);
        if (!v.ok()) return fail_context(ctx, v.status, v.message);
        std::string error;
        const swinup_status status = backend->record_reactive_mask(
            cmd, desc->mask, {bound(desc->opaque_color), bound(desc->final_color), bound(desc->output)}, &error);
        if (status != SWINUP_STATUS_OK) return fail_context(ctx, status, std::string(kCaller) + ": " + error);
        ctx->last_error.clear();
        return SWINUP_STATUS_OK;
    } catch (const std::bad_alloc&) {
        return fail_context(ctx, SWINUP_STATUS_OUT_OF_MEMORY, std::string(kCaller) + ": out of host memory");
    } catch (...) {
        return fail_context(ctx, SWINUP_STATUS_INTERNAL, std::string(kCaller) + ": internal error");
    }
}

swinup_status swinup_vulkan_abandon_frame(swinup_context* ctx, VkCommandBuffer cmd) {
    constexpr const char* kCaller = "swinup_vulkan_abandon_frame";
    if (ctx == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, std::string(kCaller) + ": ctx is NULL");
    try {
        if (cuda_backend_of(ctx) != nullptr) {
            return fail_context(ctx, SWINUP_STATUS_UNSUPPORTED,
                                std::string(kCaller) + ": the CUDA backend on Vulkan images records nothing into "
                                                       "command buffers (its frames are enqueued on its stream, where "
                                                       "they wait for the application's semaphore)");
        }
        VulkanApiBackend* backend = vulkan_backend_of(ctx);
        if (backend == nullptr) {
            return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT,
                                std::string(kCaller) + ": ctx was not made by swinup_vulkan_context_create");
        }
        if (cmd == VK_NULL_HANDLE) {
            return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT, std::string(kCaller) + ": cmd is VK_NULL_HANDLE");
        }
        std::string error;
        swinup::ContextSequencePoint restored;
        size_t frames = 0;
        const swinup_status status = backend->abandon(cmd, &restored, &frames, &error);
        if (status != SWINUP_STATUS_OK) return fail_context(ctx, status, std::string(kCaller) + ": " + error);
        if (frames > 0) swinup::restore_sequence_point(ctx, restored);
        ctx->last_error.clear();
        return SWINUP_STATUS_OK;
    } catch (const std::bad_alloc&) {
        return fail_context(ctx, SWINUP_STATUS_OUT_OF_MEMORY, std::string(kCaller) + ": out of host memory");
    } catch (...) {
        return fail_context(ctx, SWINUP_STATUS_INTERNAL, std::string(kCaller) + ": internal error");
    }
}

swinup_status swinup_vulkan_release_image(swinup_context* ctx, VkImage image) {
    return release_imports(ctx, "swinup_vulkan_release_image", [image](CudaInteropBackend& b, std::string* error) {
        return b.release_image(image, error);
    });
}

swinup_status swinup_vulkan_release_buffer(swinup_context* ctx, VkBuffer buffer) {
    return release_imports(ctx, "swinup_vulkan_release_buffer", [buffer](CudaInteropBackend& b, std::string* error) {
        return b.release_buffer(buffer, error);
    });
}

swinup_status swinup_vulkan_release_semaphore(swinup_context* ctx, VkSemaphore semaphore) {
    return release_imports(ctx, "swinup_vulkan_release_semaphore",
                           [semaphore](CudaInteropBackend& b, std::string* error) {
                               return b.release_semaphore(semaphore, error);
                           });
}

}  // extern "C"
