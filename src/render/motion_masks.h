// Two display-resolution masks that score what temporal upscalers get wrong around moving
// objects, computed at render time from what only the renderer knows exactly: each surface
// point's own motion (the instances' transforms at any time) and the depth of earlier frames.
//
// Per display pixel, one ray through its centre (no jitter) finds the first opaque surface point
// P (alpha-blended layers such as particles are looked through, as for depth and motion):
//
// - disocclusion (R): P was uncovered within the last `history_frames` (4) frames. For each
//   earlier frame k = 1..4 (as many as there are since the last reset), P is moved to where it
//   was at that frame's time (its instance's transform then) and projected with that frame's
//   camera. P was hidden or outside the picture at frame k when the projection falls off the
//   display (or behind the camera), or when its view depth lies outside the range of frame k's
//   view depths at the display pixel centres around the projection (the up to 2x2 centres whose
//   bilinear weight is at least 1/100; a sky pixel has infinite depth) widened by the relative
//   `depth_tolerance` (1%). The range, not one centre, keeps sloped surfaces and silhouettes
//   from reading as uncovered: only a point whose whole neighbourhood was nearer (or farther)
//   than it was hidden. A sky pixel is uncovered when the frames around its direction had a
//   surface there. 1 if hidden in any of the frames, else 0; all 0 on a reset frame.
// - moving object (G): P belongs to an instance whose object-to-world transform differs from the
//   previous frame's (relative to the scene: the camera's own motion does not count); 1 or 0.
#pragma once

#include <deque>
#include <vector>

#include "render/camera.h"
#include "render/scene.h"
#include "sequence/image.h"

namespace swinup::render {

class MotionMaskRenderer {
public:
    // `history_frames`: how many earlier frames a pixel's surface must have been visible in
    // (4 for the sequences' masks; 1 gives what was uncovered by the last frame's motion alone).
    explicit MotionMaskRenderer(int history_frames = 4, float depth_tolerance = 0.01f)
        : history_frames_(history_frames), depth_tolerance_(depth_tolerance) {}

    // The masks of the frame at `time_s` seen by `camera` (`scene` set to that time and the
    // previous frame's, Scene::set_time), as a width x height image with 2 channels (R
    // disocclusion, G moving object, each 0 or 1). Remembers this frame's depth, camera and time
    // for the frames after it; `reset` forgets the earlier frames first (a camera cut).
    Image render(const Scene& scene, const Camera& camera, float time_s, int width, int height, bool reset);

private:
    struct PastFrame {
        Camera camera;
        float time_s = 0.0f;
        std::vector<float> view_z;  // at display pixel centres; +infinity for the sky
    };
    int history_frames_;
    float depth_tolerance_;
    int width_ = 0, height_ = 0;
    std::deque<PastFrame> past_;  // newest first, at most history_frames_
};

}  // namespace swinup::render
