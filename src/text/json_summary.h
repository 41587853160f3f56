// A short description of a JSON value for an error message. A value from a file may be an array of
// a million elements or a string of megabytes; dump() would copy all of it into the message (and
// walks nested arrays and objects recursively), so messages name a value through this instead.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace swinup {

// Strings longer than this are cut (with "..." after them) in json_summary.
inline constexpr std::size_t kJsonSummaryStringChars = 40;

// A number, true/false or null as written; a string quoted, cut after kJsonSummaryStringChars
// bytes (at a character boundary), control characters as '?'; an array or object by its size
// ("an array of 3 elements").
inline std::string json_summary(const nlohmann::json& v) {
    if (v.is_array()) {
        return "an array of " + std::to_string(v.size()) + (v.size() == 1 ? " element" : " elements");
    }
    if (v.is_object()) return "an object of " + std::to_string(v.size()) + (v.size() == 1 ? " key" : " keys");
    if (v.is_string()) {
        const std::string& s = v.get_ref<const std::string&>();
        std::size_t cut = std::min(s.size(), kJsonSummaryStringChars);
        // Not inside a UTF-8 sequence: back to the first byte of the character cut through.
        while (cut < s.size() && cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0u) == 0x80u) --cut;
        std::string out = "\"" + s.substr(0, cut);
        for (std::size_t i = 1; i < out.size(); ++i) {
            if (static_cast<unsigned char>(out[i]) < 0x20) out[i] = '?';
        }
        return out + (cut < s.size() ? "...\"" : "\"");
    }
    if (v.is_binary()) return "binary data";
    return v.dump();  // a number, true, false or null: a few characters
}

}  // namespace swinup
