// Writing a file so that no half-written file ever carries the target's name: the content goes
// to "<path>.tmp", which is renamed over <path> only once it is complete (rename is atomic within
// a file system). On any failure the temporary file is removed and SequenceError is thrown.
#pragma once

#include <functional>
#include <string>

namespace swinup {

// Calls write_to(temporary_path), which must create and complete that file (or throw), then
// renames it to `path`. Exceptions from write_to become SequenceError naming `path`.
void write_file_atomically(const std::string& path,
                           const std::function<void(const std::string& temporary_path)>& write_to);

// write_file_atomically for a text (e.g. JSON) file.
void write_text_file_atomically(const std::string& path, const std::string& text);

// The temporary name used while `path` is being written.
std::string temporary_path_for(const std::string& path);

// Removes the file that says a folder's contents are complete (sequence.json, upscale.json)
// before a new run replaces them: a run that stops part-way must not leave it describing a mix
// of new and old files. Absent is fine; a file that cannot be removed throws SequenceError.
void remove_completion_record(const std::string& path);

}  // namespace swinup
