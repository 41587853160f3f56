// Motion and depth conventions of a sequence, turned into the forms the evaluation uses.
//
// Sequence MVs point from the current sample to where it was in the previous frame, in pixels of
// their own resolution (sequence.h). When the sequence says they include the jitter difference
// (mv_jittered), that difference is removed here: a jittered MV is the object motion plus
// (jitter_prev - jitter_cur), so the object motion is mv - (jitter_prev - jitter_cur); display-
// resolution MVs carry the same difference times the scale. Depth is turned into reverse-Z
// (1 near, 0 far) so that "nearer" is always "larger".
#pragma once

#include "sequence/sequence.h"

namespace swinup::eval {

// Reverse-Z of a device depth: inverted ? d : 1 - d; NaN/Inf become 0 (far).
float reverse_z(float device_depth, bool depth_inverted);

// Render-resolution object motion (2 channels, render pixels, current -> previous), jitter removed.
Image render_motion(const SequenceInfo& info, const Frame& frame, int index);

// Display-resolution object motion (2 channels, display pixels, current -> previous): the
// sequence's mv_display when present, else the render MV of the render pixel under each display
// pixel's centre (nearest: interpolating across an object edge would invent motion) times the
// scale. Jitter removed as above.
Image display_motion(const SequenceInfo& info, const Frame& frame, int index);

}  // namespace swinup::eval
