#include "render/render_sequence.h"

#include <cmath>
#include <filesystem>

#include "render/camera_path.h"
#include "render/frame_renderer.h"
#include "render/gltf_loader.h"
#include "render/jitter.h"
#include "render/motion_masks.h"
#include "render/particle_emitter.h"
#include "render/scenes.h"
#include "sequence/atomic_write.h"
#include "text/number_text.h"

namespace swinup::render {

namespace {

void check_size(const char* what, int w, int h) {
    if (w < 1 || h < 1 || w > 16384 || h > 16384) {
        throw RenderSettingsError(std::string(what) + " size " + std::to_string(w) + "x" + std::to_string(h) +
                          " is outside 1..16384");
    }
}

void validate(const RenderSettings& s) {
    if (s.frames < 1 || s.frames > 100000) throw RenderSettingsError("frames = " + std::to_string(s.frames) + " is outside 1..100000");
    check_size("render", s.render_width, s.render_height);
    check_size("display", s.display_width, s.display_height);
    if (s.display_width < s.render_width || s.display_height < s.render_height) {
        throw RenderSettingsError("display size must be at least the render size");
    }
    const double sx = double(s.display_width) / s.render_width, sy = double(s.display_height) / s.render_height;
    if (std::fabs(sx - sy) > 0.02 * sx) {
        throw RenderSettingsError("render and display sizes must have the same aspect ratio (scales " + std::to_string(sx) +
                          " and " + std::to_string(sy) + " differ)");
    }
    if (s.ground_truth && (s.gt_spp < 16 || s.gt_spp > 4096)) {
        throw RenderSettingsError("gt_spp = " + std::to_string(s.gt_spp) + " is outside 16..4096");
    }
    if (!(s.frame_time_s > 0.0f) || !std::isfinite(s.frame_time_s)) throw RenderSettingsError("frame_time_s must be positive");
    if (s.particles < 0 || s.particles > 100000) {
        throw RenderSettingsError("particles = " + std::to_string(s.particles) + " is outside 0..100000");
    }
}

bool is_file_scene(const std::string& name) {
    const auto ext = std::filesystem::path(name).extension().string();
    return ext == ".gltf" || ext == ".glb" || name.find('/') != std::string::npos;
}

std::unique_ptr<Scene> load_scene(const RenderSettings& s) {
    if (is_file_scene(s.scene)) {
        if (!std::filesystem::exists(s.scene)) throw RenderSettingsError("scene file " + s.scene + " does not exist");
        std::unique_ptr<Scene> scene = gltf_load_scene(s.scene);
        if (s.on_warning) {
            for (const std::string& w : scene->warnings) s.on_warning("glTF " + s.scene + ": " + w);
        }
        return scene;
    }
    auto scene = builtin_scene_create(s.scene, s.seed);
    if (!scene) {
        std::string names;
        for (const auto& n : builtin_scene_names()) names += (names.empty() ? "" : ", ") + n;
        throw RenderSettingsError("unknown scene \"" + s.scene + "\": give a built-in scene (" + names + ") or a .gltf/.glb file");
    }
    return scene;
}

CameraMotion choose_camera(const RenderSettings& s, Scene& scene) {
    CameraPose base = scene.camera_base;
    if (!scene.cameras.empty()) {
        if (s.gltf_camera < 0 || s.gltf_camera >= static_cast<int>(scene.cameras.size())) {
            throw RenderSettingsError("gltf_camera " + std::to_string(s.gltf_camera) + " does not exist (the scene has " +
                              std::to_string(scene.cameras.size()) + ")");
        }
        base = scene.cameras[static_cast<size_t>(s.gltf_camera)];
    }
    const std::string& cam = s.camera;
    if (cam.empty()) {
        if (scene.camera_motion && scene.cameras.empty()) return scene.camera_motion;
        if (!scene.cameras.empty()) return camera_preset("pan", base, scene.scale, s.seed);
        return camera_preset("static", base, scene.scale, s.seed);
    }
    const auto ext = std::filesystem::path(cam).extension().string();
    if (ext == ".json" && !std::filesystem::exists(cam)) {
        throw RenderSettingsError("camera path file " + cam + " does not exist");
    }
    if (ext == ".json" || std::filesystem::exists(cam)) return camera_path_load(cam, base);
    return camera_preset(cam, base, scene.scale, s.seed);
}

// Renders every frame, handing each to `sink` as it is done.
template <class Sink>
SequenceInfo render_frames(const RenderSettings& s, const RenderProgress& progress, Sink&& sink, bool announce_info_first,
                           const std::function<void(const SequenceInfo&)>& on_info) {
    validate(s);
    std::unique_ptr<Scene> scene = load_scene(s);
    const CameraMotion motion = choose_camera(s, *scene);
    if (s.particles > 0) {
        ParticleEmitterSettings emitter;
        emitter.count = s.particles;
        emitter.seed = s.seed;
        add_particle_emitter(*scene, motion(0.0f), emitter);
    }
    const float aspect = static_cast<float>(s.display_width) / static_cast<float>(s.display_height);
    const float scale = static_cast<float>(s.display_width) / static_cast<float>(s.render_width);
    const uint32_t phases = jitter_phase_count(scale);

    SequenceInfo info;
    info.render_width = s.render_width;
    info.render_height = s.render_height;
    info.display_width = s.display_width;
    info.display_height = s.display_height;
    info.frame_count = s.frames;
    const CameraPose first = motion(0.0f);
    info.camera_near = first.near;
    info.camera_far = first.far;
    info.camera_fov_y_deg = first.fov_y_deg;
    info.hdr = s.hdr;
    info.depth_inverted = s.depth_inverted;
    info.mv_jittered = false;
    info.mv_sign = 1;
    info.has_mv_display = s.mv_display;
    info.has_ground_truth = s.ground_truth;
    info.has_masks = s.masks;
    info.has_motion_masks = s.motion_masks;
    info.scene = s.scene + (s.camera.empty() ? "" : " camera " + s.camera) +
                 (s.particles > 0 ? " with " + std::to_string(s.particles) + " particles" : "");
    info.generator = "swinup render (seed " + std::to_string(s.seed) + ")";
    for (int i = 0; i < s.frames; ++i) {
        float jx = 0.0f, jy = 0.0f;
        jitter_offset(static_cast<uint32_t>(i), phases, jx, jy);
        info.jitter_x.push_back(jx);
        info.jitter_y.push_back(jy);
        info.exposure.push_back(1.0f);
        info.reset.push_back(i == 0 ? 1 : 0);
    }
    if (announce_info_first) on_info(info);

    bool use_cuda = s.device == RenderDevice::cuda || (s.device == RenderDevice::automatic && cuda_renderer_available());
    std::unique_ptr<CudaFrameRenderer> gpu;
    if (use_cuda) gpu = std::make_unique<CudaFrameRenderer>(*scene);

    MotionMaskRenderer motion_masks;
    const uint32_t seed32 = hash_combine(static_cast<uint32_t>(s.seed), static_cast<uint32_t>(s.seed >> 32));
    for (int i = 0; i < s.frames; ++i) {
        const float t = static_cast<float>(i) * s.frame_time_s;
        const float t_prev = static_cast<float>(i - 1) * s.frame_time_s;
        scene->set_time(t, t_prev);
        FrameRequest request;
        FrameParams& p = request.params;
        try {
            p.camera = camera_from_pose(motion(t), aspect);
            p.previous_camera = camera_from_pose(motion(t_prev), aspect);
        } catch (const RenderError& e) {  // a camera path or preset can fail between its keys
            throw RenderError("frame " + std::to_string(i) + " (time " + shortest_text(t) + " s): " + e.what());
        }
        p.render_width = s.render_width;
        p.render_height = s.render_height;
        p.display_width = s.display_width;
        p.display_height = s.display_height;
        p.jitter_x = info.jitter_x[static_cast<size_t>(i)];
        p.jitter_y = info.jitter_y[static_cast<size_t>(i)];
        // Mip bias as games use with upscalers: the render pass reaches display-resolution
        // texture detail minus one level; the ground truth uses that same detail.
        p.render_lod_bias = std::log2(1.0f / scale) - 1.0f;
        p.display_lod_bias = -1.0f;
        p.gt_strata = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(s.gt_spp)) - 1e-9));
        p.seed = seed32;
        p.frame_index = static_cast<uint32_t>(i);
        p.depth_inverted = s.depth_inverted;
        p.hdr = s.hdr;
        request.mv_display = s.mv_display;
        request.ground_truth = s.ground_truth;
        Frame frame = gpu ? gpu->render(*scene, request) : render_frame_cpu(scene->view(), request);
        if (!s.masks) frame.masks = Image();
        if (s.motion_masks) {
            frame.motion_masks = motion_masks.render(*scene, p.camera, t, s.display_width, s.display_height,
                                                     info.reset[static_cast<size_t>(i)] != 0);
        }
        sink(i, std::move(frame), info);
        if (progress) progress(i + 1, s.frames);
    }
    return info;
}

}  // namespace

std::vector<std::string> builtin_scene_names() {
    std::vector<std::string> names;
    for (const auto& s : builtin_scenes()) names.push_back(s.name);
    return names;
}

std::string builtin_scene_description(const std::string& name) {
    for (const auto& s : builtin_scenes()) {
        if (s.name == name) return s.description;
    }
    return "";
}

RenderedSequence render_sequence(const RenderSettings& settings, const RenderProgress& progress) {
    RenderedSequence out;
    out.info = render_frames(
        settings, progress, [&](int, Frame&& frame, const SequenceInfo&) { out.frames.push_back(std::move(frame)); },
        false, {});
    return out;
}

SequenceInfo render_sequence_to_dir(const RenderSettings& settings, const std::string& dir,
                                    const RenderProgress& progress) {
    const SequenceInfo info = render_frames(
        settings, progress,
        [&](int index, Frame&& frame, const SequenceInfo& i) { sequence_write_frame(dir, i, index, frame); }, true,
        [&](const SequenceInfo& i) {
            std::filesystem::create_directories(dir);
            // Rendering over an existing sequence: its sequence.json goes before the first frame
            // is replaced.
            remove_completion_record((std::filesystem::path(dir) / "sequence.json").string());
            (void)i;
        });
    // sequence.json last: a folder whose render stopped part-way does not read as complete.
    sequence_write_info(dir, info);
    return info;
}

bool render_cuda_available() { return cuda_renderer_available(); }

}  // namespace swinup::render
