#include "eval/swinup_method.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "api/resource_desc.h"
#include "numeric/half.h"

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

Image SwinupUpscaler::upscale(const UpscaleInput& in) {
    const SequenceInfo& info = in.info;
    const bool use_mv_display = info.has_mv_display && !in.frame.mv_display.empty();
    if (context_ == nullptr) {
        swinup_context_desc desc;
        swinup_context_desc_init(&desc);
        desc.backend = options_.backend;
        desc.variant = options_.variant;
        desc.precision = options_.precision;
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
        if (!options_.weights_path.empty()) {
            desc.weights_source = SWINUP_WEIGHTS_PATH;
            desc.weights_path = options_.weights_path.c_str();
        }
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
    // The sequence's masks as the API takes them: one R32F plane each (Frame::masks interleaves
    // reactive and transparency). Without masks the fields stay empty: exactly a dispatch
    // without them.
    // Masks of zero everywhere are no masks (the API gives the same bytes) and are not passed:
    // a sequence without masked content then also runs on a backend that does not read masks.
    std::vector<float> reactive, transparency;
    const bool masks_given =
        std::any_of(in.frame.masks.data.begin(), in.frame.masks.data.end(), [](float v) { return v != 0.0f; });
    if (masks_given) {
        const Image& m = in.frame.masks;
        const size_t n = size_t(m.width) * size_t(m.height);
        reactive.resize(n);
        transparency.resize(n);
        for (size_t i = 0; i < n; ++i) {
            reactive[i] = m.data[i * 2];
            transparency[i] = m.data[i * 2 + 1];
        }
        const size_t pitch = size_t(m.width) * sizeof(float);
        d.reactive_mask = input_resource(reactive.data(), SWINUP_FORMAT_R32F, uint32_t(m.width),
                                         uint32_t(m.height), SWINUP_MEMORY_HOST, pitch);
        d.transparency_mask = input_resource(transparency.data(), SWINUP_FORMAT_R32F,
                                             uint32_t(m.width), uint32_t(m.height),
                                             SWINUP_MEMORY_HOST, pitch);
    }
    d.exposure_value = in.exposure;
    d.jitter_x = in.jitter_x;
    d.jitter_y = in.jitter_y;
    d.reset = in.reset ? 1 : 0;
    const swinup_status status = swinup_dispatch(context_, &d);
    if (status != SWINUP_STATUS_OK) {
        const std::string hint = status == SWINUP_STATUS_UNSUPPORTED && masks_given
                                     ? " (this backend does not read masks: score swinup-nomasks, "
                                       "or run with --no-masks)"
                                     : "";
        throw std::runtime_error(std::string("swinup: dispatch of frame ") +
                                 std::to_string(in.index) + " failed (" +
                                 swinup_status_name(status) + "): " + swinup_last_error(context_) +
                                 hint);
    }
    Image out(info.display_width, info.display_height, 3);
    for (size_t i = 0; i < size_t(info.display_width) * info.display_height; ++i) {
        for (int c = 0; c < 3; ++c) out.data[i * 3 + c] = f16_bits_to_f32(output[i * 4 + c]);
    }
    return out;
}

}  // namespace swinup::eval
