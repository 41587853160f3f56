// The C API (include/swinup/swinup.h): descriptor validation, weights, backend choice, the
// per-context last error. No exception crosses this boundary: every entry point catches.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "api/backend.h"
#include "api/context_state.h"
#include "api/dispatch_warnings.h"
#include "api/jitter_convention.h"
#include "api/log.h"
#include "api/raw_enum.h"
#include "api/struct_size.h"
#include "frame/halton_jitter.h"
#include "frame/pixel_ops.h"
#include "api/validation.h"
#include "model/model_spec.h"
#include "model/weights.h"
#include "swinup/swinup.h"

namespace {

// The last failure of a call that reports on the thread rather than a context (create, the
// helpers, get_info, a call given a NULL ctx); each of them clears it when it succeeds, so that
// swinup_last_error(NULL) is "" after a successful call, as the header promises.
thread_local std::string t_last_error;

using swinup::fail_context;
using swinup::fail_thread;

const char* variant_text(swinup_variant v) { return v == SWINUP_VARIANT_FULL ? "full" : "lite"; }

// The backend creation would make for a validated descriptor, before it is made: AUTO is CUDA
// when a usable GPU is present (creation may still fall back to the CPU), CUDA is refused when
// this build or machine has none; VULKAN is VULKAN (whether a device serves it shows when the
// estimate makes it: vulkan_memory_estimate). Sets *status and *message when refused.
bool planned_backend(const swinup_context_desc& d, swinup_backend* backend, swinup_status* status,
                     std::string* message) {
    if (d.backend == SWINUP_BACKEND_VULKAN) {
        *backend = SWINUP_BACKEND_VULKAN;
    } else if (d.backend == SWINUP_BACKEND_CPU) {
        *backend = SWINUP_BACKEND_CPU;
    } else if (swinup::cuda_backend_available()) {
        *backend = SWINUP_BACKEND_CUDA;
    } else if (d.backend == SWINUP_BACKEND_AUTO) {
        *backend = SWINUP_BACKEND_CPU;
    } else {
        *status = SWINUP_STATUS_UNSUPPORTED;
        *message = "context_desc.backend: SWINUP_BACKEND_CUDA: this build has no CUDA backend or no CUDA "
                   "device of sm_89 or newer is present";
        return false;
    }
    return true;
}

// The memory a context holds, from its backend's figures and its weights (embedded weights are
// shared by the process: reported apart).
swinup_memory_requirements memory_requirements(swinup_backend backend, const swinup::BackendMemory& held,
                                               const swinup::Weights& weights, bool embedded) {
    swinup_memory_requirements r;
    std::memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    r.backend = backend;
    r.host_bytes = held.host_bytes + (embedded ? 0 : weights.heap_bytes());
    r.device_bytes = held.device_bytes;
    r.graph_device_bytes = held.graph_device_bytes;
    r.shared_host_bytes = embedded ? weights.heap_bytes() : 0;
    return r;
}

// Writes the struct_size bytes the caller asked for (checked to be an accepted size).
void write_requirements(const swinup_memory_requirements& full, swinup_memory_requirements* out) {
    const uint32_t size = out->struct_size;
    std::memcpy(static_cast<void*>(out), &full, size);
    out->struct_size = size;
}

// Loads the weights the descriptor names; on failure returns the status and sets *message.
std::shared_ptr<const swinup::Weights> load_weights(const swinup_context_desc& d, std::string* origin,
                                                    swinup_status* status, std::string* message) {
    std::string error;
    std::shared_ptr<const swinup::Weights> w;
    const swinup::Variant variant = d.variant == SWINUP_VARIANT_FULL ? swinup::Variant::full : swinup::Variant::lite;
    switch (d.weights_source) {
        case SWINUP_WEIGHTS_PATH: {
            bool io_error = false;
            w = swinup::weights_load_file(d.weights_path, &error, &io_error);
            *origin = std::string("file ") + d.weights_path;
            if (!w) {
                *status = io_error ? SWINUP_STATUS_IO_ERROR : SWINUP_STATUS_WEIGHTS_INVALID;
                *message = "context_desc.weights_path: " + error;
            }
            break;
        }
        case SWINUP_WEIGHTS_MEMORY:
            w = swinup::weights_load_memory(d.weights_data, d.weights_size, &error);
            *origin = "memory";
            if (!w) {
                *status = SWINUP_STATUS_WEIGHTS_INVALID;
                *message = "context_desc.weights_data: " + error;
            }
            break;
        default:
            w = swinup::weights_load_embedded(variant, &error);
            *origin = std::string("embedded ") + variant_text(d.variant);
            if (!w) {
                *status = SWINUP_STATUS_WEIGHTS_INVALID;
                *message = std::string("context_desc.weights_source: the embedded ") + variant_text(d.variant) +
                           " weights: " + error;
            }
            break;
    }
    if (w && w->config.variant != variant) {
        *status = SWINUP_STATUS_WEIGHTS_INVALID;
        *message = std::string("context_desc.variant: asks for the ") + variant_text(d.variant) +
                   " network, but the weights (" + *origin + ") are for the " +
                   swinup::variant_name(w->config.variant) + " network";
        return nullptr;
    }
    return w;
}

// Creates the backend the descriptor asks for (auto: CUDA when available, else or on failure CPU).
std::unique_ptr<swinup::Backend> create_backend(const swinup_context_desc& d,
                                                const std::shared_ptr<const swinup::Weights>& weights,
                                                const swinup::Log& log, swinup_status* status,
                                                std::string* message) {
    std::string error;
    if (d.backend == SWINUP_BACKEND_VULKAN) {  // only when asked for: AUTO stays CUDA-then-CPU
        std::unique_ptr<swinup::Backend> vulkan = swinup::make_vulkan_backend(d, weights, message, status);
        return vulkan;
    }
    if (d.backend == SWINUP_BACKEND_CUDA || (d.backend == SWINUP_BACKEND_AUTO && swinup::cuda_backend_available())) {
        std::unique_ptr<swinup::Backend> cuda = swinup::make_cuda_backend(d, weights, &error);
        if (cuda) return cuda;
        if (d.backend == SWINUP_BACKEND_CUDA) {
            *status = swinup::cuda_backend_available() ? SWINUP_STATUS_DEVICE_ERROR : SWINUP_STATUS_UNSUPPORTED;
            *message = "context_desc.backend: SWINUP_BACKEND_CUDA: " + error;
            return nullptr;
        }
        // auto: fall back to the CPU; get_info reports the backend chosen
        log.warning("context_desc.backend: SWINUP_BACKEND_AUTO: a CUDA device is present but the CUDA "
                    "backend failed (" + error + "); using the CPU backend");
        error.clear();
    }
    std::unique_ptr<swinup::Backend> cpu = swinup::make_cpu_backend(d, weights, &error);
    if (!cpu) {
        *status = SWINUP_STATUS_INTERNAL;
        *message = error;
    }
    return cpu;
}

// Without masks the GPU backends leave mask_embed out, where the CPU adds its bias (mask_embed of
// zero masks), so weights whose bias is not zero would compute another function there on frames
// without masks (docs/masks.md, "The GPU backends"). "" when `backend` runs these weights.
std::string mask_embed_refusal(swinup_backend backend, const swinup::Weights& weights, const std::string& origin) {
    if (backend == SWINUP_BACKEND_CPU || swinup::mask_embed_absent_is_zero(weights)) return {};
    return "context_desc.weights_source: the weights (" + origin +
           ") have a mask_embed layer with a non-zero bias, which the " + swinup::backend_text(backend) +
           " backend does not run yet (without masks it leaves the layer out instead of adding that bias; the "
           "CPU backend runs them)";
}

void copy_text(char* dst, size_t capacity, const std::string& src) {
    const size_t n = std::min(src.size(), capacity - 1);
    std::memcpy(dst, src.data(), n);
    dst[n] = '\0';
}

}  // namespace

namespace swinup {

swinup_status fail_thread(swinup_status status, std::string message) {
    t_last_error = std::move(message);
    return status;
}

swinup_status fail_context(swinup_context* ctx, swinup_status status, std::string message) {
    ctx->log.error(message);
    ctx->last_error = std::move(message);
    return status;
}

void clear_thread_error() { t_last_error.clear(); }

uint64_t frame_index_for(const swinup_context& ctx, const swinup_dispatch_desc& desc) {
    // A reset restarts the count: the frame is evaluated as a fresh context's first frame.
    return desc.reset != 0 ? 0 : ctx.frame_index;
}

void frame_succeeded(swinup_context* ctx, const swinup_dispatch_desc& desc, uint64_t frame_index) {
    ctx->frame_index = frame_index + 1;
    ctx->last_error.clear();
    ctx->warnings.after_dispatch(desc, ctx->desc, ctx->log);
    ctx->warnings.after_counts(ctx->backend->input_statistics_known(), ctx->log);
}

const char* backend_text(swinup_backend backend) {
    switch (swinup::raw_enum(backend)) {
        case SWINUP_BACKEND_CPU: return "CPU";
        case SWINUP_BACKEND_CUDA: return "CUDA";
        case SWINUP_BACKEND_VULKAN: return "Vulkan";
        case SWINUP_BACKEND_AUTO: return "auto";
    }
    return "unknown";
}

swinup_status create_context(const char* caller, const swinup_context_desc* desc_in,
                             const BackendMaker& make_backend, swinup_context** out) {
    if (out != nullptr) *out = nullptr;
    // Once the descriptor is read, its callback (if any) hears every failure too.
    Log log;
    auto fail = [&log](swinup_status status, std::string message) {
        log.error(message);
        return fail_thread(status, std::move(message));
    };
    try {
        const std::string who = std::string(caller) + ": ";
        if (out == nullptr) return fail(SWINUP_STATUS_INVALID_ARGUMENT, who + "out is NULL");
        if (desc_in == nullptr) return fail(SWINUP_STATUS_INVALID_ARGUMENT, who + "desc is NULL");
        swinup_context_desc desc;
        std::string error;
        if (!read_context_desc(desc_in, &desc, &error)) return fail(SWINUP_STATUS_INVALID_ARGUMENT, error);
        log = Log(desc.log_callback, desc.log_user_data);
        const Validation v = validate_context_desc(desc);
        if (!v.ok()) return fail(v.status, v.message);

        auto ctx = std::make_unique<swinup_context>();
        ctx->desc = desc;
        ctx->desc.weights_path = nullptr;  // the caller's memory: not kept
        ctx->desc.weights_data = nullptr;
        ctx->log = log;
        swinup_status status = SWINUP_STATUS_OK;
        std::string message;
        ctx->weights = load_weights(desc, &ctx->weights_origin, &status, &message);
        if (!ctx->weights) return fail(status, message);
        ctx->backend = make_backend(ctx->desc, ctx->weights, log, &status, &message);
        if (!ctx->backend) return fail(status, message);
        const std::string refusal = mask_embed_refusal(ctx->backend->kind(), *ctx->weights, ctx->weights_origin);
        if (!refusal.empty()) return fail(SWINUP_STATUS_UNSUPPORTED, refusal);
        if ((desc.flags & SWINUP_FLAG_DEBUG_VIEW) != 0 && ctx->backend->kind() == SWINUP_BACKEND_CUDA) {
            return fail(SWINUP_STATUS_UNSUPPORTED,
                        "context_desc.flags: SWINUP_FLAG_DEBUG_VIEW is not drawn by the CUDA backend in this version "
                        "(the CPU and Vulkan backends draw it: set context_desc.backend to one of them)");
        }
        log.info(who + backend_text(ctx->backend->kind()) + " backend on " + ctx->backend->device_name() + ", " +
                 variant_text(desc.variant) + " network (" + ctx->weights_origin + "), render up to " +
                 std::to_string(desc.max_render_width) + "x" + std::to_string(desc.max_render_height) + ", display " +
                 std::to_string(desc.display_width) + "x" + std::to_string(desc.display_height));
        *out = ctx.release();
        t_last_error.clear();
        return SWINUP_STATUS_OK;
    } catch (const std::bad_alloc&) {
        return fail(SWINUP_STATUS_OUT_OF_MEMORY,
                    std::string(caller) + ": out of host memory (the buffers are sized for "
                    "max_render_width x max_render_height and the display size)");
    } catch (const std::exception& e) {
        return fail(SWINUP_STATUS_INTERNAL, std::string(caller) + ": internal error: " + e.what());
    } catch (...) {
        return fail(SWINUP_STATUS_INTERNAL, std::string(caller) + ": internal error");
    }
}

}  // namespace swinup

extern "C" {

void swinup_context_desc_init(swinup_context_desc* desc) {
    if (desc == nullptr) return;
    std::memset(desc, 0, sizeof *desc);
    desc->struct_size = sizeof *desc;
    desc->backend = SWINUP_BACKEND_AUTO;
    desc->device_index = 0;
    desc->variant = SWINUP_VARIANT_LITE;
    desc->precision = SWINUP_PRECISION_EXACT;
    desc->flags = 0;  // LDR colour, render-resolution unjittered MVs, depth 0 near
    desc->output_format = SWINUP_FORMAT_RGBA16F;
    desc->weights_source = SWINUP_WEIGHTS_EMBEDDED;
    desc->num_threads = 0;
}

void swinup_dispatch_desc_init(swinup_dispatch_desc* desc) {
    if (desc == nullptr) return;
    std::memset(desc, 0, sizeof *desc);
    desc->struct_size = sizeof *desc;
    for (swinup_resource* r : {&desc->color, &desc->depth, &desc->motion_vectors, &desc->output, &desc->exposure,
                               &desc->reactive_mask, &desc->transparency_mask}) {
        r->memory = SWINUP_MEMORY_HOST;
        r->format = SWINUP_FORMAT_UNKNOWN;
    }
    desc->exposure_value = 1.0f;
    desc->pre_exposure = 1.0f;
    desc->mv_scale_x = 1.0f;
    desc->mv_scale_y = 1.0f;
    desc->jitter_convention = SWINUP_JITTER_SAMPLE_OFFSET;
}

swinup_status swinup_context_create(const swinup_context_desc* desc, swinup_context** out) {
    return swinup::create_context("swinup_context_create", desc, &create_backend, out);
}

swinup_status swinup_dispatch(swinup_context* ctx, const swinup_dispatch_desc* desc) {
    if (ctx == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_dispatch: ctx is NULL");
    try {
        if (desc == nullptr) return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT, "swinup_dispatch: desc is NULL");
        swinup_dispatch_desc d;
        std::string error;
        if (!swinup::read_dispatch_desc(desc, &d, &error)) return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT, error);
        const swinup::Validation v = swinup::validate_dispatch_desc(d, ctx->desc, ctx->backend->kind());
        if (!v.ok()) return fail_context(ctx, v.status, v.message);
        const swinup_jitter_convention given = d.jitter_convention;  // validated: a value of the enum
        swinup::to_sample_offset_jitter(&d);
        const uint64_t frame_index = swinup::frame_index_for(*ctx, d);
        const swinup_status status = ctx->backend->dispatch(d, frame_index, &error);
        if (status != SWINUP_STATUS_OK) return fail_context(ctx, status, error);
        swinup::frame_succeeded(ctx, d, frame_index);
        ctx->jitter_sign.after_dispatch(d, ctx->desc, given, ctx->log);
        return SWINUP_STATUS_OK;
    } catch (const std::bad_alloc&) {
        return fail_context(ctx, SWINUP_STATUS_OUT_OF_MEMORY, "swinup_dispatch: out of host memory");
    } catch (const std::exception& e) {
        return fail_context(ctx, SWINUP_STATUS_INTERNAL, std::string("swinup_dispatch: internal error: ") + e.what());
    } catch (...) {
        return fail_context(ctx, SWINUP_STATUS_INTERNAL, "swinup_dispatch: internal error");
    }
}

void swinup_context_destroy(swinup_context* ctx) { delete ctx; }

const char* swinup_last_error(const swinup_context* ctx) {
    return ctx != nullptr ? ctx->last_error.c_str() : t_last_error.c_str();
}

const char* swinup_status_name(swinup_status status) {
    switch (swinup::raw_enum(status)) {  // any int a C caller passed (api/raw_enum.h)
        case SWINUP_STATUS_OK: return "SWINUP_STATUS_OK";
        case SWINUP_STATUS_INVALID_ARGUMENT: return "SWINUP_STATUS_INVALID_ARGUMENT";
        case SWINUP_STATUS_UNSUPPORTED: return "SWINUP_STATUS_UNSUPPORTED";
        case SWINUP_STATUS_WEIGHTS_INVALID: return "SWINUP_STATUS_WEIGHTS_INVALID";
        case SWINUP_STATUS_IO_ERROR: return "SWINUP_STATUS_IO_ERROR";
        case SWINUP_STATUS_OUT_OF_MEMORY: return "SWINUP_STATUS_OUT_OF_MEMORY";
        case SWINUP_STATUS_DEVICE_ERROR: return "SWINUP_STATUS_DEVICE_ERROR";
        case SWINUP_STATUS_INTERNAL: return "SWINUP_STATUS_INTERNAL";
    }
    return "SWINUP_STATUS_UNKNOWN";
}

namespace {

// The display / render ratio of a quality mode (FSR 2's), or 0 for a value that is none.
double quality_mode_ratio(int64_t mode) {
    switch (mode) {
        case SWINUP_QUALITY_NATIVE_AA: return 1.0;
        case SWINUP_QUALITY_QUALITY: return 1.5;
        case SWINUP_QUALITY_BALANCED: return 1.7;
        case SWINUP_QUALITY_PERFORMANCE: return 2.0;
        case SWINUP_QUALITY_ULTRA_PERFORMANCE: return 3.0;
        default: return 0.0;
    }
}

// A display axis the queries accept (a context's: 1..kMaxDisplaySize), or the thread's error.
swinup_status check_display_axis(const char* caller, const char* axis, uint32_t display) {
    if (display >= 1 && display <= swinup::kMaxDisplaySize) return SWINUP_STATUS_OK;
    return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, std::string(caller) + ": display_" + axis + ": must be 1.." +
                                                           std::to_string(swinup::kMaxDisplaySize) + ", got " +
                                                           std::to_string(display));
}

}  // namespace

swinup_status swinup_get_upscale_ratio(swinup_quality_mode mode, float* ratio) {
    const int64_t mode_value = swinup::raw_enum(mode);  // any int a C caller passed (api/raw_enum.h)
    const double r = quality_mode_ratio(mode_value);
    if (r == 0.0) {
        return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT,
                           "swinup_get_upscale_ratio: mode: unknown value " + std::to_string(mode_value));
    }
    if (ratio == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_get_upscale_ratio: ratio is NULL");
    *ratio = static_cast<float>(r);
    t_last_error.clear();
    return SWINUP_STATUS_OK;
}

swinup_status swinup_get_render_size_range(uint32_t display_width, uint32_t display_height, uint32_t* min_render_width,
                                           uint32_t* min_render_height, uint32_t* max_render_width,
                                           uint32_t* max_render_height) {
    constexpr const char* kCaller = "swinup_get_render_size_range";
    const struct {
        const char* name;
        uint32_t* out;
    } outs[4] = {{"min_render_width", min_render_width}, {"min_render_height", min_render_height},
                 {"max_render_width", max_render_width}, {"max_render_height", max_render_height}};
    for (const auto& o : outs) {
        if (o.out == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, std::string(kCaller) + ": " + o.name + " is NULL");
    }
    swinup_status s = check_display_axis(kCaller, "width", display_width);
    if (s == SWINUP_STATUS_OK) s = check_display_axis(kCaller, "height", display_height);
    if (s != SWINUP_STATUS_OK) return s;
    // The context's rule: render <= display <= 3 x render, per axis.
    *min_render_width = (display_width + 2) / 3;
    *min_render_height = (display_height + 2) / 3;
    *max_render_width = display_width;
    *max_render_height = display_height;
    t_last_error.clear();
    return SWINUP_STATUS_OK;
}

swinup_status swinup_get_render_size(swinup_quality_mode mode, uint32_t display_width, uint32_t display_height,
                                     uint32_t* render_width, uint32_t* render_height) {
    const int64_t mode_value = swinup::raw_enum(mode);  // any int a C caller passed (api/raw_enum.h)
    const double ratio = quality_mode_ratio(mode_value);
    if (ratio == 0.0) {
        return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT,
                           "swinup_get_render_size: mode: unknown value " + std::to_string(mode_value));
    }
    if (render_width == nullptr || render_height == nullptr) {
        return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT,
                           std::string("swinup_get_render_size: ") + (render_width == nullptr ? "render_width" : "render_height") +
                               " is NULL");
    }
    const uint32_t display[2] = {display_width, display_height};
    uint32_t render[2];
    for (int i = 0; i < 2; ++i) {
        if (display[i] < 1 || display[i] > swinup::kMaxDisplaySize) {
            return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT,
                               std::string("swinup_get_render_size: display_") + (i == 0 ? "width" : "height") +
                                   ": must be 1.." + std::to_string(swinup::kMaxDisplaySize) + ", got " +
                                   std::to_string(display[i]));
        }
        // Nearest pixel, at least 1, and never so small that display / render exceeds 3 (which
        // rounding could cause for tiny displays): the result is always a valid context size.
        const auto nearest = static_cast<uint32_t>(std::floor(display[i] / ratio + 0.5));
        const uint32_t smallest = (display[i] + 2) / 3;
        render[i] = std::min(display[i], std::max({nearest, smallest, 1u}));
    }
    *render_width = render[0];
    *render_height = render[1];
    t_last_error.clear();
    return SWINUP_STATUS_OK;
}

uint32_t swinup_get_jitter_phase_count(float scale) {
    // Outside the supported range [1, 3] (or NaN) the nearest supported scale is used.
    double s = std::isnan(scale) ? 1.0 : std::clamp(static_cast<double>(scale), 1.0, 3.0);
    return static_cast<uint32_t>(std::ceil(8.0 * s * s));
}

swinup_status swinup_get_jitter(uint32_t phase, uint32_t count, float* jitter_x, float* jitter_y) {
    if (jitter_x == nullptr || jitter_y == nullptr) {
        return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT,
                           std::string("swinup_get_jitter: ") + (jitter_x == nullptr ? "jitter_x" : "jitter_y") + " is NULL");
    }
    if (count == 0) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_get_jitter: count must be at least 1");
    swinup::halton_jitter(phase, count, jitter_x, jitter_y);
    t_last_error.clear();
    return SWINUP_STATUS_OK;
}

swinup_status swinup_context_get_info(const swinup_context* ctx, swinup_context_info* info) {
    if (ctx == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_context_get_info: ctx is NULL");
    if (info == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_context_get_info: info is NULL");
    try {
        std::memset(info, 0, sizeof *info);
        info->backend = ctx->backend->kind();
        info->variant = ctx->desc.variant;
        info->precision = ctx->desc.precision;
        copy_text(info->device_name, sizeof info->device_name, ctx->backend->device_name());
        std::string weights = ctx->weights_origin;
        if (!ctx->weights->description.empty()) weights += ": " + ctx->weights->description;
        copy_text(info->weights_description, sizeof info->weights_description, weights);
        info->parameter_count = ctx->weights->parameter_count();
        t_last_error.clear();  // its failures are reported on the thread, so its success clears there
        return SWINUP_STATUS_OK;
    } catch (...) {
        return fail_thread(SWINUP_STATUS_INTERNAL, "swinup_context_get_info: internal error");
    }
}

swinup_status swinup_get_version(swinup_version_info* version) {
    if (version == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_get_version: version is NULL");
    const std::string size_error = swinup::version_info_size_error("swinup_get_version: version->struct_size",
                                                                   version->struct_size);
    if (!size_error.empty()) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, size_error);
    swinup_version_info v;
    std::memset(&v, 0, sizeof v);
    v.major = SWINUP_VERSION_MAJOR;  // as this library was compiled
    v.minor = SWINUP_VERSION_MINOR;
    v.patch = SWINUP_VERSION_PATCH;
    v.weights_format_oldest = swinup::kOldestFormatVersion;
    v.weights_format_newest = swinup::kFormatVersion;
    v.struct_size = version->struct_size;
    std::memcpy(static_cast<void*>(version), &v, version->struct_size);
    t_last_error.clear();
    return SWINUP_STATUS_OK;
}

swinup_status swinup_query_memory(const swinup_context_desc* desc_in, swinup_memory_requirements* requirements) {
    if (desc_in == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_query_memory: desc is NULL");
    if (requirements == nullptr)
        return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_query_memory: requirements is NULL");
    try {
        std::string error = swinup::memory_requirements_size_error("swinup_query_memory: requirements->struct_size",
                                                                   requirements->struct_size);
        if (!error.empty()) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, error);
        swinup_context_desc desc;
        if (!swinup::read_context_desc(desc_in, &desc, &error)) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, error);
        const swinup::Validation v = swinup::validate_context_desc(desc);
        if (!v.ok()) return fail_thread(v.status, v.message);
        swinup_status status = SWINUP_STATUS_OK;
        std::string origin;
        const std::shared_ptr<const swinup::Weights> weights = load_weights(desc, &origin, &status, &error);
        if (!weights) return fail_thread(status, error);
        swinup_backend backend = SWINUP_BACKEND_CPU;
        if (!planned_backend(desc, &backend, &status, &error)) return fail_thread(status, error);
        error = mask_embed_refusal(backend, *weights, origin);  // as creation refuses them
        if (!error.empty()) return fail_thread(SWINUP_STATUS_UNSUPPORTED, error);
        swinup::BackendMemory held;
        if (backend == SWINUP_BACKEND_VULKAN) {
            if (!swinup::vulkan_memory_estimate(desc, weights, &held, &status, &error)) return fail_thread(status, error);
        } else {
            held = backend == SWINUP_BACKEND_CUDA ? swinup::cuda_memory_estimate(desc, *weights)
                                                  : swinup::cpu_memory_estimate(desc, weights);
        }
        write_requirements(memory_requirements(backend, held, *weights, desc.weights_source == SWINUP_WEIGHTS_EMBEDDED),
                           requirements);
        t_last_error.clear();
        return SWINUP_STATUS_OK;
    } catch (const std::bad_alloc&) {
        return fail_thread(SWINUP_STATUS_OUT_OF_MEMORY, "swinup_query_memory: out of host memory");
    } catch (const std::exception& e) {
        return fail_thread(SWINUP_STATUS_INTERNAL, std::string("swinup_query_memory: internal error: ") + e.what());
    } catch (...) {
        return fail_thread(SWINUP_STATUS_INTERNAL, "swinup_query_memory: internal error");
    }
}

swinup_status swinup_context_get_memory(const swinup_context* ctx, swinup_memory_requirements* requirements) {
    if (ctx == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_context_get_memory: ctx is NULL");
    if (requirements == nullptr)
        return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_context_get_memory: requirements is NULL");
    const std::string error = swinup::memory_requirements_size_error(
        "swinup_context_get_memory: requirements->struct_size", requirements->struct_size);
    if (!error.empty()) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, error);
    write_requirements(memory_requirements(ctx->backend->kind(), ctx->backend->memory(), *ctx->weights,
                                           ctx->desc.weights_source == SWINUP_WEIGHTS_EMBEDDED),
                       requirements);
    t_last_error.clear();
    return SWINUP_STATUS_OK;
}

swinup_status swinup_context_get_input_statistics(const swinup_context* ctx, swinup_input_statistics* stats) {
    if (ctx == nullptr)
        return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_context_get_input_statistics: ctx is NULL");
    if (stats == nullptr)
        return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_context_get_input_statistics: stats is NULL");
    const std::string error = swinup::input_statistics_size_error(
        "swinup_context_get_input_statistics: stats->struct_size", stats->struct_size);
    if (!error.empty()) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, error);
    try {
        swinup::InputStatistics counted;
        std::string backend_error;
        const swinup_status status = ctx->backend->input_statistics(&counted, &backend_error);
        if (status != SWINUP_STATUS_OK)
            return fail_thread(status, "swinup_context_get_input_statistics: " + backend_error);
        swinup_input_statistics full;
        std::memset(&full, 0, sizeof full);
        full.frames = counted.frames;
        full.color_nonfinite = counted.color_nonfinite;
        full.depth_nonfinite = counted.depth_nonfinite;
        full.motion_nonfinite = counted.motion_nonfinite;
        full.reactive_nonfinite = counted.reactive_nonfinite;
        full.transparency_nonfinite = counted.transparency_nonfinite;
        full.reactive_out_of_range = counted.reactive_out_of_range;
        full.transparency_out_of_range = counted.transparency_out_of_range;
        const uint32_t size = stats->struct_size;  // an accepted size: write that many bytes
        full.struct_size = size;
        std::memcpy(static_cast<void*>(stats), &full, size);
        t_last_error.clear();
        return SWINUP_STATUS_OK;
    } catch (...) {
        return fail_thread(SWINUP_STATUS_INTERNAL, "swinup_context_get_input_statistics: internal error");
    }
}

void swinup_reactive_mask_desc_init(swinup_reactive_mask_desc* desc) {
    if (desc == nullptr) return;
    std::memset(desc, 0, sizeof *desc);
    desc->struct_size = sizeof *desc;
    for (swinup_resource* r : {&desc->opaque_color, &desc->final_color, &desc->output}) {
        r->memory = SWINUP_MEMORY_HOST;
        r->format = SWINUP_FORMAT_UNKNOWN;
    }
    desc->scale = 1.0f;
    desc->threshold = 0.2f;
    desc->binary_value = 0.9f;
    desc->flags = SWINUP_REACTIVE_TONEMAP;
}

swinup_status swinup_generate_reactive_mask(swinup_context* ctx, const swinup_reactive_mask_desc* desc) {
    if (ctx == nullptr) return fail_thread(SWINUP_STATUS_INVALID_ARGUMENT, "swinup_generate_reactive_mask: ctx is NULL");
    try {
        if (desc == nullptr)
            return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT, "swinup_generate_reactive_mask: desc is NULL");
        swinup_reactive_mask_desc d;
        std::string error;
        if (!swinup::read_reactive_mask_desc(desc, &d, &error))
            return fail_context(ctx, SWINUP_STATUS_INVALID_ARGUMENT, error);
        const swinup::Validation v = swinup::validate_reactive_mask_desc(d, ctx->desc, ctx->backend->kind());
        if (!v.ok()) return fail_context(ctx, v.status, v.message);
        const swinup_status status = ctx->backend->generate_reactive_mask(d, &error);
        if (status != SWINUP_STATUS_OK)
            return fail_context(ctx, status, "swinup_generate_reactive_mask: " + error);
        ctx->last_error.clear();
        return SWINUP_STATUS_OK;
    } catch (const std::bad_alloc&) {
        return fail_context(ctx, SWINUP_STATUS_OUT_OF_MEMORY, "swinup_generate_reactive_mask: out of host memory");
    } catch (...) {
        return fail_context(ctx, SWINUP_STATUS_INTERNAL, "swinup_generate_reactive_mask: internal error");
    }
}

}  // extern "C"
