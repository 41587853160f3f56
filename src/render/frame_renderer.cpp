#include "render/frame_renderer.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace swinup::render {

Frame render_frame_cpu(const SceneView& scene, const FrameRequest& request) {
    const FrameParams& p = request.params;
    Frame frame;
    frame.color = Image(p.render_width, p.render_height, 4);
    frame.depth = Image(p.render_width, p.render_height, 1);
    frame.mv = Image(p.render_width, p.render_height, 2);
    frame.masks = Image(p.render_width, p.render_height, 2);
    tbb::parallel_for(0, p.render_height, [&](int y) {
        for (int x = 0; x < p.render_width; ++x) {
            render_pixel(scene, p, x, y, frame.color.pixel(x, y), frame.depth.pixel(x, y), frame.mv.pixel(x, y),
                         frame.masks.pixel(x, y));
        }
    });
    if (request.mv_display) {
        frame.mv_display = Image(p.display_width, p.display_height, 2);
        tbb::parallel_for(0, p.display_height, [&](int y) {
            for (int x = 0; x < p.display_width; ++x) display_motion_pixel(scene, p, x, y, frame.mv_display.pixel(x, y));
        });
    }
    if (request.ground_truth) {
        frame.gt = Image(p.display_width, p.display_height, 4);
        tbb::parallel_for(0, p.display_height, [&](int y) {
            for (int x = 0; x < p.display_width; ++x) ground_truth_pixel(scene, p, x, y, frame.gt.pixel(x, y));
        });
    }
    return frame;
}

}  // namespace swinup::render
