// swinup-make-weights: write the deterministic seeded initial weights of a variant to a
// .safetensors file, so that everything runs before trained weights exist. The same variant and
// seed always give the same bytes. The file is written atomically (a temporary file in the same
// folder, flushed, then renamed), so a reader never sees a half-written file.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "model/weights.h"

namespace {

// Write bytes to path through path.tmp.<pid> + fsync + rename. Returns an empty string or the
// reason for failure (the temporary file is removed).
std::string write_atomically(const std::string& path, const std::vector<uint8_t>& bytes) {
    const std::string temp = path + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return "cannot create '" + temp + "': " + std::strerror(errno);
    size_t done = 0;
    std::string error;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            error = "cannot write '" + temp + "': " + std::strerror(errno);
            break;
        }
        done += static_cast<size_t>(n);
    }
    if (error.empty() && ::fsync(fd) != 0)
        error = "cannot flush '" + temp + "': " + std::strerror(errno);
    if (::close(fd) != 0 && error.empty())
        error = "cannot close '" + temp + "': " + std::strerror(errno);
    if (error.empty() && std::rename(temp.c_str(), path.c_str()) != 0)
        error = "cannot rename '" + temp + "' to '" + path + "': " + std::strerror(errno);
    if (!error.empty()) std::remove(temp.c_str());
    return error;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Write deterministic seeded initial weights (untrained) to a .safetensors file"};
    std::string variant_text, output, description;
    uint64_t seed = 1;
    app.add_option("--variant", variant_text, "Network variant")
        ->required()
        ->check(CLI::IsMember({"lite", "full"}));
    app.add_option("--seed", seed, "Seed of the random initialisation")->capture_default_str();
    app.add_option("-o,--output", output, "Output .safetensors file")->required();
    app.add_option(
        "--description", description,
        "Metadata 'description' (default: \"seeded initial weights, seed N, untrained\")");
    CLI11_PARSE(app, argc, argv);

    swinup::Variant variant;
    swinup::parse_variant(variant_text, &variant);
    swinup::Weights weights = swinup::weights_make_initial(variant, seed);
    if (!description.empty()) weights.description = description;
    const std::vector<uint8_t> bytes = swinup::weights_serialize(weights);

    // Check what we are about to write with the same loader the library uses.
    std::string error;
    if (!swinup::weights_load_memory(bytes.data(), bytes.size(), &error)) {
        std::fprintf(stderr, "swinup-make-weights: internal error, the image does not load: %s\n",
                     error.c_str());
        return 1;
    }
    error = write_atomically(output, bytes);
    if (!error.empty()) {
        std::fprintf(stderr, "swinup-make-weights: %s\n", error.c_str());
        return 1;
    }
    std::printf("%s: %s weights, seed %llu, %llu parameters, %zu bytes\n", output.c_str(),
                variant_text.c_str(), static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(weights.parameter_count()), bytes.size());
    return 0;
}
