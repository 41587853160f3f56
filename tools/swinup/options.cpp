#include "options.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include "usage_error.h"

namespace swinup::cli {
namespace {

template <typename Enum>
using NameTable = std::vector<std::pair<std::string, Enum>>;

const NameTable<swinup_variant> kVariants = {{"lite", SWINUP_VARIANT_LITE},
                                             {"full", SWINUP_VARIANT_FULL}};
const NameTable<swinup_precision> kPrecisions = {{"exact", SWINUP_PRECISION_EXACT},
                                                 {"fast", SWINUP_PRECISION_FAST}};
const NameTable<swinup_backend> kBackends = {
    {"auto", SWINUP_BACKEND_AUTO}, {"cpu", SWINUP_BACKEND_CPU}, {"cuda", SWINUP_BACKEND_CUDA},
    {"vulkan", SWINUP_BACKEND_VULKAN}};
const NameTable<swinup_format> kOutputFormats = {{"rgba16f", SWINUP_FORMAT_RGBA16F},
                                                 {"r10g10b10a2", SWINUP_FORMAT_R10G10B10A2},
                                                 {"rgba8", SWINUP_FORMAT_RGBA8},
                                                 {"b10g11r11f", SWINUP_FORMAT_B10G11R11F}};

template <typename Enum>
std::vector<std::string> names_of(const NameTable<Enum>& table) {
    std::vector<std::string> names;
    for (const auto& entry : table) names.push_back(entry.first);
    return names;
}

// A table's names, built on its first call and kept, since the *_names() functions return references.
template <const auto& table>
const std::vector<std::string>& names_once() {
    static const auto names = names_of(table);
    return names;
}

template <typename Enum>
Enum lookup(const NameTable<Enum>& table, const std::string& name, const char* what) {
    for (const auto& entry : table) {
        if (entry.first == name) return entry.second;
    }
    std::string accepted;
    for (const auto& entry : table) accepted += (accepted.empty() ? "" : ", ") + entry.first;
    throw UsageError(std::string("unknown ") + what + " '" + name + "' (one of " +
                                accepted + ")");
}

template <typename Enum>
const char* label_of(const NameTable<Enum>& table, Enum value) {
    for (const auto& entry : table) {
        if (entry.second == value) return entry.first.c_str();
    }
    return "?";
}

}  // namespace

Size2 parse_size(const std::string& text, const std::string& option) {
    constexpr uint32_t kMaxSide = 16384;
    const auto fail = [&] {
        throw UsageError(option + " '" + text +
                                    "' is not a size WIDTHxHEIGHT (each 1 .. 16384)");
    };
    const size_t x = text.find('x');
    if (x == std::string::npos) fail();
    Size2 size;
    const char* begin = text.data();
    const char* end = text.data() + text.size();
    auto [width_end, width_error] = std::from_chars(begin, begin + x, size.width);
    auto [height_end, height_error] = std::from_chars(begin + x + 1, end, size.height);
    if (width_error != std::errc() || width_end != begin + x || height_error != std::errc() ||
        height_end != end || size.width < 1 || size.height < 1 || size.width > kMaxSide ||
        size.height > kMaxSide) {
        fail();
    }
    return size;
}

CLI::Validator number_range(double min, double max) {
    const CLI::Range range(min, max);
    return CLI::Validator(
        [range](std::string& text) -> std::string {
            double value = 0.0;
            if (CLI::detail::lexical_cast(text, value) && std::isnan(value)) {
                return "Value " + text + " is not a number";
            }
            return range(text);
        },
        range.get_description());
}

CLI::Validator unsigned_64() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            uint64_t value = 0;
            const char* end = text.data() + text.size();
            const auto [stop, error] = std::from_chars(text.data(), end, value);
            if (text.empty() || error != std::errc() || stop != end) {
                return "Value " + text + " is not a whole number from 0 to 18446744073709551615";
            }
            return {};
        },
        "");
}

std::string size_text(uint32_t width, uint32_t height) {
    return std::to_string(width) + "x" + std::to_string(height);
}

const std::vector<std::string>& variant_names() { return names_once<kVariants>(); }
const std::vector<std::string>& precision_names() { return names_once<kPrecisions>(); }
const std::vector<std::string>& backend_names() { return names_once<kBackends>(); }
const std::vector<std::string>& output_format_names() { return names_once<kOutputFormats>(); }

swinup_variant parse_variant_option(const std::string& name) {
    return lookup(kVariants, name, "variant");
}
swinup_precision parse_precision_option(const std::string& name) {
    return lookup(kPrecisions, name, "precision");
}
swinup_backend parse_backend_option(const std::string& name) {
    return lookup(kBackends, name, "backend");
}
swinup_format parse_output_format_option(const std::string& name) {
    return lookup(kOutputFormats, name, "output format");
}

const char* variant_label(swinup_variant v) { return label_of(kVariants, v); }
const char* precision_label(swinup_precision p) { return label_of(kPrecisions, p); }
const char* backend_label(swinup_backend b) { return label_of(kBackends, b); }
const char* format_label(swinup_format f) { return label_of(kOutputFormats, f); }

void add_network_options(CLI::App* cmd, NetworkOptions* options, const std::string& help_prefix) {
    cmd->add_option("--variant", options->variant, help_prefix + "network variant")
        ->check(CLI::IsMember(variant_names()))
        ->capture_default_str();
    cmd->add_option("--precision", options->precision, help_prefix + "arithmetic: exact or fast")
        ->check(CLI::IsMember(precision_names()))
        ->capture_default_str();
    cmd->add_option("--backend", options->backend, help_prefix + "where to run")
        ->check(CLI::IsMember(backend_names()))
        ->capture_default_str();
    cmd->add_option("--weights", options->weights,
                    help_prefix + "a .safetensors weights file (default: embedded)")
        ->check(CLI::ExistingFile);
}

void apply_network_options(const NetworkOptions& options, swinup_context_desc* desc) {
    desc->backend = parse_backend_option(options.backend);
    desc->variant = parse_variant_option(options.variant);
    desc->precision = parse_precision_option(options.precision);
    if (!options.weights.empty()) {
        desc->weights_source = SWINUP_WEIGHTS_PATH;
        desc->weights_path = options.weights.c_str();
    }
}

}  // namespace swinup::cli
