#include "sequence/atomic_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <random>
#include <system_error>

#include "sequence/sequence.h"

namespace swinup {
namespace {

std::string error_text(int error) { return std::generic_category().message(error); }

// 62^12 names: a third party cannot plant a file under every name the writer may draw, and two
// writers of one target (in this process or another) never draw the same name in practice; when
// they do, O_EXCL makes the second one draw again.
std::string random_suffix() {
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::random_device device;
    std::uniform_int_distribution<size_t> pick(0, sizeof kAlphabet - 2);
    std::string suffix(12, '\0');
    for (char& c : suffix) c = kAlphabet[pick(device)];
    return suffix;
}

struct TemporaryFile {
    int fd = -1;
    std::string path;
};

// A new file beside `path` (its name is `path` with a suffix appended, so it is in the target's
// folder and on its file system, which rename needs), created by this call: O_EXCL fails on any
// existing name, a symbolic link included, and O_NOFOLLOW says so twice. Mode 0666: the kernel
// applies the umask, as for any file a program creates.
TemporaryFile create_temporary_beside(const std::string& path) {
    constexpr int kAttempts = 100;
    std::string candidate;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        try {
            candidate = path + "." + random_suffix() + ".tmp";
        } catch (const std::exception& e) {
            throw SequenceError(path + ": cannot draw a temporary file name: " + e.what());
        }
        const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) return {fd, candidate};
        if (errno != EEXIST) {
            throw SequenceError(path + ": cannot create a temporary file beside it (" + candidate +
                                "): " + error_text(errno));
        }
    }
    throw SequenceError(path + ": cannot create a temporary file beside it: " +
                        std::to_string(kAttempts) + " random names were all taken (last " +
                        candidate + ")");
}

}  // namespace

void write_all(int fd, const void* data, size_t size, const std::string& path) {
    const char* bytes = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(fd, bytes, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            throw SequenceError(path + ": writing failed: " +
                                (n < 0 ? error_text(errno) : std::string("no byte was written")));
        }
        bytes += n;
        size -= static_cast<size_t>(n);
    }
}

void check_writable(const std::string& path) {
    const TemporaryFile probe = create_temporary_beside(path);
    ::close(probe.fd);
    ::unlink(probe.path.c_str());
}

void remove_completion_record(const std::string& path) {
    std::error_code error;
    std::filesystem::remove(path, error);
    if (error) throw SequenceError(path + ": cannot remove the previous run's: " + error.message());
}

void write_file_atomically(const std::string& path, const std::function<void(int fd)>& write_to) {
    TemporaryFile temporary = create_temporary_beside(path);
    // Closes (if still open) and removes the temporary file; the target is untouched until rename.
    const auto discard = [&] {
        if (temporary.fd >= 0) ::close(temporary.fd);
        temporary.fd = -1;
        ::unlink(temporary.path.c_str());
    };
    try {
        write_to(temporary.fd);
    } catch (const SequenceError&) {
        discard();
        throw;
    } catch (const std::exception& e) {
        discard();
        throw SequenceError(path + ": cannot write: " + e.what());
    } catch (...) {
        discard();
        throw;
    }
    // Flushed before the rename: after a crash the target holds the old content or the new one,
    // never a name pointing at blocks that were not written yet.
    if (::fsync(temporary.fd) != 0) {
        const std::string reason = error_text(errno);
        discard();
        throw SequenceError(path + ": cannot flush " + temporary.path + ": " + reason);
    }
    const int closed = ::close(temporary.fd);
    temporary.fd = -1;
    if (closed != 0) {
        const std::string reason = error_text(errno);
        discard();
        throw SequenceError(path + ": cannot close " + temporary.path + ": " + reason);
    }
    // rename(2) replaces the name `path`: a symbolic link there is replaced, not followed.
    if (::rename(temporary.path.c_str(), path.c_str()) != 0) {
        const std::string reason = error_text(errno);
        discard();
        throw SequenceError(path + ": cannot write (rename from " + temporary.path +
                            " failed: " + reason + ")");
    }
}

void write_text_file_atomically(const std::string& path, const std::string& text) {
    write_file_atomically(path, [&](int fd) { write_all(fd, text.data(), text.size(), path); });
}

}  // namespace swinup
