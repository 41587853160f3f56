// swinup demo: the whole story in one command. Renders the built-in procedural scene (with ground
// truth), upscales it with swinup and the baselines, scores everything against the ground truth,
// prints the table and writes into out/demo/: table.txt, results.json, report.md and side-by-side
// crops compare_N.png (bicubic | taau | swinup | ground truth). GPU when there is one, else CPU.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "api_context.h"
#include "command_line.h"
#include "commands.h"
#include "eval/comparison_pictures.h"
#include "eval/evaluation.h"
#include "eval/method_registry.h"
#include "eval/report.h"
#include "eval/swinup_method.h"
#include "options.h"
#include "progress.h"
#include "render/render_sequence.h"
#include "sequence/atomic_write.h"
#include "usage_error.h"

namespace swinup::cli {
namespace {

struct DemoOptions {
    std::string output = "out/demo";
    std::string scene;  // empty: the renderer's default scene
    int frames = 16;
    std::string render_size = "480x270";
    std::string display_size = "960x540";
    std::string methods = "all";
    NetworkOptions net;
    std::string command_line;  // as given, for the report's "Reproduce with"
};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void run_demo(const DemoOptions& opt) {
    const auto start = std::chrono::steady_clock::now();
    render::RenderSettings settings;
    if (!opt.scene.empty()) settings.scene = opt.scene;
    settings.frames = opt.frames;
    const Size2 render_size = parse_size(opt.render_size, "--render");
    const Size2 display_size = parse_size(opt.display_size, "--display");
    settings.render_width = int(render_size.width);
    settings.render_height = int(render_size.height);
    settings.display_width = int(display_size.width);
    settings.display_height = int(display_size.height);
    settings.device = render::RenderDevice::automatic;

    // Every value is checked before the scene is rendered: a bad one stops the command at once.
    eval::EvaluationOptions options;
    options.methods = as_usage_error([&] { return eval::parse_method_list(opt.methods); });
    options.method_options.swinup.backend = parse_backend_option(opt.net.backend);
    options.method_options.swinup.variant = parse_variant_option(opt.net.variant);
    options.method_options.swinup.weights_path = opt.net.weights;
    options.method_options.swinup.precision = parse_precision_option(opt.net.precision);
    SequenceInfo planned;  // the sizes and colour of the sequence about to be rendered
    planned.render_width = settings.render_width;
    planned.render_height = settings.render_height;
    planned.display_width = settings.display_width;
    planned.display_height = settings.display_height;
    planned.hdr = settings.hdr;
    check_context_values(eval::swinup_method_context_desc(options.method_options.swinup, planned, false),
                         "--render " + opt.render_size + " / --display " + opt.display_size);

    Progress render_progress("render " + settings.scene, settings.frames);
    render::RenderedSequence rendered = as_usage_error<render::RenderSettingsError>([&] {
        return render::render_sequence(
            settings, [&render_progress, last = std::chrono::steady_clock::now()](int done, int) mutable {
                const auto now = std::chrono::steady_clock::now();
                render_progress.update(done, std::chrono::duration<double, std::milli>(now - last).count());
                last = now;
            });
    });
    render_progress.finish();
    const double render_seconds = seconds_since(start);
    const std::string description = "built-in scene '" + settings.scene + "'";
    const eval::SequenceSource source =
        eval::sequence_source_from_frames(rendered.info, std::move(rendered.frames), description);
    Progress eval_progress("upscale + evaluate", source.info.frame_count);
    options.progress = [&eval_progress, last = std::chrono::steady_clock::now()](int done,
                                                                                 int) mutable {
        const auto now = std::chrono::steady_clock::now();
        eval_progress.update(done, std::chrono::duration<double, std::milli>(now - last).count());
        last = now;
    };
    const auto eval_start = std::chrono::steady_clock::now();
    const eval::EvaluationResult result = eval::evaluate_sequence(source, options);
    eval_progress.finish();
    const double eval_seconds = seconds_since(eval_start);

    std::filesystem::create_directories(opt.output);
    const std::filesystem::path dir(opt.output);
    const std::string table = eval::format_results_table(result);
    std::fputs(table.c_str(), stdout);
    write_text_file_atomically((dir / "table.txt").string(), table);
    write_text_file_atomically((dir / "results.json").string(), eval::results_json(result));
    const auto pictures = eval::write_comparison_pictures(opt.output, result,
                                                          {"bicubic", "taau", "swinup"}, 120, 2, 2);

    eval::ReportContext context;
    context.title = "swinup demo: " + description;
    context.command = opt.command_line;
    context.notes.push_back(
        "The scene was rendered with ground truth (" + std::to_string(settings.gt_spp) +
        " samples per display pixel), then upscaled by each method from its jittered render "
        "frames, depth and motion vectors, exactly as an engine would hand them over.");
    for (const eval::MethodScores& m : result.methods) {
        if (m.name == "swinup" && (m.description.find("untrained") != std::string::npos ||
                                   m.description.find("seeded") != std::string::npos)) {
            context.notes.push_back(
                "**The network's weights are not trained yet** (" + m.description +
                "): they are the seeded initial weights, so swinup's scores here say nothing about "
                "the method's quality. Its output pass (jitter-aware resampling and history "
                "blending) already accumulates samples over time, which is why it can beat the "
                "spatial baselines, but the network's kernel and blend predictions are not yet "
                "learned, so it is expected to trail the hand-tuned TAAU. These numbers check the "
                "plumbing (C API, staging, network, output pass); trained weights come later.");
        }
    }
    context.timings = {{"render (with ground truth)", render_seconds},
                       {"upscale and evaluate, all methods", eval_seconds}};
    for (const eval::MethodScores& m : result.methods) {
        context.timings.emplace_back(
            m.name + " (" + std::to_string(result.info.frame_count) + " frames)",
            m.ms_per_frame * result.info.frame_count / 1000.0);
    }
    const double total_seconds = seconds_since(start);
    context.timings.emplace_back("whole demo", total_seconds);
    for (const std::string& p : pictures) {
        context.pictures.push_back(std::filesystem::path(p).filename().string());
    }
    write_text_file_atomically((dir / "report.md").string(),
                               eval::report_markdown(result, context));
    std::printf(
        "demo took %.1f s (render %.1f s, upscale + evaluate %.1f s); wrote %s/{table.txt, "
        "results.json, report.md, compare_*.png}\n",
        total_seconds, render_seconds, eval_seconds, opt.output.c_str());
}

}  // namespace

void register_demo(CLI::App& app) {
    auto opt = std::make_shared<DemoOptions>();
    CLI::App* cmd = app.add_subcommand(
        "demo", "Render the built-in scene, upscale it, compare with the baselines (out/demo/)");
    cmd->add_option("-o,--output", opt->output, "output folder")->capture_default_str();
    cmd->add_option("--scene", opt->scene, "built-in scene (default: the renderer's showcase)");
    cmd->add_option("--frames", opt->frames, "frames to render")
        ->check(CLI::Range(2, 1000))
        ->capture_default_str();
    cmd->add_option("--render", opt->render_size, "render size WxH")->capture_default_str();
    cmd->add_option("--display", opt->display_size, "display size WxH")->capture_default_str();
    cmd->add_option("--methods", opt->methods, "methods to compare (comma-separated, or all)")
        ->capture_default_str();
    add_network_options(cmd, &opt->net, "swinup: ");
    cmd->callback([opt, cmd] {
        opt->command_line = command_line_of(*cmd);
        run_demo(*opt);
    });
}

}  // namespace swinup::cli
