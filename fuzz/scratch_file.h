// For readers that take a path (the glTF loader): the input is written to a file in a folder of
// this process's own (mkdtemp, so parallel fuzzers do not meet), removed when the process exits.
#pragma once

#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace swinup::fuzz {

inline const std::filesystem::path& scratch_folder() {
    static const std::filesystem::path folder = [] {
        std::string pattern = (std::filesystem::temp_directory_path() / "swinup-fuzz-XXXXXX").string();
        if (mkdtemp(pattern.data()) == nullptr) {
            std::perror("mkdtemp");
            std::abort();
        }
        std::atexit([] {
            std::error_code ignored;
            std::filesystem::remove_all(scratch_folder(), ignored);
        });
        return std::filesystem::path(pattern);
    }();
    return folder;
}

// Writes the bytes to scratch_folder()/name and returns its path.
inline std::string scratch_file(const std::string& name, const uint8_t* data, size_t size) {
    const std::filesystem::path path = scratch_folder() / name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) {
        std::perror(path.c_str());
        std::abort();
    }
    return path.string();
}

}  // namespace swinup::fuzz
