// A shorter run into the folder of an earlier, longer one (upscale's out.NNNN.exr, render's
// sequence frames) leaves the earlier run's frames past its own last one; they go, so that the
// folder holds exactly the frames its completion record (upscale.json, sequence.json) describes.
#pragma once

#include <limits>
#include <string>

namespace swinup::cli {

// Removes dir/<kind>.NNNN.exr (as frame_file spells them) for N = first .. end - 1, the frames an
// earlier run's record lists past this run's last one; regular files only (a missing frame, or a
// link planted under a frame's name, is left). Only that one name pattern is touched. Returns how
// many were removed; throws naming the file that cannot be removed.
int remove_stale_frames(const std::string& dir, const std::string& kind, int first,
                        int end = std::numeric_limits<int>::max());

}  // namespace swinup::cli
