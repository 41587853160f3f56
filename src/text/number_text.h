// A float as text for messages and files: the shortest decimal form that reads back as exactly
// the same float ("0.1", "-0.51", "0.50000006", "1e-45", "inf", "nan"). A value just outside a
// range must not print as the bound it broke, as six significant digits ("%g") would.
#pragma once

#include <charconv>
#include <cmath>
#include <string>

namespace swinup {

inline std::string shortest_text(float v) {
    if (std::isnan(v)) return "nan";  // whatever its sign bit: to_chars would say "-nan" for some
    char buffer[64];
    const std::to_chars_result end = std::to_chars(buffer, buffer + sizeof buffer, v);
    return std::string(buffer, end.ptr);
}

}  // namespace swinup
