// swinup render SCENE -o SEQ: a built-in procedural scene or a glTF file rendered into a
// sequence folder (colour, depth, motion vectors, ground truth; system.md), through
// src/render/render_sequence.h.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "commands.h"
#include "options.h"
#include "progress.h"
#include "render/render_sequence.h"
#include "sequence/sequence.h"
#include "stale_frames.h"
#include "usage_error.h"

namespace swinup::cli {
namespace {

struct RenderOptions {
    render::RenderSettings settings;
    std::string output;
    std::string render_size = "480x270";
    std::string display_size = "960x540";
    std::string device = "cpu";
    double fps = 30.0;
    bool no_ground_truth = false;
    bool no_masks = false;
    bool no_motion_masks = false;
    bool png = false;
    bool list = false;
};

void list_scenes() {
    std::printf("built-in scenes:\n");
    for (const auto& name : render::builtin_scene_names()) {
        std::printf("  %-9s %s\n", name.c_str(), render::builtin_scene_description(name).c_str());
    }
    std::printf("or a .gltf/.glb file. Camera presets: static, dolly, pan, orbit, shake, or a .json path file.\n");
}

// The sequence an earlier render left in `dir`, if its sequence.json reads as one: only the
// frames it lists may later be removed. Anything else (no file, not a sequence) lists none.
std::optional<SequenceInfo> earlier_sequence(const std::string& dir) {
    const std::filesystem::path path = std::filesystem::path(dir) / "sequence.json";
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    try {
        return sequence_info_from_json(text.str(), path.string());
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// The earlier sequence's frames that this render did not overwrite: those past its last frame,
// and every frame of a kind (ground truth, display MVs, masks) this render does not write.
int remove_earlier_frames(const std::string& dir, const SequenceInfo& earlier, const SequenceInfo& now) {
    const struct {
        const char* kind;
        bool earlier_has, now_has;
    } kinds[] = {{"color", true, true},
                 {"depth", true, true},
                 {"mv", true, true},
                 {"mv_display", earlier.has_mv_display, now.has_mv_display},
                 {"gt", earlier.has_ground_truth, now.has_ground_truth},
                 {"masks", earlier.has_masks, now.has_masks},
                 {"motion_masks", earlier.has_motion_masks, now.has_motion_masks}};
    int removed = 0;
    for (const auto& k : kinds) {
        if (!k.earlier_has) continue;
        removed += remove_stale_frames(dir, k.kind, k.now_has ? now.frame_count : 0, earlier.frame_count);
    }
    return removed;
}

void run_render(RenderOptions& opt) {
    if (opt.list) {
        list_scenes();
        return;
    }
    if (opt.settings.scene.empty()) throw UsageError("render: give a SCENE (see --list)");
    if (opt.output.empty()) throw UsageError("render: give an output folder with -o");
    render::RenderSettings& s = opt.settings;
    const Size2 r = parse_size(opt.render_size, "--render");
    const Size2 d = parse_size(opt.display_size, "--display");
    s.render_width = static_cast<int>(r.width);
    s.render_height = static_cast<int>(r.height);
    s.display_width = static_cast<int>(d.width);
    s.display_height = static_cast<int>(d.height);
    s.ground_truth = !opt.no_ground_truth;
    s.masks = !opt.no_masks;
    s.motion_masks = !opt.no_motion_masks;
    s.frame_time_s = static_cast<float>(1.0 / opt.fps);
    s.device = opt.device == "cuda" ? render::RenderDevice::cuda
               : opt.device == "auto" ? render::RenderDevice::automatic
                                      : render::RenderDevice::cpu;

    // Without this a missing texture would only show as a flat colour in the pictures.
    s.on_warning = [](const std::string& w) { std::fprintf(stderr, "swinup: warning: %s\n", w.c_str()); };
    Progress progress("render", s.frames);
    auto last = std::chrono::steady_clock::now();
    const auto start = last;
    const render::RenderProgress report = [&](int done, int) {
        const auto now = std::chrono::steady_clock::now();
        progress.update(done, std::chrono::duration<double, std::milli>(now - last).count());
        last = now;
    };
    const std::optional<SequenceInfo> earlier = earlier_sequence(opt.output);
    // A bad setting (sizes, scene, camera) is found before the first frame is written.
    const SequenceInfo info = as_usage_error<render::RenderSettingsError>(
        [&] { return render::render_sequence_to_dir(s, opt.output, report); });
    progress.finish();
    const int stale_removed = earlier ? remove_earlier_frames(opt.output, *earlier, info) : 0;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    if (opt.png) {
        // Pictures for people: colour and ground truth of every frame, sRGB.
        const std::filesystem::path dir = std::filesystem::path(opt.output) / "png";
        std::filesystem::create_directories(dir);
        for (int i = 0; i < info.frame_count; ++i) {
            const Frame f = sequence_read_frame(opt.output, info, i);
            char name[64];
            std::snprintf(name, sizeof name, "color.%04d.png", i);
            png_write((dir / name).string(), f.color, true);
            if (!f.gt.empty()) {
                std::snprintf(name, sizeof name, "gt.%04d.png", i);
                png_write((dir / name).string(), f.gt, true);
            }
            if (!f.masks.empty()) {  // reactive in red, transparency & composition in green
                Image rg(f.masks.width, f.masks.height, 3);
                for (size_t p = 0; p < size_t(f.masks.width) * size_t(f.masks.height); ++p) {
                    rg.data[p * 3] = f.masks.data[p * 2];
                    rg.data[p * 3 + 1] = f.masks.data[p * 2 + 1];
                }
                std::snprintf(name, sizeof name, "masks.%04d.png", i);
                png_write((dir / name).string(), rg, false);
            }
        }
    }
    std::printf("rendered %d frames of %s: %dx%d -> %dx%d%s in %.1f s (%.2f s per frame) into %s\n",
                info.frame_count, s.scene.c_str(), info.render_width, info.render_height, info.display_width,
                info.display_height, info.has_ground_truth ? " with ground truth" : "", seconds,
                seconds / info.frame_count, opt.output.c_str());
    if (stale_removed > 0) {
        std::printf("removed %d frame files of the sequence rendered there before\n", stale_removed);
    }
}

}  // namespace

void register_render(CLI::App& app) {
    auto opt = std::make_shared<RenderOptions>();
    CLI::App* cmd = app.add_subcommand("render", "Render a built-in scene or a glTF file into a sequence with ground truth");
    cmd->add_option("SCENE", opt->settings.scene, "built-in scene name (--list) or a .gltf/.glb file");
    cmd->add_option("-o,--output", opt->output, "output sequence folder");
    cmd->add_flag("--list", opt->list, "list the built-in scenes and camera presets");
    cmd->add_option("--frames", opt->settings.frames, "number of frames")->check(CLI::Range(1, 100000))->capture_default_str();
    cmd->add_option("--render", opt->render_size, "render size WxH")->capture_default_str();
    cmd->add_option("--display", opt->display_size, "display (ground truth) size WxH")->capture_default_str();
    cmd->add_option("--camera", opt->settings.camera,
                    "camera: a preset (static, dolly, pan, orbit, shake) or a .json path file (default: the scene's own)");
    cmd->add_option("--gltf-camera", opt->settings.gltf_camera, "which of a glTF file's cameras to start from")
        ->check(CLI::Range(0, std::numeric_limits<int>::max()))->capture_default_str();
    cmd->add_option("--gt-spp", opt->settings.gt_spp, "ground-truth samples per display pixel (stratified)")
        ->check(CLI::Range(16, 4096))->capture_default_str();
    cmd->add_flag("--no-gt", opt->no_ground_truth, "skip the ground truth");
    cmd->add_flag("--no-masks", opt->no_masks,
                  "write no reactive / transparency masks (masks.NNNN.exr; written by default)");
    cmd->add_flag("--no-motion-masks", opt->no_motion_masks,
                  "write no disocclusion / moving-object masks (motion_masks.NNNN.exr, for `swinup "
                  "eval`'s columns; written by default)");
    cmd->add_option("--particles", opt->settings.particles,
                    "add N glowing alpha-blended particles drifting through the camera's first view "
                    "(placed by --seed; no motion vectors of their own, in the masks)")
        ->check(CLI::Range(0, 100000))
        ->capture_default_str();
    cmd->add_flag("--hdr", opt->settings.hdr, "HDR colour (linear radiance) instead of tonemapped LDR");
    cmd->add_flag("--mv-display", opt->settings.mv_display, "also write display-resolution motion vectors");
    cmd->add_flag("--depth-inverted", opt->settings.depth_inverted, "reverse-Z depth (1 near, 0 far)");
    cmd->add_option("--seed", opt->settings.seed, "seed of the ground truth's sample positions")
        ->check(unsigned_64())
        ->capture_default_str();
    cmd->add_option("--fps", opt->fps, "frames per second of the animation")->check(number_range(1.0, 1000.0))->capture_default_str();
    cmd->add_option("--device", opt->device, "where to trace")->check(CLI::IsMember({"cpu", "cuda", "auto"}))->capture_default_str();
    cmd->add_flag("--png", opt->png,
                  "also write PNG pictures of colour, ground truth and masks (red reactive, green "
                  "transparency) (SEQ/png/)");
    cmd->callback([opt] { run_render(*opt); });
}

}  // namespace swinup::cli
