// swinup upscale SEQ -o OUT: every frame of a sequence through the public C API, written as
// OUT/out.NNNN.exr (display resolution, half RGBA) with OUT/upscale.json describing the run.
// Only the dispatch is timed: reading the inputs and writing the outputs are not the upscaler's.
// It overwrites and removes only frames an earlier run recorded as its own (upscale_folder.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/resource_desc.h"
#include "api_context.h"
#include "commands.h"
#include "options.h"
#include "output_decode.h"
#include "progress.h"
#include "sequence/atomic_write.h"
#include "sequence/dispatch_masks.h"
#include "upscale_folder.h"
#include "usage_error.h"
#include "sequence/sequence.h"

namespace swinup::cli {
namespace {

struct UpscaleOptions {
    std::string sequence;
    std::string output;
    NetworkOptions net;
    std::string format = "rgba16f";
    double scale = 0.0;  // 0: the sequence's display size
    int frames = 0;      // 0: all
    int threads = 0;     // 0: all hardware threads
    bool mv_display = false;
    bool no_masks = false;  // leave the sequence's masks out of the dispatches
    bool srgb_input = false;  // the sequence's colour is sRGB-encoded (SWINUP_FLAG_SRGB_INPUT)
    bool debug_view = false;  // write the debug view instead of the frames (SWINUP_FLAG_DEBUG_VIEW)
    double sharpness = 0.0;   // swinup_dispatch_desc.sharpness of every frame (0: off)
    bool force = false;  // overwrite out.NNNN.exr / upscale.json that no earlier run recorded
};

swinup_resource host_input(const Image& image, swinup_format format) {
    return input_resource(image.data.data(), format, static_cast<uint32_t>(image.width),
                          static_cast<uint32_t>(image.height));
}

double median_of(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

void run_upscale(const UpscaleOptions& opt) {
    if (opt.scale > 0.0 && opt.mv_display) throw UsageError("--scale cannot be combined with --mv-display");
    // The upscaler reads no ground truth, and display-resolution MVs only when asked for.
    const SequenceInfo info = sequence_read_info(
        opt.sequence,
        FilesNeeded{/*mv_display=*/opt.mv_display, /*ground_truth=*/false, /*masks=*/!opt.no_masks,
                    /*motion_masks=*/false});
    const int frames = opt.frames > 0 ? std::min(opt.frames, info.frame_count) : info.frame_count;
    if (opt.mv_display && !info.has_mv_display) {
        throw UsageError(opt.sequence + ": --mv-display given but the sequence has no mv_display files");
    }
    // Before anything is written: which files of the folder an earlier run recorded as its own.
    const UpscaleFolder folder = read_upscale_folder(opt.output);
    check_upscale_may_write(folder, frames, opt.force);

    swinup_context_desc desc;
    swinup_context_desc_init(&desc);
    apply_network_options(opt.net, &desc);
    desc.output_format = parse_output_format_option(opt.format);
    desc.max_render_width = static_cast<uint32_t>(info.render_width);
    desc.max_render_height = static_cast<uint32_t>(info.render_height);
    desc.display_width = static_cast<uint32_t>(info.display_width);
    desc.display_height = static_cast<uint32_t>(info.display_height);
    if (opt.scale > 0.0) {
        desc.display_width = static_cast<uint32_t>(std::lround(info.render_width * opt.scale));
        desc.display_height = static_cast<uint32_t>(std::lround(info.render_height * opt.scale));
    }
    auto flag_if = [](bool on, swinup_context_flags flag) { return on ? uint32_t(flag) : 0u; };
    desc.flags = flag_if(info.hdr, SWINUP_FLAG_HDR) |
                 flag_if(info.mv_jittered, SWINUP_FLAG_MV_JITTERED) |
                 flag_if(info.depth_inverted, SWINUP_FLAG_DEPTH_INVERTED) |
                 flag_if(opt.mv_display, SWINUP_FLAG_MV_DISPLAY_RES) |
                 flag_if(opt.srgb_input, SWINUP_FLAG_SRGB_INPUT) |
                 flag_if(opt.debug_view, SWINUP_FLAG_DEBUG_VIEW);
    desc.num_threads = static_cast<uint32_t>(opt.threads);
    check_context_values(desc, opt.scale > 0.0 ? "--scale" : opt.sequence + " (its render and display sizes)");
    ContextHandle ctx = create_context(desc);
    const swinup_context_info ctx_info = context_info(ctx.get());

    std::error_code fs_error;
    std::filesystem::create_directories(opt.output, fs_error);
    if (fs_error) {
        throw std::runtime_error(opt.output + ": cannot create directory: " + fs_error.message());
    }
    // Upscaling over an earlier run: its upscale.json goes before the first frame is replaced.
    const std::filesystem::path run_file = std::filesystem::path(opt.output) / "upscale.json";
    remove_completion_record(run_file.string());

    const int display_w = static_cast<int>(desc.display_width);
    const int display_h = static_cast<int>(desc.display_height);
    std::vector<uint8_t> output(size_t(display_w) * size_t(display_h) *
                                output_bytes_per_pixel(desc.output_format));
    std::vector<double> dispatch_ms;
    // Only the upscaler's inputs are read: no ground truth, display MVs only when asked for.
    SequenceInfo inputs_only = info;
    inputs_only.has_ground_truth = false;
    inputs_only.has_mv_display = opt.mv_display;
    inputs_only.has_masks = info.has_masks && !opt.no_masks;
    inputs_only.has_motion_masks = false;  // for scoring only

    Progress progress("upscale", frames);
    for (int i = 0; i < frames; ++i) {
        const Frame frame = sequence_read_frame(opt.sequence, inputs_only, i);
        // The render size is the colour's: the sequence reader checked it against render_size.
        swinup_dispatch_desc dispatch = frame_dispatch_desc(
            host_input(frame.color, SWINUP_FORMAT_RGBA32F), host_input(frame.depth, SWINUP_FORMAT_R32F),
            host_input(opt.mv_display ? frame.mv_display : frame.mv, SWINUP_FORMAT_RG32F),
            output_resource(output.data(), desc.output_format, desc.display_width, desc.display_height));
        dispatch.exposure_value = info.exposure[size_t(i)];
        dispatch.jitter_x = info.jitter_x[size_t(i)];
        dispatch.jitter_y = info.jitter_y[size_t(i)];
        dispatch.reset = info.reset[size_t(i)];
        dispatch.sharpness = static_cast<float>(opt.sharpness);
        DispatchMasks masks;  // the sequence's reactive and transparency masks, when non-zero
        masks.attach(frame.masks, dispatch);

        const auto start = std::chrono::steady_clock::now();
        const swinup_status status = swinup_dispatch(ctx.get(), &dispatch);
        const auto stop = std::chrono::steady_clock::now();
        check_status(status, ctx.get(), "frame " + std::to_string(i) + ": dispatch failed");
        dispatch_ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());

        const std::string path =
            (std::filesystem::path(opt.output) / frame_file("out", i)).string();
        exr_write(path, decode_output(output, desc.output_format, display_w, display_h),
                  /*half_precision=*/true);
        progress.update(i + 1, dispatch_ms.back());
    }
    progress.finish();
    // The earlier run's frames past this run's count go, so that the recorded frames are exactly
    // the ones upscale.json describes; files it did not record stay.
    const int stale_removed = remove_recorded_frames_past(folder, frames);

    const double mean_ms =
        std::accumulate(dispatch_ms.begin(), dispatch_ms.end(), 0.0) / double(frames);
    const double median_ms = median_of(dispatch_ms);

    nlohmann::json run;
    run["format"] = "swinup-upscale";
    run["version"] = 1;
    run["source"] = std::filesystem::absolute(opt.sequence).lexically_normal().string();
    run["files"] = "out.NNNN.exr";
    run["frame_count"] = frames;
    run["display_size"] = {display_w, display_h};
    run["render_size"] = {info.render_width, info.render_height};
    run["variant"] = variant_label(ctx_info.variant);
    run["precision"] = precision_label(ctx_info.precision);
    run["backend"] = backend_label(ctx_info.backend);
    run["device"] = ctx_info.device_name;
    run["output_format"] = format_label(desc.output_format);
    run["srgb_input"] = opt.srgb_input;
    run["debug_view"] = opt.debug_view;
    run["sharpness"] = opt.sharpness;
    run["weights"] = ctx_info.weights_description;
    run["dispatch_ms"] = {{"mean", mean_ms}, {"median", median_ms}, {"per_frame", dispatch_ms}};
    run["sequence"] = nlohmann::json::parse(sequence_info_to_json(info));
    write_text_file_atomically(run_file.string(), run.dump(2) + "\n");

    std::printf("frames     %d (%s -> %s)\n", frames,
                size_text(desc.max_render_width, desc.max_render_height).c_str(),
                size_text(desc.display_width, desc.display_height).c_str());
    std::printf("dispatch   mean %.2f ms, median %.2f ms per frame\n", mean_ms, median_ms);
    std::printf("backend    %s (%s), %s, %s\n", backend_label(ctx_info.backend),
                ctx_info.device_name, variant_label(ctx_info.variant),
                precision_label(ctx_info.precision));
    std::printf("output     %s\n", opt.output.c_str());
    if (stale_removed > 0) {
        std::printf("removed    %d out.NNNN.exr frames of an earlier, longer run\n", stale_removed);
    }
}

}  // namespace

void register_upscale(CLI::App& app) {
    auto opt = std::make_shared<UpscaleOptions>();
    CLI::App* cmd = app.add_subcommand("upscale", "Upscale a sequence folder through the C API");
    cmd->add_option("SEQ", opt->sequence, "sequence folder (sequence.json + EXR frames)")
        ->required()
        ->check(CLI::ExistingDirectory);  // a folder that is not there is a bad value: exit 2
    cmd->add_option("-o,--output", opt->output,
                    "output folder (out.NNNN.exr, upscale.json; what it may replace: below)")
        ->required();
    add_network_options(cmd, &opt->net, "");
    cmd->add_option("--format", opt->format, "the context's output format")
        ->check(CLI::IsMember(output_format_names()))->capture_default_str();
    cmd->add_option("--scale", opt->scale,
                    "display = render x SCALE (default: the sequence's display size)")
        ->check(number_range(1.0, 3.0));
    cmd->add_option("--frames", opt->frames, "upscale only the first N frames")
        ->check(CLI::Range(1, std::numeric_limits<int>::max()));
    cmd->add_option("--threads", opt->threads, "CPU worker threads (0: all)")
        ->check(CLI::Range(0, SWINUP_MAX_THREADS));
    cmd->add_flag("--mv-display", opt->mv_display,
                  "use the display-resolution motion vectors (mv_display.NNNN.exr)");
    cmd->add_flag("--srgb-input", opt->srgb_input,
                  "the sequence's colour is sRGB-encoded: decode it to linear at staging "
                  "(SWINUP_FLAG_SRGB_INPUT; the output stays linear)");
    cmd->add_option("--sharpness", opt->sharpness,
                    "sharpen the output (contrast-adaptive, after the history is stored): 0 off, up to 1")
        ->check(number_range(0.0, 1.0))->capture_default_str();
    cmd->add_flag("--debug-view", opt->debug_view,
                  "write the debug view instead of the upscaled frames: colour, depth, motion and the "
                  "network's history weight in four quadrants (SWINUP_FLAG_DEBUG_VIEW)");
    cmd->add_flag("--no-masks", opt->no_masks,
                  "leave the sequence's reactive and transparency masks (masks.NNNN.exr) out");
    cmd->add_flag("--force", opt->force,
                  "overwrite out.NNNN.exr and upscale.json in the output folder even when no earlier "
                  "run recorded them (files this run does not write are never removed)");
    cmd->footer(
        "The output folder: upscale overwrites or removes only out.NNNN.exr frames that the "
        "folder's upscale.json records as written by an earlier run (a run that completed). It "
        "stops before writing anything when a frame it would write exists but is not recorded (a "
        "file of yours, or a frame of an interrupted run), or when upscale.json is not such a "
        "record; --force overwrites those names. After its frames it removes the recorded frames "
        "past its own count. Other files are never touched.");
    cmd->callback([opt] { run_upscale(*opt); });
}

}  // namespace swinup::cli
