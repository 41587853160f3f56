// What `swinup upscale` may replace or remove in its output folder. It never overwrites or removes
// a file it did not write: the proof that it wrote out.NNNN.exr is the folder's upscale.json, the
// record a completed run leaves ("files": "out.NNNN.exr", "frame_count": N lists out.0000.exr to
// out.(N-1) as that run's). A run stops before writing anything when it would overwrite an
// out.NNNN.exr that no record lists, or an upscale.json that is not such a record, unless the user
// passed --force (which lets this run's frames and record overwrite those names; still nothing
// unrecorded is removed). After its frames, a run removes the recorded frames past its own count.
#pragma once

#include <filesystem>
#include <string>

namespace swinup::cli {

struct UpscaleFolder {
    std::filesystem::path dir;
    // Frames out.0000.exr .. out.(recorded_frames - 1).exr were written by an earlier run (its
    // upscale.json says so); 0 when the folder holds no such record.
    int recorded_frames = 0;
    // upscale.json exists but is not a record of `swinup upscale` (a file of the user's).
    bool foreign_record = false;
};

// Reads what `dir` holds (nothing when it does not exist yet). Throws std::runtime_error when
// upscale.json cannot be read.
UpscaleFolder read_upscale_folder(const std::filesystem::path& dir);

// Throws std::runtime_error naming the first file, unless `force`, when writing `frames` frames
// and upscale.json into the folder would overwrite a file that no earlier run recorded.
void check_upscale_may_write(const UpscaleFolder& folder, int frames, bool force);

// Removes the recorded frames from index `frames` on (regular files only; a missing one is
// fine); returns how many it removed. Throws std::runtime_error when one cannot be removed.
int remove_recorded_frames_past(const UpscaleFolder& folder, int frames);

}  // namespace swinup::cli
