// Parses JSON and finds a key given twice in one object. nlohmann::json keeps the last of two
// equal keys without a word, so a file that says "exposure" (or names a tensor, or gives a camera
// path's "keys") twice would be read as one of them silently; which one was meant is unknowable,
// so the readers of sequence.json, weights headers and camera paths reject such a file and name
// the key.
//
// Why a SAX handler and not json::parse's callback: the callback form builds every value through
// nlohmann's callback parser, which took 42 s on a 21 MB camera path of 300k keys that
// json::parse reads in 0.35 s (2026-12-04, this machine). This handler is the library's own DOM
// builder (json_sax_dom_parser, what json::parse uses) with one check added where a key arrives,
// so the parse costs what json::parse costs plus the check (0.34 s on that file).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

namespace swinup {

namespace json_detail {

// nlohmann's DOM builder lives in its detail namespace (there since 3.2; Debian 12 ships 3.11.2).
// sax_parse is a template on the handler type, so these members hide the base's without virtuals.
class DomBuilderFindingRepeatedKey
    : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
    using Base = nlohmann::detail::json_sax_dom_parser<nlohmann::json>;

public:
    explicit DomBuilderFindingRepeatedKey(nlohmann::json& value) : Base(value, true) {}

    bool start_object(std::size_t n) {
        open_.push_back(OpenObject{keys_.size(), nullptr});
        return Base::start_object(n);
    }
    bool end_object() {
        keys_.resize(open_.back().first_key);
        open_.pop_back();
        return Base::end_object();
    }
    bool key(std::string& k) {
        if (repeated_.empty() && !insert(k)) repeated_ = k;
        return Base::key(k);
    }
    const std::string& repeated() const { return repeated_; }

private:
    // An object's keys: compared one by one while it has few (most objects have 1-10 keys, and a
    // set per object would cost an allocation per key), in a hash set once it has many (a hostile
    // object with a million keys must not take a million squared comparisons).
    static constexpr std::size_t kLinearKeys = 32;
    struct OpenObject {
        std::size_t first_key;  // its keys are keys_[first_key..] while `many` is null
        std::unique_ptr<std::unordered_set<std::string>> many;
    };

    bool insert(const std::string& k) {
        OpenObject& o = open_.back();
        if (o.many) return o.many->insert(k).second;
        for (std::size_t i = o.first_key; i < keys_.size(); ++i) {
            if (keys_[i] == k) return false;
        }
        keys_.push_back(k);
        if (keys_.size() - o.first_key > kLinearKeys) {
            o.many = std::make_unique<std::unordered_set<std::string>>(
                keys_.begin() + static_cast<std::ptrdiff_t>(o.first_key), keys_.end());
            keys_.resize(o.first_key);
        }
        return true;
    }

    std::vector<std::string> keys_;  // the keys of the open objects, outermost first
    std::vector<OpenObject> open_;
    std::string repeated_;
};

}  // namespace json_detail

struct ParsedJson {
    nlohmann::json value;
    // The first key found twice in one object (control characters as '?'), or empty.
    std::string repeated_key;
};

// Parses `text` as nlohmann::json::parse(text) does: the whole text must be one JSON value, and
// malformed text throws what json::parse throws, with the same message: a parse_error, or an
// out_of_range for a number beyond a double (1e500); callers catch nlohmann::json::exception.
inline ParsedJson parse_json_finding_repeated_key(std::string_view text) {
    ParsedJson parsed;
    json_detail::DomBuilderFindingRepeatedKey builder(parsed.value);
    nlohmann::json::sax_parse(text.begin(), text.end(), &builder);
    parsed.repeated_key = builder.repeated();
    for (char& c : parsed.repeated_key) {
        if (c >= 0 && c < 0x20) c = '?';  // control characters stay out of messages
    }
    return parsed;
}

}  // namespace swinup
