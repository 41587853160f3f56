// The evaluated methods by name: the spatial baselines, the TAAU and the network.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "eval/swinup_method.h"
#include "eval/taau.h"
#include "eval/upscaler.h"

namespace swinup::eval {

struct MethodOptions {
    SwinupMethodOptions swinup;  // backend, variant, precision, weights of the "swinup" method
    TaauSettings taau;           // tuning of the "taau" method
};

// All names, in table order: nearest, bilinear, bicubic, lanczos3, taau, swinup.
const std::vector<std::string>& method_names();

// The suffix that runs a method without the sequence's reactive / transparency masks, so that one
// evaluation scores a method with and without them side by side ("taau" and "taau-nomasks").
inline constexpr const char* kWithoutMasksSuffix = "-nomasks";

// A fresh method (no history): one of method_names(), or one of them with kWithoutMasksSuffix.
// Throws std::invalid_argument naming the known methods for any other name.
std::unique_ptr<Upscaler> make_method(const std::string& name, const MethodOptions& options);

// Splits "a,b,c" into names, checking each; "all" means method_names().
std::vector<std::string> parse_method_list(const std::string& comma_separated);

}  // namespace swinup::eval
