// Parses JSON, finds a key given twice in one object, and refuses documents nested too deep.
//
// A key given twice: nlohmann::json keeps the last of two equal keys without a word, so a file
// that says "exposure" (or names a tensor, or gives a camera path's "keys") twice would be read as
// one of them silently; which one was meant is unknowable, so the readers of sequence.json,
// weights headers and camera paths reject such a file and name the key.
//
// Nesting: parsing itself keeps its state on the heap at any depth, but whatever later walks a
// value recursively (nlohmann's dump() and operator==, tinygltf's conversion of a glTF's JSON to
// its own values) takes stack for every level. A weights header whose "shape" nested 100,000
// arrays deep (200 KB) overflowed the stack of swinup_context_create, and 10,000 levels (20 KB)
// are enough on a game's 1 MB thread stack. So every document this project reads passes one
// nesting limit (kMaxJsonNesting, below), here, before any value exists.
//
// Why a SAX handler and not json::parse's callback: the callback form builds every value through
// nlohmann's callback parser, which took 42 s on a 21 MB camera path of 300k keys that
// json::parse reads in 0.35 s (2026-12-04, this machine). This handler is the library's own DOM
// builder (json_sax_dom_parser, what json::parse uses) with one check added where a key arrives,
// so the parse costs what json::parse costs plus the check (0.34 s on that file).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

namespace swinup {

// How deep arrays and objects may nest in any JSON this project reads. The files it reads nest
// 2-4 levels (a weights header: header, tensor, shape; a camera path: top, keys, key, position),
// and the glTF scenes in use 6 (extras written by modelling tools may add a few). 128 is far
// above all of them, and a recursive walk of 128 levels stays well inside a small thread's stack:
// nlohmann's dump() takes about 115 bytes a level (15 KB), tinygltf's conversion of a glTF about
// 530 (67 KB) (2026-12-04, this machine, -O3).
inline constexpr std::size_t kMaxJsonNesting = 128;

// A document nested deeper than kMaxJsonNesting. It is a json::exception, so that a reader that
// catches malformed JSON refuses it too; what() names the depth and the limit (readers add the
// file). The id is 0: nlohmann's own ids start at 101.
class JsonNestingTooDeep : public nlohmann::json::exception {
public:
    explicit JsonNestingTooDeep(std::size_t depth)
        : exception(0, message(depth).c_str()), depth_(depth) {}
    std::size_t depth() const { return depth_; }

private:
    static std::string message(std::size_t depth) {
        return "arrays and objects nested " + std::to_string(depth) + " levels deep, over the limit of " +
               std::to_string(kMaxJsonNesting);
    }
    std::size_t depth_;
};

namespace json_detail {

// Measures how deep arrays and objects nest, building nothing (its memory is the parser's own
// state, one bit a level). Malformed text ends the measurement where it goes wrong.
class NestingMeter {
public:
    using json = nlohmann::json;
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t) { return true; }
    bool number_unsigned(json::number_unsigned_t) { return true; }
    bool number_float(json::number_float_t, const json::string_t&) { return true; }
    bool string(json::string_t&) { return true; }
    bool binary(json::binary_t&) { return true; }
    bool key(json::string_t&) { return true; }
    bool start_object(std::size_t) { return open(); }
    bool start_array(std::size_t) { return open(); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    template <class Exception>
    bool parse_error(std::size_t, const std::string&, const Exception&) { return false; }

    std::size_t deepest() const { return deepest_; }

private:
    bool open() {
        deepest_ = std::max(deepest_, ++depth_);
        return true;
    }
    bool close() {
        --depth_;
        return true;
    }
    std::size_t depth_ = 0, deepest_ = 0;
};

inline std::size_t nesting_depth(std::string_view text) {
    NestingMeter meter;
    nlohmann::json::sax_parse(text.begin(), text.end(), &meter);
    return meter.deepest();
}

// nlohmann's DOM builder lives in its detail namespace (there since 3.2; Debian 12 ships 3.11.2).
// sax_parse is a template on the handler type, so these members hide the base's without virtuals.
class DomBuilderFindingRepeatedKey
    : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
    using Base = nlohmann::detail::json_sax_dom_parser<nlohmann::json>;

public:
    explicit DomBuilderFindingRepeatedKey(nlohmann::json& value) : Base(value, true) {}

    // Returning false ends the parse (sax_parse returns false) before the value goes deeper.
    bool start_object(std::size_t n) {
        if (!enter()) return false;
        open_.push_back(OpenObject{keys_.size(), nullptr});
        return Base::start_object(n);
    }
    bool end_object() {
        --depth_;
        keys_.resize(open_.back().first_key);
        open_.pop_back();
        return Base::end_object();
    }
    bool start_array(std::size_t n) { return enter() && Base::start_array(n); }
    bool end_array() {
        --depth_;
        return Base::end_array();
    }
    bool key(std::string& k) {
        if (repeated_.empty() && !insert(k)) repeated_ = k;
        return Base::key(k);
    }
    const std::string& repeated() const { return repeated_; }
    bool too_deep() const { return too_deep_; }

private:
    bool enter() {
        if (depth_ == kMaxJsonNesting) {
            too_deep_ = true;
            return false;
        }
        ++depth_;
        return true;
    }

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
    std::size_t depth_ = 0;  // arrays and objects open now
    bool too_deep_ = false;
};

}  // namespace json_detail

struct ParsedJson {
    nlohmann::json value;
    // The first key found twice in one object (control characters as '?'), or empty.
    std::string repeated_key;
};

// Throws JsonNestingTooDeep if arrays and objects in `text` nest deeper than kMaxJsonNesting;
// says nothing about malformed text (for text that another parser then reads and judges: a glTF).
inline void check_json_nesting(std::string_view text) {
    const std::size_t depth = json_detail::nesting_depth(text);
    if (depth > kMaxJsonNesting) throw JsonNestingTooDeep(depth);
}

// Parses `text` as nlohmann::json::parse(text) does: the whole text must be one JSON value, and
// malformed text throws what json::parse throws, with the same message: a parse_error, or an
// out_of_range for a number beyond a double (1e500); callers catch nlohmann::json::exception.
// Text nested deeper than kMaxJsonNesting throws JsonNestingTooDeep (also a json::exception),
// after one more pass that measures its whole depth for the message.
inline ParsedJson parse_json_finding_repeated_key(std::string_view text) {
    ParsedJson parsed;
    json_detail::DomBuilderFindingRepeatedKey builder(parsed.value);
    nlohmann::json::sax_parse(text.begin(), text.end(), &builder);
    if (builder.too_deep()) throw JsonNestingTooDeep(json_detail::nesting_depth(text));
    parsed.repeated_key = builder.repeated();
    for (char& c : parsed.repeated_key) {
        if (c >= 0 && c < 0x20) c = '?';  // control characters stay out of messages
    }
    return parsed;
}

}  // namespace swinup
