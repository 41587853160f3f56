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

// A fresh method (no history). Throws std::invalid_argument naming the known methods when `name`
// is not one of them.
std::unique_ptr<Upscaler> make_method(const std::string& name, const MethodOptions& options);

// Splits "a,b,c" into names, checking each; "all" means method_names().
std::vector<std::string> parse_method_list(const std::string& comma_separated);

}  // namespace swinup::eval
