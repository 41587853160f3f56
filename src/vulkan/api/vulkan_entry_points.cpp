// The C entry points of include/swinup/swinup_vulkan.h. They follow swinup.h's rules (api/context.cpp):
// every field is validated before anything runs, failures are reported through swinup_last_error,
// no exception crosses, and a refused or failed frame leaves the temporal state as it was.
#include <cstring>
#include <new>
#include <string>

#include "api/context_state.h"
#include "api/raw_enum.h"
#include "swinup/swinup_vulkan.h"
#include "vulkan/api/vulkan_api_backend.h"
#include "vulkan/api/vulkan_dispatch_validation.h"

namespace {

using swinup::fail_context;
using swinup::fail_thread;
using swinup::vulkan_api::VulkanApiBackend;

swinup::vulkan_api::BoundImage bound(const swinup_vulkan_image& i) {
    return {i.image, i.view, i.format, i.layout};
}

VulkanApiBackend* vulkan_backend_of(swinup_context* ctx) {
    return dynamic_cast<VulkanApiBackend*>(ctx->backend.get());
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
    for (swinup_vulkan_image* i : {&desc->color, &desc->depth, &desc->motion_vectors, &desc->output, &desc->exposure}) {
        i->format = VK_FORMAT_UNDEFINED;
        i->layout = VK_IMAGE_LAYOUT_UNDEFINED;
    }
}

swinup_status swinup_vulkan_context_create(const swinup_context_desc* desc, const swinup_vulkan_device_desc* device,
                                           swinup_context** out) {
    if (out != nullptr) *out = nullptr;
    try {
        if (device != nullptr) {
            const swinup::Validation v = swinup::vulkan_api::validate_vulkan_device_desc(*device);
            if (!v.ok()) return fail_thread(v.status, v.message);
        }
        if (desc != nullptr) {
            // The backend field keeps its meaning: what runs the frame on these Vulkan images.
            const int64_t backend = swinup::raw_enum(desc->backend);
            if (backend == SWINUP_BACKEND_CUDA) {
                return fail_thread(SWINUP_STATUS_UNSUPPORTED,
                                   "context_desc.backend: SWINUP_BACKEND_CUDA on Vulkan images (through external "
                                   "memory) is not available in this version; use SWINUP_BACKEND_VULKAN");
            }
            if (backend == SWINUP_BACKEND_CPU) {
                return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT,
                                   "context_desc.backend: SWINUP_BACKEND_CPU cannot record into Vulkan command "
                                   "buffers; use SWINUP_BACKEND_VULKAN (or swinup_context_create for the CPU)");
            }
        }
        const swinup::BackendMaker make = [device](const swinup_context_desc& d,
                                                   const std::shared_ptr<const swinup::Weights>& weights,
                                                   swinup_status* status, std::string* message)
            -> std::unique_ptr<swinup::Backend> {
            return swinup::vulkan_api::make_vulkan_api_backend(d, weights, device, status, message);
        };
        return swinup::create_context("swinup_vulkan_context_create", desc, make, out);
    } catch (const std::bad_alloc&) {
        return fail_thread(SWINUP_STATUS_OUT_OF_MEMORY, "swinup_vulkan_context_create: out of host memory");
    } catch (...) {
        return fail_thread(SWINUP_STATUS_INTERNAL, "swinup_vulkan_context_create: internal error");
    }
}

swinup_status swinup_vulkan_context_get_device(const swinup_context* ctx, swinup_vulkan_device_desc* out) {
    if (ctx == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_vulkan_context_get_device: ctx is NULL");
    if (out == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_vulkan_context_get_device: out is NULL");
    try {
        const auto* backend = dynamic_cast<const VulkanApiBackend*>(ctx->backend.get());
        if (backend == nullptr) {
            return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT,
                               "swinup_vulkan_context_get_device: ctx was not made by swinup_vulkan_context_create");
        }
        *out = backend->device();
        swinup::clear_thread_error();
        return SWINUP_STATUS_OK;
    } catch (...) {
        return fail_thread(SWINUP_STATUS_INTERNAL, "swinup_vulkan_context_get_device: internal error");
    }
}

swinup_status swinup_vulkan_record_dispatch(swinup_context* ctx, VkCommandBuffer cmd,
                                            const swinup_vulkan_dispatch_desc* desc) {
    if (ctx == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_vulkan_record_dispatch: ctx is NULL");
    try {
        VulkanApiBackend* backend = vulkan_backend_of(ctx);
        if (backend == nullptr) {
            return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT,
                                "swinup_vulkan_record_dispatch: ctx was not made by swinup_vulkan_context_create");
        }
        if (cmd == VK_NULL_HANDLE) {
            return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT, "swinup_vulkan_record_dispatch: cmd is VK_NULL_HANDLE");
        }
        if (desc == nullptr) {
            return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT, "swinup_vulkan_record_dispatch: desc is NULL");
        }
        const swinup::Validation v = swinup::vulkan_api::validate_vulkan_dispatch_desc(*desc, ctx->desc);
        if (!v.ok()) return fail_context(ctx, v.status, v.message);

        swinup::vulkan_api::FrameImages images;
        images.color = bound(desc->color);
        images.depth = bound(desc->depth);
        images.motion_vectors = bound(desc->motion_vectors);
        images.output = bound(desc->output);
        if (desc->exposure.image != VK_NULL_HANDLE && (ctx->desc.flags & SWINUP_FLAG_AUTO_EXPOSURE) == 0) {
            images.exposure = bound(desc->exposure);
        }
        std::string error;
        const uint64_t frame_index = swinup::frame_index_for(*ctx, desc->frame);
        const swinup_status status = backend->record(cmd, desc->frame, images, frame_index, &error);
        if (status != SWINUP_STATUS_OK) return fail_context(ctx, status, error);
        swinup::frame_succeeded(ctx, frame_index);
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

}  // extern "C"
