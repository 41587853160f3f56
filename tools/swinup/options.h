// Names of the C API's enums on the command line and back, and "WxH" sizes, shared by the
// subcommands so that every one spells --variant, --backend, --format and sizes alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "swinup/swinup.h"

namespace CLI {
class App;
class Validator;
}

namespace swinup::cli {

struct Size2 {
    uint32_t width = 0;
    uint32_t height = 0;
};

// "1920x1080" -> {1920, 1080}; throws UsageError (usage_error.h) naming `option` on anything else
// (zero, negative, over 16384, trailing characters).
Size2 parse_size(const std::string& text, const std::string& option);
std::string size_text(uint32_t width, uint32_t height);

// CLI::Range for floating-point options that also rejects "nan": CLI::Range lets NaN through
// (every comparison with it is false), and the command would then run on a NaN setting.
CLI::Validator number_range(double min, double max);

// A whole number that fits 64 unsigned bits, in decimal digits only: CLI11 itself reads "-1" into
// an unsigned option as 2^64 - 1, and CLI::Range<uint64_t> checks that wrapped value.
CLI::Validator unsigned_64();

// Accepted names, for CLI::IsMember checks and help texts.
const std::vector<std::string>& variant_names();    // lite, full
const std::vector<std::string>& precision_names();  // exact, fast
const std::vector<std::string>& backend_names();    // auto, cpu, cuda
const std::vector<std::string>& output_format_names();  // rgba16f, r10g10b10a2, rgba8, b10g11r11f

// Name -> enum; throw UsageError for names not in the lists above.
swinup_variant parse_variant_option(const std::string& name);
swinup_precision parse_precision_option(const std::string& name);
swinup_backend parse_backend_option(const std::string& name);
swinup_format parse_output_format_option(const std::string& name);

// The network choices that every command running swinup accepts (info, upscale, eval, demo),
// registered by one function so that each command spells, defaults and checks them alike.
struct NetworkOptions {
    std::string variant = "lite";
    std::string precision = "exact";
    std::string backend = "auto";
    std::string weights;  // a .safetensors file; empty: the embedded default
};
// Adds --variant, --precision, --backend and --weights to `cmd`; `help_prefix` starts each help
// text (e.g. "swinup: " in commands that also run other methods).
void add_network_options(CLI::App* cmd, NetworkOptions* options, const std::string& help_prefix);
// Writes the choices into a context descriptor (backend, variant, precision, weights source).
// desc->weights_path points into `options`, which must outlive the create call.
void apply_network_options(const NetworkOptions& options, swinup_context_desc* desc);

const char* variant_label(swinup_variant v);
const char* precision_label(swinup_precision p);
const char* backend_label(swinup_backend b);
const char* format_label(swinup_format f);

}  // namespace swinup::cli
