// swinup-make-weights: write the deterministic seeded initial weights of a variant to a
// .safetensors file, so that everything runs before trained weights exist. The same variant and
// seed always give the same bytes. The file is written atomically (sequence/atomic_write.h: a new
// temporary file beside it, flushed, then renamed), so a reader never sees a half-written file.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "model/weights.h"
#include "sequence/atomic_write.h"

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
    try {
        swinup::write_file_atomically(output, [&](int fd) {
            swinup::write_all(fd, bytes.data(), bytes.size(), output);
        });
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swinup-make-weights: %s\n", e.what());
        return 1;
    }
    std::printf("%s: %s weights, seed %llu, %llu parameters, %zu bytes\n", output.c_str(),
                variant_text.c_str(), static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(weights.parameter_count()), bytes.size());
    return 0;
}
