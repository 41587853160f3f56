// Writing a file so that no half-written file ever carries the target's name, and so that nothing
// but the target can be written. The content goes to a new temporary file in the target's folder,
// named "<target name>.<12 random letters and digits>.tmp" and created with
// O_CREAT | O_EXCL | O_NOFOLLOW: whatever already exists under a name (a file, a folder, or a
// symbolic link a third party planted there, dangling or not) is never opened, another name is
// drawn instead. The file is made with mode 0666 less the process's umask, like any new file. It
// is written through its file descriptor, flushed to disk (fsync), and renamed over the target
// (rename is atomic within a file system). On any failure the temporary file is removed, the
// target is left as it was, and SequenceError is thrown.
//
// When the target itself is a symbolic link, the rename replaces the link by the new file: the
// file the link pointed to is neither written nor removed.
//
// Two writers of one target never share a temporary file; the last rename wins, and the target
// always holds one writer's complete content.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace swinup {

// Creates the temporary file, calls write_to(fd) to fill it (write_to must not close fd, and
// throws to fail), then flushes, closes and renames it to `path`. Exceptions from write_to
// become SequenceError naming `path`.
void write_file_atomically(const std::string& path, const std::function<void(int fd)>& write_to);

// write_file_atomically for a text (e.g. JSON) file.
void write_text_file_atomically(const std::string& path, const std::string& text);

// Writes all `size` bytes to fd (retrying short writes and EINTR); throws SequenceError naming
// `path` when the system refuses.
void write_all(int fd, const void* data, size_t size, const std::string& path);

// Tries whether write_file_atomically could write `path` now: creates its temporary file exactly
// as a write would and removes it again, touching nothing else. Throws SequenceError naming
// `path` and the reason (e.g. a folder that does not exist or is read-only).
void check_writable(const std::string& path);

// Removes the file that says a folder's contents are complete (sequence.json, upscale.json)
// before a new run replaces them: a run that stops part-way must not leave it describing a mix
// of new and old files. Absent is fine; a file that cannot be removed throws SequenceError.
void remove_completion_record(const std::string& path);

}  // namespace swinup
