#include "sequence/atomic_write.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "sequence/sequence.h"

namespace swinup {

std::string temporary_path_for(const std::string& path) { return path + ".tmp"; }

void remove_completion_record(const std::string& path) {
    std::error_code error;
    std::filesystem::remove(path, error);
    if (error) throw SequenceError(path + ": cannot remove the previous run's: " + error.message());
}

void write_file_atomically(const std::string& path,
                           const std::function<void(const std::string& temporary_path)>& write_to) {
    const std::string temporary = temporary_path_for(path);
    auto remove_temporary = [&] {
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
    };
    try {
        write_to(temporary);
    } catch (const SequenceError&) {
        remove_temporary();
        throw;
    } catch (const std::exception& e) {
        remove_temporary();
        throw SequenceError(path + ": cannot write: " + e.what());
    }
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) {
        remove_temporary();
        throw SequenceError(path + ": cannot write (rename from " + temporary +
                            " failed: " + error.message() + ")");
    }
}

void write_text_file_atomically(const std::string& path, const std::string& text) {
    write_file_atomically(path, [&](const std::string& temporary) {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) throw SequenceError(path + ": cannot open " + temporary + " for writing");
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        out.close();
        if (!out) throw SequenceError(path + ": writing " + temporary + " failed");
    });
}

}  // namespace swinup
