// The renderer's front door: render a scene (a built-in procedural scene or a glTF 2.0 file) into
// a sequence with ground truth, in memory or as a sequence folder (system.md, src/sequence).
// Used by `swinup render`, by `swinup demo` and the evaluation, and by the tests.
//
// Conventions of what it produces (written into SequenceInfo):
// - jitter: Halton(2,3) of index (frame % phases) + 1, minus 0.5, in render pixels, with
//   phases = ceil(8 s^2), s = display width / render width; the sample of render pixel (x, y)
//   sits at (x + 0.5 + jitter_x, y + 0.5 + jitter_y), +y down.
// - motion vectors: render (and optionally display) pixels, current -> previous (mv_sign = +1),
//   without the jitter difference (mv_jittered = false); camera and object motion.
// - depth: device depth of a D3D-style projection, 0 near .. 1 far (sky = 1), or reverse-Z
//   (1 - that: 1 near, 0 far, sky = 0) with depth_inverted.
// - colour: linear RGB, alpha = 1; HDR (unbounded) or LDR (tonemapped, in [0,1]).
// - masks: render resolution, per jittered sample: R = reactive, G = transparency & composition
//   (tracer.h says how they follow from the alpha-blended layers and animated textures).
// - motion masks: display resolution, R = disocclusion within the last 4 frames, G = moving
//   object (motion_masks.h says how they are derived); for scoring, not an upscaler's input.
// - ground truth: display resolution, box filter over each display pixel with gt_spp stratified
//   samples at the same instant (no motion blur), same shading and texture detail.
// Deterministic: the same settings and seed give the same bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sequence/sequence.h"

namespace swinup::render {

// Raised for bad settings, unreadable or malformed scene/camera files; what() names the problem.
struct RenderError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// The RenderError of a bad setting, found before anything is rendered: a size, count or rate out
// of range, an unknown scene or camera preset, a scene or camera file that does not exist, a glTF
// camera the scene lacks. A command line reports these as a bad value (`swinup render`: exit 2).
struct RenderSettingsError : RenderError {
    using RenderError::RenderError;
};

enum class RenderDevice { automatic, cpu, cuda };

struct RenderSettings {
    std::string scene = "showcase"; // built-in scene name (builtin_scene_names()) or a .gltf path
    int frames = 16;
    int render_width = 480, render_height = 270;
    int display_width = 960, display_height = 540;
    // "" = the scene's own camera motion (glTF files: "pan"); a preset ("static", "dolly",
    // "pan", "orbit", "shake");
    // or a path to a JSON camera path file (see camera_path.h for its format).
    std::string camera;
    int gltf_camera = 0;            // which of a glTF scene's cameras presets start from
    int gt_spp = 16;                // ground-truth samples per display pixel (>= 16, a square
                                    // number is stratified exactly, others use the next square)
    bool ground_truth = true;
    bool hdr = false;
    bool mv_display = false;        // also write display-resolution motion vectors
    bool depth_inverted = false;
    // Write the reactive and transparency & composition masks (masks.NNNN.exr, has_masks).
    bool masks = true;
    // Write the disocclusion and moving-object masks (motion_masks.NNNN.exr, has_motion_masks):
    // one more ray per display pixel, traced on the CPU whichever device renders.
    bool motion_masks = true;
    // Add this many emissive particles (particle_emitter.h) drifting through the first camera
    // pose's view, placed by `seed`: any scene, glTF files included, gets content for the masks.
    int particles = 0;
    uint64_t seed = 1;
    float frame_time_s = 1.0f / 30.0f;  // time between frames (object and camera animation)
    RenderDevice device = RenderDevice::cpu;
    // Told each thing the scene loader skipped or replaced (a missing or undecodable image
    // becomes a flat colour, a non-perspective camera is skipped), each line naming the file.
    std::function<void(const std::string&)> on_warning;
};

struct RenderedSequence {
    SequenceInfo info;
    std::vector<Frame> frames;
};

// Called after each frame with (frames done, frames in all).
using RenderProgress = std::function<void(int, int)>;

// The built-in procedural scenes: "showcase", "fence", "moire", "text", "spinner", "particles",
// "movers" (laid out by RenderSettings::seed).
std::vector<std::string> builtin_scene_names();
// One line saying what a built-in scene shows ("" for unknown names).
std::string builtin_scene_description(const std::string& name);

// Validates settings (throws RenderError naming the field), renders every frame.
RenderedSequence render_sequence(const RenderSettings& settings,
                                 const RenderProgress& progress = {});

// Same, writing each frame into `dir` as it is done (sequence_write_info / _frame), so memory
// stays at one frame. Returns the info written.
SequenceInfo render_sequence_to_dir(const RenderSettings& settings, const std::string& dir,
                                    const RenderProgress& progress = {});

// Whether this build and machine can render on the GPU.
bool render_cuda_available();

}  // namespace swinup::render
