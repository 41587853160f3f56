// Emissive particles for any scene (the built-in `particles` scene and `swinup render
// --particles N`): soft, alpha-blended, glowing sprites that drift upwards through the view of a
// camera pose. They are what a game draws after its opaque pass with no depth and no motion
// vectors of their own, so the sequence's motion vectors stay those of the surfaces behind them
// and only the reactive and transparency masks say that they are there.
#pragma once

#include <cstdint>

#include "render/camera_path.h"
#include "render/scene.h"

namespace swinup::render {

struct ParticleEmitterSettings {
    int count = 64;
    // Distances from the camera over which the particles are spread, in units of the scene's
    // characteristic length (Scene::scale).
    float near_fraction = 0.08f, far_fraction = 0.35f;
    // Apparent radius: this fraction of the vertical field of view's half-height at the
    // particle's distance.
    float radius_fraction = 0.035f;
    // Apparent speed: fractions of that half-height per second (upward, and a sideways sway).
    float rise_fraction = 0.5f, sway_fraction = 0.15f;
    Vec3 emissive{2.0f, 0.8f, 0.2f};  // glow colour (added to the sprite's lit colour)
    float peak_alpha = 0.9f;          // sprite alpha at its centre
    uint64_t seed = 1;
};

// Adds `settings.count` particles (one sprite mesh, one animated instance each) that face `view`
// and, over time, rise through the part of the scene `view` sees, each wrapping back to the
// bottom of the view when it leaves the top. Deterministic in the seed. Call before rendering
// (Scene::set_time places them).
void add_particle_emitter(Scene& scene, const CameraPose& view, const ParticleEmitterSettings& settings);

}  // namespace swinup::render
