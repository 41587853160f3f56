#include "eval/swinup_method.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "api/resource_desc.h"
#include "numeric/half.h"
#include "sequence/dispatch_masks.h"

namespace swinup::eval {

SwinupUpscaler::SwinupUpscaler(const SwinupMethodOptions& options) : options_(options) {}

SwinupUpscaler::~SwinupUpscaler() { swinup_context_destroy(context_); }

namespace {

swinup_resource host_input(const Image& image, swinup_format format) {
    return input_resource(image.data.data(), format, uint32_t(image.width), uint32_t(image.height),
                          SWINUP_MEMORY_HOST, size_t(image.width) * image.channels * sizeof(float));
}

// The sequence's images as the API's float formats: RGBA32F colour, R32F depth, RG32F motion.
swinup_format float_format(int channels) {
    switch (channels) {
        case 1:
            return SWINUP_FORMAT_R32F;
        case 2:
            return SWINUP_FORMAT_RG32F;
        case 3:
            return SWINUP_FORMAT_RGB32F;
        case 4:
            return SWINUP_FORMAT_RGBA32F;
        default:
            return SWINUP_FORMAT_UNKNOWN;
    }
}

const char* backend_name(swinup_backend b) {
    switch (b) {
        case SWINUP_BACKEND_CPU:
            return "CPU";
        case SWINUP_BACKEND_CUDA:
            return "CUDA";
        default:
            return "auto";
    }
}

}  // namespace

swinup_context_desc swinup_method_context_desc(const SwinupMethodOptions& options, const SequenceInfo& info,
                                               bool use_mv_display) {
    swinup_context_desc desc;
    swinup_context_desc_init(&desc);
    desc.backend = options.backend;
    desc.variant = options.variant;
    desc.precision = options.precision;
    desc.max_render_width = uint32_t(info.render_width);
    desc.max_render_height = uint32_t(info.render_height);
    desc.display_width = uint32_t(info.display_width);
    desc.display_height = uint32_t(info.display_height);
    uint32_t flags = 0;
    if (info.hdr) flags |= SWINUP_FLAG_HDR;
    if (use_mv_display) flags |= SWINUP_FLAG_MV_DISPLAY_RES;
    if (info.mv_jittered) flags |= SWINUP_FLAG_MV_JITTERED;
    if (info.depth_inverted) flags |= SWINUP_FLAG_DEPTH_INVERTED;
    desc.flags = flags;
    desc.output_format = SWINUP_FORMAT_RGBA16F;
    if (!options.weights_path.empty()) {
        desc.weights_source = SWINUP_WEIGHTS_PATH;
        desc.weights_path = options.weights_path.c_str();
    }
    return desc;
}

Image SwinupUpscaler::upscale(const UpscaleInput& in) {
    const SequenceInfo& info = in.info;
    const bool use_mv_display = info.has_mv_display && !in.frame.mv_display.empty();
    if (context_ == nullptr) {
        swinup_context_desc desc = swinup_method_context_desc(options_, info, use_mv_display);
        const swinup_status status = swinup_context_create(&desc, &context_);
        if (status != SWINUP_STATUS_OK) {
            context_ = nullptr;
            throw std::runtime_error(std::string("swinup: context creation failed (") +
                                     swinup_status_name(status) +
                                     "): " + swinup_last_error(nullptr));
        }
        swinup_context_info ci{};
        if (swinup_context_get_info(context_, &ci) == SWINUP_STATUS_OK) {
            description_ = std::string(backend_name(ci.backend)) + " (" + ci.device_name + "), " +
                           (ci.variant == SWINUP_VARIANT_FULL ? "full" : "lite") + ", " +
                           (ci.precision == SWINUP_PRECISION_FAST ? "fast" : "exact") +
                           ", weights: " + ci.weights_description;
        }
    }
    const Image& mv = use_mv_display ? in.frame.mv_display : in.frame.mv;
    std::vector<uint16_t> output(size_t(info.display_width) * info.display_height * 4);

    swinup_dispatch_desc d = frame_dispatch_desc(
        host_input(in.frame.color, float_format(in.frame.color.channels)),
        host_input(in.frame.depth, float_format(in.frame.depth.channels)), host_input(mv, float_format(mv.channels)),
        output_resource(output.data(), SWINUP_FORMAT_RGBA16F, uint32_t(info.display_width),
                        uint32_t(info.display_height), SWINUP_MEMORY_HOST,
                        size_t(info.display_width) * 4 * sizeof(uint16_t)));
    // The sequence's masks, when it has non-zero ones (sequence/dispatch_masks.h).
    DispatchMasks masks;
    masks.attach(in.frame.masks, d);
    d.exposure_value = in.exposure;
    d.jitter_x = in.jitter_x;
    d.jitter_y = in.jitter_y;
    d.reset = in.reset ? 1 : 0;
    const swinup_status status = swinup_dispatch(context_, &d);
    if (status != SWINUP_STATUS_OK) {
        throw std::runtime_error(std::string("swinup: dispatch of frame ") +
                                 std::to_string(in.index) + " failed (" +
                                 swinup_status_name(status) + "): " + swinup_last_error(context_));
    }
    Image out(info.display_width, info.display_height, 3);
    for (size_t i = 0; i < size_t(info.display_width) * info.display_height; ++i) {
        for (int c = 0; c < 3; ++c) out.data[i * 3 + c] = f16_bits_to_f32(output[i * 4 + c]);
    }
    return out;
}

}  // namespace swinup::eval
