// swinup eval SEQ: every method over a sequence with ground truth; PSNR, SSIM, FLIP and the
// temporal error per method (and over the masked region, for a sequence with masks) as a table on stdout, optionally as JSON (--json) and side-by-side
// crops (--pictures). The metrics are defined in src/eval (display_encode.h, ssim.h, flip.h,
// hdr_flip.h, temporal_stability.h).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "api_context.h"
#include "commands.h"
#include "eval/comparison_pictures.h"
#include "eval/evaluation.h"
#include "eval/frames_folder_method.h"
#include "eval/method_registry.h"
#include "eval/report.h"
#include "eval/swinup_method.h"
#include "options.h"
#include "progress.h"
#include "sequence/atomic_write.h"
#include "usage_error.h"

namespace swinup::cli {
namespace {

struct EvalCommandOptions {
    std::string sequence;
    std::string methods = "all";
    std::vector<std::string> frames_folders;  // --method NAME=FOLDER, each as given
    std::string json;
    std::string pictures;
    int skip = 0;
    int picture_frame = -1;
    int crop = 160;
    std::vector<std::string> crop_at;  // --crop-at X,Y (repeatable)
    bool no_flip = false;
    bool no_masks = false;
    NetworkOptions net;
};

// The destinations of --json and --pictures are tried before the evaluation, which can take
// minutes: a mistyped or read-only folder must stop the command at once, not throw the finished
// scores away at the end. The atomic writer's temporary file is created and removed again
// (check_writable); the pictures' folder is created as write_comparison_pictures would.
void check_output_destinations(const EvalCommandOptions& opt) {
    const auto probe = [](const std::string& option, const std::filesystem::path& file) {
        try {
            check_writable(file.string());
        } catch (const std::exception& e) {
            throw std::runtime_error(option + " " + e.what());
        }
    };
    if (!opt.json.empty()) probe("--json", opt.json);
    if (!opt.pictures.empty()) {
        std::error_code error;
        std::filesystem::create_directories(opt.pictures, error);
        if (error) {
            throw std::runtime_error("--pictures " + opt.pictures + ": cannot create the folder (" +
                                     error.message() + ")");
        }
        probe("--pictures", std::filesystem::path(opt.pictures) / "compare_1.png");
    }
}

// --crop-at X,Y: the top-left corners of the picture crops, display pixels.
std::vector<eval::CropRect> crops_at(const EvalCommandOptions& opt) {
    std::vector<eval::CropRect> crops;
    for (const std::string& text : opt.crop_at) {
        int x = -1, y = -1;
        char end = 0;
        if (std::sscanf(text.c_str(), "%d,%d%c", &x, &y, &end) != 2 || x < 0 || y < 0) {
            throw UsageError("--crop-at " + text + ": expected X,Y (display pixels, >= 0)");
        }
        crops.push_back({x, y, opt.crop});
    }
    return crops;
}

void run_eval(const EvalCommandOptions& opt) {
    const std::vector<eval::CropRect> crops = crops_at(opt);  // a typo stops the command at once
    (void)crops;
    eval::EvaluationOptions options;
    options.methods = as_usage_error([&] { return eval::parse_method_list(opt.methods); });
    for (const std::string& text : opt.frames_folders) {
        options.frames_folders.push_back(as_usage_error([&] { return eval::parse_frames_folder(text); }));
    }
    options.skip_frames = opt.skip;
    options.picture_frame = opt.picture_frame;
    options.flip = !opt.no_flip;
    options.masks = !opt.no_masks;
    options.method_options.swinup.backend = parse_backend_option(opt.net.backend);
    options.method_options.swinup.variant = parse_variant_option(opt.net.variant);
    options.method_options.swinup.precision = parse_precision_option(opt.net.precision);
    options.method_options.swinup.weights_path = opt.net.weights;

    const eval::SequenceSource source = eval::sequence_source_from_directory(opt.sequence);
    // The values that depend on the sequence, before the evaluation's minutes: --skip,
    // --picture-frame, --method folders, and the swinup context's sizes.
    as_usage_error([&] { eval::check_evaluation_options(source.info, options); });
    for (const std::string& method : options.methods) {
        if (method.rfind("swinup", 0) == 0) {
            check_context_values(eval::swinup_method_context_desc(options.method_options.swinup, source.info,
                                                                  source.info.has_mv_display),
                                 opt.sequence + " (its render and display sizes)");
            break;
        }
    }
    check_output_destinations(opt);
    Progress progress("eval", source.info.frame_count);
    options.progress = [&progress, last = std::chrono::steady_clock::now()](int done, int) mutable {
        const auto now = std::chrono::steady_clock::now();
        progress.update(done, std::chrono::duration<double, std::milli>(now - last).count());
        last = now;
    };
    const eval::EvaluationResult result = eval::evaluate_sequence(source, options);
    progress.finish();
    std::vector<std::string> pictured = options.methods;
    for (const eval::FramesFolder& f : options.frames_folders) pictured.push_back(f.name);

    std::fputs(eval::format_results_table(result).c_str(), stdout);
    if (!opt.json.empty()) {
        write_text_file_atomically(opt.json, eval::results_json(result));
        std::printf("wrote %s\n", opt.json.c_str());
    }
    if (!opt.pictures.empty()) {
        for (const std::string& path : eval::write_comparison_pictures(
                 opt.pictures, result, pictured, opt.crop, 2, 2, crops_at(opt))) {
            std::printf("wrote %s\n", path.c_str());
        }
    }
}

}  // namespace

void register_eval(CLI::App& app) {
    auto opt = std::make_shared<EvalCommandOptions>();
    CLI::App* cmd = app.add_subcommand(
        "eval", "Score methods against a sequence's ground truth: PSNR, SSIM, FLIP, temporal error");
    cmd->add_option("SEQ", opt->sequence, "sequence folder with ground truth (gt.NNNN.exr)")
        ->required();
    cmd->add_option("--methods", opt->methods,
                    "comma-separated: nearest,bilinear,bicubic,lanczos3,taau,swinup (or all); "
                    "NAME-nomasks runs NAME without the sequence's masks (e.g. taau,taau-nomasks)")
        ->capture_default_str();
    cmd->add_option("--method", opt->frames_folders,
                    "NAME=FOLDER (repeatable): also score frames made elsewhere, FOLDER/out.NNNN.exr "
                    "for every frame NNNN of SEQ (the names `swinup upscale` writes), display size, "
                    "linear colour in SEQ's colour units (exposure not applied)")
        ->allow_extra_args(false);
    cmd->add_option("--json", opt->json, "also write the results (with per-frame scores) as JSON");
    cmd->add_option("--pictures", opt->pictures,
                    "write side-by-side crops (compare_N.png) of the last frame into this folder");
    cmd->add_option("--skip", opt->skip, "leave the first N frames out of the scores (warm-up)")
        ->check(CLI::Range(0, std::numeric_limits<int>::max()))
        ->capture_default_str();
    cmd->add_option("--picture-frame", opt->picture_frame, "frame of the pictures (default: last)");
    cmd->add_option("--crop-at", opt->crop_at,
                    "X,Y (repeatable): place the picture crops there (top-left, display pixels) "
                    "instead of where the ground truth has the most detail")
        ->allow_extra_args(false);
    cmd->add_option("--crop", opt->crop, "side of the picture crops, display pixels")
        ->check(CLI::Range(16, 2048))
        ->capture_default_str();
    cmd->add_flag("--no-flip", opt->no_flip,
                  "leave FLIP out (n/a in the table): the slowest metric, it filters the truth "
                  "and every output at display size, for HDR once per exposure");
    cmd->add_flag("--no-masks", opt->no_masks,
                  "run every method without the sequence's reactive / transparency masks (the "
                  "masked region is still scored)");
    add_network_options(cmd, &opt->net, "swinup: ");
    cmd->callback([opt] { run_eval(*opt); });
}

}  // namespace swinup::cli
