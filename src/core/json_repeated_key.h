// Finds a key given twice in one JSON object while nlohmann::json parses. The parser keeps the
// last of two equal keys without a word, so a file that says "exposure" (or names a tensor) twice
// would be read as one of them silently; which one was meant is unknowable, so the readers of
// sequence.json and of weights headers reject such a file and name the key.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace swinup {

class RepeatedKeyFinder {
public:
    // The callback for nlohmann::json::parse; keeps every value (returns true).
    nlohmann::json::parser_callback_t callback() {
        return [this](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
            using Event = nlohmann::json::parse_event_t;
            if (event == Event::object_start) keys_of_open_objects_.emplace_back();
            if (event == Event::object_end) keys_of_open_objects_.pop_back();
            if (event == Event::key && repeated_.empty() &&
                !keys_of_open_objects_.back().insert(parsed.get<std::string>()).second) {
                repeated_ = parsed.get<std::string>();
                for (char& c : repeated_) {
                    if (c >= 0 && c < 0x20) c = '?';  // control characters stay out of messages
                }
            }
            return true;
        };
    }
    // The first key found twice in one object (control characters as '?'), or empty.
    const std::string& repeated() const { return repeated_; }

private:
    std::vector<std::set<std::string>> keys_of_open_objects_;
    std::string repeated_;
};

}  // namespace swinup
