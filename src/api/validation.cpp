#include "api/validation.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <stdexcept>
#include <utility>

#include "api/raw_enum.h"
#include "frame/formats.h"
#include "frame/input_image.h"
#include "frame/mask_pixel.h"
#include "text/number_text.h"

namespace swinup {

namespace {

// A bad value in its exact form ("%g" printed the jitter 0.50000006 as "got 0.5").
std::string number(float v) { return shortest_text(v); }

std::string number(uint64_t v) { return std::to_string(v); }

Validation invalid(std::string message) {
    return {SWINUP_STATUS_INVALID_ARGUMENT, std::move(message)};
}

// Every value of swinup_format: a raw value is compared with these, never converted to the enum
// before it is known to be one of them (api/raw_enum.h says why).
constexpr swinup_format kFormats[] = {
    SWINUP_FORMAT_UNKNOWN, SWINUP_FORMAT_RGBA16F, SWINUP_FORMAT_RGBA32F, SWINUP_FORMAT_RGB16F,
    SWINUP_FORMAT_RGB32F,  SWINUP_FORMAT_R32F,    SWINUP_FORMAT_RG16F,   SWINUP_FORMAT_RG32F,
    SWINUP_FORMAT_R10G10B10A2, SWINUP_FORMAT_RGBA8, SWINUP_FORMAT_R8_UNORM, SWINUP_FORMAT_R16F,
    SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D24_UNORM_S8, SWINUP_FORMAT_D32F_S8};

std::string describe_format(int64_t raw) {
    for (swinup_format f : kFormats)
        if (raw == f) return format_name(f);
    return "unknown value " + std::to_string(raw);
}

// Up to eight formats a field accepts (a fixed array: validating a dispatch allocates nothing).
struct FormatSet {
    swinup_format formats[8] = {};
    size_t count = 0;
    FormatSet(std::initializer_list<swinup_format> list) {
        for (swinup_format f : list) formats[count++] = f;
    }
    bool contains(int64_t raw) const {
        for (size_t i = 0; i < count; ++i)
            if (raw == formats[i]) return true;
        return false;
    }
};

std::string format_list(const FormatSet& set) {
    std::string s;
    for (size_t i = 0; i < set.count; ++i) {
        if (i > 0) s += (i + 1 == set.count) ? " or " : ", ";
        s += format_name(set.formats[i]);
    }
    return s;
}

const char* memory_name(int64_t raw) {
    switch (raw) {
        case SWINUP_MEMORY_HOST: return "SWINUP_MEMORY_HOST";
        case SWINUP_MEMORY_CUDA: return "SWINUP_MEMORY_CUDA";
        case SWINUP_MEMORY_EXTERNAL: return "SWINUP_MEMORY_EXTERNAL";
    }
    return nullptr;
}

// One resource of a dispatch: where it lives, its pointer, format, size and pitch.
struct ResourceRule {
    const char* name;  // "color", "depth", ...
    FormatSet formats;
    uint32_t width, height;
    const char* size_origin;  // what the expected size is, e.g. "render size", "display size"
    bool output;
    const char* prefix = "dispatch";  // the descriptor in messages
};

Validation check_resource(const swinup_resource& r, const ResourceRule& rule, swinup_backend backend) {
    // Messages are built only on failure: a valid dispatch allocates nothing here.
    const auto field = [&] { return std::string(rule.prefix) + "." + rule.name; };
    const auto pointer_field = [&] { return field() + (rule.output ? ".data_mut" : ".data"); };
    const int64_t memory_value = raw_enum(r.memory);
    const char* memory = memory_name(memory_value);
    if (memory == nullptr) {
        return invalid(field() + ".memory: unknown value " + std::to_string(memory_value) +
                       " (expected SWINUP_MEMORY_HOST, SWINUP_MEMORY_CUDA or SWINUP_MEMORY_EXTERNAL)");
    }
    if (backend == SWINUP_BACKEND_CPU && memory_value != SWINUP_MEMORY_HOST) {
        return {SWINUP_STATUS_UNSUPPORTED,
                field() + ".memory: " + memory + " needs the CUDA backend; this context runs on the CPU "
                "backend, which reads SWINUP_MEMORY_HOST only"};
    }
    if (backend == SWINUP_BACKEND_VULKAN && memory_value != SWINUP_MEMORY_HOST) {
        return {SWINUP_STATUS_UNSUPPORTED,
                field() + ".memory: " + memory + " is not read by the Vulkan backend, which takes SWINUP_MEMORY_HOST "
                "here; Vulkan images go through " +
                    (std::string(rule.prefix) == "reactive_mask_desc" ? "swinup_vulkan_record_reactive_mask"
                                                                      : "swinup_vulkan_record_dispatch") +
                    " (swinup_vulkan.h)"};
    }
    const void* pointer = rule.output ? r.data_mut : r.data;
    if (pointer == nullptr) {
        return invalid(pointer_field() + ": is NULL" + (rule.output ? " (outputs are written through data_mut)" : ""));
    }

    const int64_t format_value = raw_enum(r.format);
    if (!rule.formats.contains(format_value)) {
        return invalid(field() + ".format: expected " + format_list(rule.formats) + ", got " +
                       describe_format(format_value));
    }
    const swinup_format format = static_cast<swinup_format>(format_value);  // one of rule.formats
    const size_t element = format_element_bytes(format);
    if (reinterpret_cast<uintptr_t>(pointer) % element != 0) {
        return invalid(pointer_field() + ": is not aligned to " + number(uint64_t{element}) +
                       " bytes (the element size of " + format_name(format) + ")");
    }
    if (r.width != rule.width || r.height != rule.height) {
        return invalid(field() + (r.width != rule.width ? ".width" : ".height") + ": expected " +
                       number(uint64_t{rule.width}) + "x" + number(uint64_t{rule.height}) + " (" +
                       rule.size_origin + "), got " + number(uint64_t{r.width}) + "x" +
                       number(uint64_t{r.height}));
    }
    if (r.row_pitch != 0) {
        const size_t row = static_cast<size_t>(r.width) * format_pixel_bytes(format);
        if (r.row_pitch < row) {
            return invalid(field() + ".row_pitch: " + number(uint64_t{r.row_pitch}) +
                           " bytes is less than one row (" + number(uint64_t{row}) + " bytes)");
        }
        if (r.row_pitch % element != 0) {
            return invalid(field() + ".row_pitch: " + number(uint64_t{r.row_pitch}) +
                           " is not a multiple of " + number(uint64_t{element}) + " bytes (the element size of " +
                           format_name(format) + ")");
        }
    }
    // The backends address row y at pointer + y * pitch. When the resource's last byte lies past
    // the end of the address space those addresses wrap around: the backend reads or writes far
    // outside the resource, and the overlap check below would see a wrapped span. The usual cause
    // is a negative (bottom-up) pitch cast to size_t.
    const size_t row = static_cast<size_t>(r.width) * format_pixel_bytes(format);
    const size_t rows_before_last = static_cast<size_t>(r.height) - 1;  // height >= 1 checked above
    // The largest span whose end (pointer + span, as the overlap check computes it) does not wrap.
    const uintptr_t room = UINTPTR_MAX - reinterpret_cast<uintptr_t>(pointer);
    if (room < row || (rows_before_last != 0 && resource_row_pitch(r) > (room - row) / rows_before_last)) {
        if (r.row_pitch != 0) {
            return invalid(field() + ".row_pitch: " + number(uint64_t{r.row_pitch}) + " bytes x " +
                           number(uint64_t{r.height}) + " rows runs past the end of the address space (a "
                           "negative pitch cast to size_t? rows go downwards in memory from the first "
                           "pixel: bottom-up images are not supported)");
        }
        char address[32];
        std::snprintf(address, sizeof address, "%p", pointer);
        return invalid(pointer_field() + ": " + address + " plus the resource's " +
                       number(uint64_t{rows_before_last * row + row}) +
                       " bytes runs past the end of the address space");
    }
    return {};
}

// Bytes a resource spans from its first pixel to the end of its last (check_resource has made
// sure this neither overflows nor runs past the end of the address space).
size_t resource_span(const swinup_resource& r) {
    return (static_cast<size_t>(r.height) - 1) * resource_row_pitch(r) +
           static_cast<size_t>(r.width) * format_pixel_bytes(r.format);
}

bool overlaps(const void* a, size_t a_size, const void* b, size_t b_size) {
    const uintptr_t a0 = reinterpret_cast<uintptr_t>(a), b0 = reinterpret_cast<uintptr_t>(b);
    return a0 < b0 + b_size && b0 < a0 + a_size;
}

// "reactive_mask", "transparency_mask": the dispatch fields, in MaskIndex order.
constexpr const char* kMaskNames[kMasks] = {"reactive_mask", "transparency_mask"};

// A host mask's values: each finite value must lie in [0, 1] (a fraction of the history to
// replace, or of the pixel that is composited). NaN and Inf pass: staging reads them as 0 and
// counts them, as it does for the other inputs. UNORM8 cannot leave [0, 1] and is not scanned.
Validation check_mask_values(const swinup_resource& r, const char* name) {
    if (raw_enum(r.format) == SWINUP_FORMAT_R8_UNORM) return {};
    const InputImage image = input_image(r);
    for (int y = 0; y < image.height; ++y) {
        for (int x = 0; x < image.width; ++x) {
            bool nonfinite, out_of_range;
            const float value = read_mask_input(image, x, y);
            stage_mask(value, &nonfinite, &out_of_range);
            if (out_of_range) {
                return invalid(std::string("dispatch.") + name + ": pixel (" + number(uint64_t(x)) + ", " +
                               number(uint64_t(y)) + ") is " + number(value) +
                               ", outside [0, 1] (a mask value is a fraction: 0 = not at all, 1 = fully)");
            }
        }
    }
    return {};
}

Validation check_jitter(const char* prefix, const char* field, float v) {
    if (!std::isfinite(v) || v < -0.5f || v > 0.5f) {
        return invalid(std::string(prefix) + "." + field + ": must be a finite number in [-0.5, 0.5], got " +
                       number(v));
    }
    return {};
}

Validation check_finite(const char* prefix, const char* field, float v, bool non_negative) {
    if (!std::isfinite(v) || (non_negative && v < 0.0f)) {
        return invalid(std::string(prefix) + "." + field + ": must be a finite" +
                       (non_negative ? " non-negative" : "") + " number, got " + number(v));
    }
    return {};
}

}  // namespace

Validation validate_context_desc(const swinup_context_desc& d) {
    // struct_size was checked when the caller's descriptor was read (api/struct_size.h).
    // Every enum field as the integer the caller stored (api/raw_enum.h).
    const int64_t backend = raw_enum(d.backend);
    const int64_t variant = raw_enum(d.variant);
    const int64_t precision = raw_enum(d.precision);
    const int64_t output_format = raw_enum(d.output_format);
    const int64_t weights_source = raw_enum(d.weights_source);
    if (backend != SWINUP_BACKEND_AUTO && backend != SWINUP_BACKEND_CPU && backend != SWINUP_BACKEND_CUDA &&
        backend != SWINUP_BACKEND_VULKAN) {
        return invalid("context_desc.backend: unknown value " + std::to_string(backend) +
                       " (expected SWINUP_BACKEND_AUTO, SWINUP_BACKEND_CPU, SWINUP_BACKEND_CUDA or SWINUP_BACKEND_VULKAN)");
    }
    if (backend != SWINUP_BACKEND_CPU && d.device_index < 0) {
        return invalid("context_desc.device_index: must be >= 0, got " + std::to_string(d.device_index));
    }
    if (variant != SWINUP_VARIANT_LITE && variant != SWINUP_VARIANT_FULL) {
        return invalid("context_desc.variant: unknown value " + std::to_string(variant) +
                       " (expected SWINUP_VARIANT_LITE or SWINUP_VARIANT_FULL)");
    }
    if (precision != SWINUP_PRECISION_EXACT && precision != SWINUP_PRECISION_FAST) {
        return invalid("context_desc.precision: unknown value " + std::to_string(precision) +
                       " (expected SWINUP_PRECISION_EXACT or SWINUP_PRECISION_FAST)");
    }
    const struct {
        const char* axis;
        uint32_t display, render;
    } axes[2] = {{"width", d.display_width, d.max_render_width}, {"height", d.display_height, d.max_render_height}};
    for (const auto& a : axes) {
        if (a.display < 1 || a.display > kMaxDisplaySize) {
            return invalid(std::string("context_desc.display_") + a.axis + ": must be 1.." +
                           number(uint64_t{kMaxDisplaySize}) + ", got " + number(uint64_t{a.display}));
        }
    }
    for (const auto& a : axes) {
        if (a.render < 1 || a.render > a.display) {
            return invalid(std::string("context_desc.max_render_") + a.axis + ": must be 1..display_" + a.axis +
                           " (" + number(uint64_t{a.display}) + "), got " + number(uint64_t{a.render}));
        }
        if (static_cast<uint64_t>(a.display) > 3ull * a.render) {
            return invalid(std::string("context_desc.max_render_") + a.axis + ": display_" + a.axis + " / max_render_" +
                           a.axis + " = " + number(uint64_t{a.display}) + " / " + number(uint64_t{a.render}) +
                           " is more than 3 (the scale must be in [1, 3])");
        }
    }
    const uint32_t known_flags = SWINUP_FLAG_HDR | SWINUP_FLAG_MV_DISPLAY_RES | SWINUP_FLAG_MV_JITTERED |
                                 SWINUP_FLAG_DEPTH_INVERTED | SWINUP_FLAG_AUTO_EXPOSURE | SWINUP_FLAG_SRGB_INPUT |
                                 SWINUP_FLAG_DEBUG_VIEW;
    if ((d.flags & ~known_flags) != 0) {
        char bits[32];
        std::snprintf(bits, sizeof bits, "0x%x", d.flags & ~known_flags);
        return invalid(std::string("context_desc.flags: unknown bits ") + bits + " (see swinup_context_flags)");
    }
    const FormatSet outputs{SWINUP_FORMAT_RGBA16F, SWINUP_FORMAT_R10G10B10A2, SWINUP_FORMAT_RGBA8,
                            SWINUP_FORMAT_B10G11R11F};
    if (!outputs.contains(output_format)) {
        return invalid("context_desc.output_format: expected " + format_list(outputs) + ", got " +
                       describe_format(output_format));
    }
    if (d.num_threads > SWINUP_MAX_THREADS) {
        return invalid("context_desc.num_threads: must be 0.." + number(uint64_t{SWINUP_MAX_THREADS}) +
                       " (0: all hardware threads), got " + number(uint64_t{d.num_threads}));
    }
    if (d.log_callback == nullptr && d.log_user_data != nullptr) {
        return invalid("context_desc.log_user_data: is not NULL, but log_callback is NULL (a user pointer "
                       "without a callback is likely a callback that was meant to be set)");
    }
    switch (weights_source) {
        case SWINUP_WEIGHTS_EMBEDDED: break;
        case SWINUP_WEIGHTS_PATH:
            if (d.weights_path == nullptr || d.weights_path[0] == '\0') {
                return invalid("context_desc.weights_path: is NULL or empty, but weights_source is SWINUP_WEIGHTS_PATH");
            }
            break;
        case SWINUP_WEIGHTS_MEMORY:
            if (d.weights_data == nullptr) {
                return invalid("context_desc.weights_data: is NULL, but weights_source is SWINUP_WEIGHTS_MEMORY");
            }
            if (d.weights_size == 0) {
                return invalid("context_desc.weights_size: is 0, but weights_source is SWINUP_WEIGHTS_MEMORY");
            }
            break;
        default:
            return invalid("context_desc.weights_source: unknown value " +
                           std::to_string(weights_source) +
                           " (expected SWINUP_WEIGHTS_EMBEDDED, SWINUP_WEIGHTS_PATH or SWINUP_WEIGHTS_MEMORY)");
    }
    return {};
}

Validation validate_dispatch_scalars(const swinup_dispatch_desc& d, const swinup_context_desc& c,
                                     const char* prefix) {
    // struct_size was checked when the caller's descriptor was read (api/struct_size.h), or by
    // the caller where the descriptor is a member of another (swinup_vulkan_dispatch_desc.frame).
    // Messages are built only on failure: a valid dispatch allocates nothing here.
    const auto field = [prefix](const char* name) { return std::string(prefix) + "." + name; };
    const struct {
        const char* axis;
        uint32_t render, max, display;
    } axes[2] = {{"width", d.render_width, c.max_render_width, c.display_width},
                 {"height", d.render_height, c.max_render_height, c.display_height}};
    for (const auto& a : axes) {
        if (a.render < 1 || a.render > a.max) {
            return invalid(field("render_") + a.axis + ": must be 1..max_render_" + a.axis + " (" +
                           number(uint64_t{a.max}) + "), got " + number(uint64_t{a.render}));
        }
        if (static_cast<uint64_t>(a.display) > 3ull * a.render) {
            return invalid(field("render_") + a.axis + ": display_" + a.axis + " / render_" + a.axis +
                           " = " + number(uint64_t{a.display}) + " / " + number(uint64_t{a.render}) +
                           " is more than 3 (the scale must be in [1, 3])");
        }
    }
    Validation v;
    if (!(v = check_jitter(prefix, "jitter_x", d.jitter_x)).ok()) return v;
    if (!(v = check_jitter(prefix, "jitter_y", d.jitter_y)).ok()) return v;
    const int64_t convention = raw_enum(d.jitter_convention);
    if (convention != SWINUP_JITTER_SAMPLE_OFFSET && convention != SWINUP_JITTER_FSR_DLSS) {
        return invalid(field("jitter_convention") + ": must be SWINUP_JITTER_SAMPLE_OFFSET (0) or "
                       "SWINUP_JITTER_FSR_DLSS (1), got " + std::to_string(static_cast<int32_t>(convention)));
    }
    if (!(v = check_finite(prefix, "mv_scale_x", d.mv_scale_x, false)).ok()) return v;
    if (!(v = check_finite(prefix, "mv_scale_y", d.mv_scale_y, false)).ok()) return v;
    if (!(v = check_finite(prefix, "exposure_value", d.exposure_value, true)).ok()) return v;
    if (!(v = check_finite(prefix, "pre_exposure", d.pre_exposure, true)).ok()) return v;
    if (!(v = check_finite(prefix, "frame_time_delta_ms", d.frame_time_delta_ms, true)).ok()) return v;
    if (!(d.sharpness >= 0.0f && d.sharpness <= 1.0f)) {  // NaN fails both
        return invalid(std::string(prefix) + ".sharpness: must be in [0, 1] (0: off), got " + number(d.sharpness));
    }
    return {};
}

namespace {

// The rule of a frame's resource in `role` (its formats and size), named "dispatch.<role>".
ResourceRule frame_rule(FrameRole role, const swinup_dispatch_desc& d, const swinup_context_desc& c) {
    const bool mv_display = (c.flags & SWINUP_FLAG_MV_DISPLAY_RES) != 0;
    switch (role) {
        case FrameRole::kColor:
            return {"color",
                    {SWINUP_FORMAT_RGBA16F, SWINUP_FORMAT_RGBA32F, SWINUP_FORMAT_RGB16F, SWINUP_FORMAT_RGB32F,
                     SWINUP_FORMAT_R10G10B10A2, SWINUP_FORMAT_B10G11R11F},
                    d.render_width, d.render_height, "render_width x render_height", false};
        case FrameRole::kDepth:
            return {"depth", {SWINUP_FORMAT_R32F, SWINUP_FORMAT_D24_UNORM_S8, SWINUP_FORMAT_D32F_S8}, d.render_width, d.render_height, "render_width x render_height",
                    false};
        case FrameRole::kMotionVectors:
            return {"motion_vectors", {SWINUP_FORMAT_RG16F, SWINUP_FORMAT_RG32F},
                    mv_display ? c.display_width : d.render_width, mv_display ? c.display_height : d.render_height,
                    mv_display ? "display size: the context has SWINUP_FLAG_MV_DISPLAY_RES"
                               : "render_width x render_height",
                    false};
        case FrameRole::kOutput:
            return {"output", {c.output_format}, c.display_width, c.display_height, "the context's display size", true};
        case FrameRole::kReactiveMask:
        case FrameRole::kTransparencyMask:
            return {kMaskNames[role == FrameRole::kReactiveMask ? kReactiveMask : kTransparencyMask],
                    {SWINUP_FORMAT_R8_UNORM, SWINUP_FORMAT_R16F, SWINUP_FORMAT_R32F},
                    d.render_width, d.render_height, "render_width x render_height", false};
    }
    throw std::logic_error("frame_rule: unknown role");
}

}  // namespace

Validation validate_frame_resource(const swinup_resource& r, FrameRole role, const swinup_dispatch_desc& frame,
                                   const swinup_context_desc& context, const char* prefix, const char* name) {
    ResourceRule rule = frame_rule(role, frame, context);
    rule.prefix = prefix;
    rule.name = name;
    return check_resource(r, rule, SWINUP_BACKEND_CUDA);
}

Validation validate_dispatch_desc(const swinup_dispatch_desc& d, const swinup_context_desc& c,
                                  swinup_backend backend) {
    Validation v = validate_dispatch_scalars(d, c, "dispatch");
    if (!v.ok()) return v;
    if (backend == SWINUP_BACKEND_CUDA && d.sharpness > 0.0f) {
        return {SWINUP_STATUS_UNSUPPORTED, "dispatch.sharpness: the CUDA backend does not sharpen the output in this "
                                           "version (0 turns it off; the CPU and Vulkan backends sharpen)"};
    }

    const ResourceRule color = frame_rule(FrameRole::kColor, d, c);
    const ResourceRule depth = frame_rule(FrameRole::kDepth, d, c);
    const ResourceRule motion = frame_rule(FrameRole::kMotionVectors, d, c);
    const ResourceRule exposure{"exposure", {SWINUP_FORMAT_R32F}, 1, 1, "a 1x1 texture", false};
    const ResourceRule output = frame_rule(FrameRole::kOutput, d, c);
    if (!(v = check_resource(d.color, color, backend)).ok()) return v;
    if (!(v = check_resource(d.depth, depth, backend)).ok()) return v;
    if (!(v = check_resource(d.motion_vectors, motion, backend)).ok()) return v;
    const bool exposure_texture = d.exposure.data != nullptr && (c.flags & SWINUP_FLAG_AUTO_EXPOSURE) == 0;
    if (exposure_texture && !(v = check_resource(d.exposure, exposure, backend)).ok()) return v;
    if (!(v = check_resource(d.output, output, backend)).ok()) {
        if (v.message.rfind("dispatch.output.format", 0) == 0) v.message += " (the context's output_format)";
        return v;
    }
    const swinup_resource* masks[kMasks] = {d.reactive_mask.data != nullptr ? &d.reactive_mask : nullptr,
                                            d.transparency_mask.data != nullptr ? &d.transparency_mask : nullptr};
    for (int m = 0; m < kMasks; ++m) {
        if (masks[m] == nullptr) continue;
        const ResourceRule rule = frame_rule(m == kReactiveMask ? FrameRole::kReactiveMask : FrameRole::kTransparencyMask,
                                             d, c);
        if (!(v = check_resource(*masks[m], rule, backend)).ok()) return v;
    }

    // The output must not overlap an input: it is written while inputs may still be read.
    const size_t output_span = resource_span(d.output);
    const struct {
        const char* name;
        const swinup_resource* r;
    } inputs[6] = {{"color", &d.color}, {"depth", &d.depth}, {"motion_vectors", &d.motion_vectors},
                   {"exposure", exposure_texture ? &d.exposure : nullptr},
                   {kMaskNames[kReactiveMask], masks[kReactiveMask]},
                   {kMaskNames[kTransparencyMask], masks[kTransparencyMask]}};
    for (const auto& in : inputs) {
        if (in.r == nullptr || raw_enum(in.r->memory) != raw_enum(d.output.memory)) continue;
        if (overlaps(d.output.data_mut, output_span, in.r->data, resource_span(*in.r))) {
            return invalid(std::string("dispatch.output.data_mut: overlaps dispatch.") + in.name +
                           ".data (the output must be a separate buffer)");
        }
    }
    for (int m = 0; m < kMasks; ++m) {
        if (masks[m] != nullptr && raw_enum(masks[m]->memory) == SWINUP_MEMORY_HOST &&
            !(v = check_mask_values(*masks[m], kMaskNames[m])).ok()) {
            return v;
        }
    }
    return {};
}

Validation validate_reactive_mask_params(const swinup_reactive_mask_desc& d, const swinup_context_desc& c,
                                        const char* prefix) {
    const struct {
        const char* axis;
        uint32_t render, max;
    } axes[2] = {{"width", d.render_width, c.max_render_width}, {"height", d.render_height, c.max_render_height}};
    for (const auto& a : axes) {
        if (a.render < 1 || a.render > a.max) {
            return invalid(std::string(prefix) + ".render_" + a.axis + ": must be 1..max_render_" + a.axis + " (" +
                           number(uint64_t{a.max}) + "), got " + number(uint64_t{a.render}));
        }
    }
    Validation v;
    if (!(v = check_finite(prefix, "scale", d.scale, true)).ok()) return v;
    for (const auto& [name, value] : {std::pair{"threshold", d.threshold}, std::pair{"binary_value", d.binary_value}}) {
        if (!std::isfinite(value) || value < 0.0f || value > 1.0f) {
            return invalid(std::string(prefix) + "." + name + ": must be a finite number in [0, 1], got " + number(value));
        }
    }
    const uint32_t known = SWINUP_REACTIVE_TONEMAP | SWINUP_REACTIVE_THRESHOLD | SWINUP_REACTIVE_MAX_CHANNEL;
    if ((d.flags & ~known) != 0) {
        char bits[32];
        std::snprintf(bits, sizeof bits, "0x%x", d.flags & ~known);
        return invalid(std::string(prefix) + ".flags: unknown bits " + bits + " (see swinup_reactive_mask_flags)");
    }
    return {};
}

Validation validate_reactive_mask_desc(const swinup_reactive_mask_desc& d, const swinup_context_desc& c,
                                      swinup_backend backend) {
    Validation v = validate_reactive_mask_params(d, c, "reactive_mask_desc");
    if (!v.ok()) return v;
    const FormatSet colour{SWINUP_FORMAT_RGBA16F, SWINUP_FORMAT_RGBA32F, SWINUP_FORMAT_RGB16F, SWINUP_FORMAT_RGB32F};
    const char* size = "render_width x render_height";
    const ResourceRule opaque{"opaque_color", colour, d.render_width, d.render_height, size, false, "reactive_mask_desc"};
    const ResourceRule final_color{"final_color", colour, d.render_width, d.render_height, size, false, "reactive_mask_desc"};
    const ResourceRule output{"output", {SWINUP_FORMAT_R8_UNORM, SWINUP_FORMAT_R16F, SWINUP_FORMAT_R32F},
                              d.render_width, d.render_height, size, true, "reactive_mask_desc"};
    if (!(v = check_resource(d.opaque_color, opaque, backend)).ok()) return v;
    if (!(v = check_resource(d.final_color, final_color, backend)).ok()) return v;
    if (!(v = check_resource(d.output, output, backend)).ok()) return v;
    const size_t output_span = resource_span(d.output);
    for (const auto& [name, r] : {std::pair{"opaque_color", &d.opaque_color}, std::pair{"final_color", &d.final_color}}) {
        if (raw_enum(r->memory) == raw_enum(d.output.memory) &&
            overlaps(d.output.data_mut, output_span, r->data, resource_span(*r))) {
            return invalid(std::string("reactive_mask_desc.output.data_mut: overlaps reactive_mask_desc.") + name +
                           ".data (the output must be a separate buffer)");
        }
    }
    return {};
}

}  // namespace swinup
