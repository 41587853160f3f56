// sequence.json <-> SequenceInfo, with every field checked for presence, type and range so that
// a reader never runs on a convention it does not understand.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "text/json_repeated_key.h"
#include "text/number_text.h"
#include "sequence/sequence.h"

namespace swinup {
namespace {

using nlohmann::json;

constexpr const char* kFormatName = "swinup-sequence";
constexpr int kFormatVersion = 1;
constexpr int kMaxSide = 16384;
constexpr int kMaxFrames = 1000000;  // frame_file() names up to 7 digits

// A float as the double with the shortest decimal form that reads back as the same float, so
// that sequence.json says 0.1 rather than 0.10000000149011612 (and still round-trips exactly).
double shortest_double(float f) {
    if (!std::isfinite(f)) return double(f);
    return std::strtod(shortest_text(f).c_str(), nullptr);
}

json float_array(const std::vector<float>& values) {
    json a = json::array();
    for (float v : values) a.push_back(shortest_double(v));
    return a;
}

// Reads fields of one JSON object, naming each by its path ("conventions.hdr") in errors, and
// rejects keys it was not asked about.
class ObjectReader {
public:
    ObjectReader(const json& object, std::string prefix, const std::string& source)
        : object_(object), prefix_(std::move(prefix)), source_(source) {
        if (!object_.is_object()) fail(prefix_.empty() ? "the document" : prefix_, "an object");
    }

    const json* find(const std::string& key) {
        known_.insert(key);
        auto it = object_.find(key);
        return it == object_.end() ? nullptr : &*it;
    }
    const json& require(const std::string& key) {
        const json* v = find(key);
        if (v == nullptr) throw SequenceError(source_ + ": missing key '" + path(key) + "'");
        return *v;
    }

    int integer(const json& v, const std::string& key) {
        if (!v.is_number_integer()) fail(path(key), "an integer");
        // Unsigned values above INT64_MAX would wrap to negative ones in get<int64_t>() (and be
        // reported as, say, -1 when the file says 18446744073709551615).
        if (v.is_number_unsigned() && v.get<uint64_t>() > (uint64_t(1) << 30)) {
            fail(path(key), "a small integer");
        }
        const auto i = v.get<int64_t>();
        if (i < -(int64_t(1) << 30) || i > (int64_t(1) << 30)) fail(path(key), "a small integer");
        return static_cast<int>(i);
    }
    float number(const json& v, const std::string& key) {
        if (!v.is_number()) fail(path(key), "a number");
        // Out-of-range doubles become +-Inf explicitly (the cast itself would be undefined).
        const double d = v.get<double>();
        if (std::fabs(d) > double(std::numeric_limits<float>::max())) {
            return d > 0 ? std::numeric_limits<float>::infinity()
                         : -std::numeric_limits<float>::infinity();
        }
        // A non-zero value that rounds to a float zero would be read (and reported) as 0.
        if (d != 0.0 && static_cast<float>(d) == 0.0f) {
            fail(path(key), "0 or a number a float can hold (this one rounds to 0)");
        }
        return static_cast<float>(d);
    }
    bool boolean(const json& v, const std::string& key) {
        if (!v.is_boolean()) fail(path(key), "true or false");
        return v.get<bool>();
    }
    std::string string(const json& v, const std::string& key) {
        if (!v.is_string()) fail(path(key), "a string");
        return v.get<std::string>();
    }
    void size(const std::string& key, int* width, int* height) {
        const json& v = require(key);
        if (!v.is_array() || v.size() != 2) fail(path(key), "an array [width, height]");
        *width = integer(v[0], key + "[0]");
        *height = integer(v[1], key + "[1]");
    }
    std::vector<float> numbers(const json& v, const std::string& key) {
        if (!v.is_array()) fail(path(key), "an array of numbers");
        std::vector<float> out;
        for (size_t i = 0; i < v.size(); ++i) {
            out.push_back(number(v[i], key + "[" + std::to_string(i) + "]"));
        }
        return out;
    }

    void optional_bool(const std::string& key, bool* out) {
        if (const json* v = find(key)) *out = boolean(*v, key);
    }
    void optional_number(const std::string& key, float* out) {
        if (const json* v = find(key)) *out = number(*v, key);
    }
    void optional_string(const std::string& key, std::string* out) {
        if (const json* v = find(key)) *out = string(*v, key);
    }

    // Call after every field was read: a key nobody asked for is an error.
    void reject_unknown_keys() const {
        for (auto it = object_.begin(); it != object_.end(); ++it) {
            if (!known_.count(it.key())) {
                throw SequenceError(source_ + ": unknown key '" + path(it.key()) +
                                    "' (not part of swinup-sequence version 1)");
            }
        }
    }

    std::string path(const std::string& key) const {
        return prefix_.empty() ? key : prefix_ + "." + key;
    }

private:
    [[noreturn]] void fail(const std::string& what, const std::string& expected) const {
        throw SequenceError(source_ + ": '" + what + "' must be " + expected);
    }

    const json& object_;
    std::string prefix_;
    const std::string& source_;
    std::set<std::string> known_;
};

std::string sized(const char* name, size_t n) {
    return std::string(name) + " has " + std::to_string(n) + " values";
}

}  // namespace

void sequence_info_validate(const SequenceInfo& info, const std::string& source) {
    auto fail = [&](const std::string& what) { throw SequenceError(source + ": " + what); };
    auto check_size = [&](const char* name, int w, int h) {
        if (w < 1 || h < 1 || w > kMaxSide || h > kMaxSide) {
            fail(std::string(name) + " " + std::to_string(w) + "x" + std::to_string(h) +
                 " is outside 1x1 .. " + std::to_string(kMaxSide) + "x" + std::to_string(kMaxSide));
        }
    };
    check_size("render_size", info.render_width, info.render_height);
    check_size("display_size", info.display_width, info.display_height);
    if (info.frame_count < 1 || info.frame_count > kMaxFrames) {
        fail("frame_count " + std::to_string(info.frame_count) + " is outside 1 .. " +
             std::to_string(kMaxFrames));
    }
    const size_t n = static_cast<size_t>(info.frame_count);
    const std::string count = " but frame_count is " + std::to_string(info.frame_count);
    if (info.jitter_x.size() != n) fail(sized("jitter_x", info.jitter_x.size()) + count);
    if (info.jitter_y.size() != n) fail(sized("jitter_y", info.jitter_y.size()) + count);
    if (info.exposure.size() != n) fail(sized("exposure", info.exposure.size()) + count);
    if (info.reset.size() != n) fail(sized("reset", info.reset.size()) + count);
    for (size_t i = 0; i < n; ++i) {
        const std::string frame = std::string("[").append(std::to_string(i)).append("]");
        for (const auto& [name, value] : {std::pair{"jitter_x", info.jitter_x[i]},
                                          std::pair{"jitter_y", info.jitter_y[i]}}) {
            if (!std::isfinite(value) || value < -0.5f || value > 0.5f) {
                fail(std::string(name) + frame + " = " + shortest_text(value) +
                     " is not a finite value in [-0.5, 0.5]");
            }
        }
        // At least the smallest normal float: a subnormal exposure turns every colour into
        // subnormals or zeros, and the scores of such a black sequence say nothing.
        if (!std::isfinite(info.exposure[i]) ||
            !(info.exposure[i] >= std::numeric_limits<float>::min())) {
            fail("exposure" + frame + " = " + shortest_text(info.exposure[i]) +
                 " is not a finite value >= " + shortest_text(std::numeric_limits<float>::min()) +
                 " (the smallest normal float)");
        }
        if (info.reset[i] != 0 && info.reset[i] != 1) {
            fail("reset" + frame + " = " + std::to_string(info.reset[i]) + " is not 0 or 1");
        }
    }
    if (!std::isfinite(info.camera_near) || !std::isfinite(info.camera_far) ||
        !(info.camera_near > 0.0f) || !(info.camera_far > info.camera_near)) {
        fail("camera near " + shortest_text(info.camera_near) + " and far " +
             shortest_text(info.camera_far) + " do not satisfy 0 < near < far");
    }
    if (!(info.camera_fov_y_deg > 0.0f && info.camera_fov_y_deg < 180.0f)) {
        fail("camera fov_y_deg " + shortest_text(info.camera_fov_y_deg) +
             " is outside (0, 180)");
    }
    if (info.mv_sign != 1 && info.mv_sign != -1) {
        fail("conventions.mv_sign = " + std::to_string(info.mv_sign) +
             " is unknown (+1: current -> previous, -1: previous -> current)");
    }
}

std::string sequence_info_to_json(const SequenceInfo& info) {
    json j;
    j["format"] = kFormatName;
    j["version"] = kFormatVersion;
    j["generator"] = info.generator;
    j["scene"] = info.scene;
    j["render_size"] = {info.render_width, info.render_height};
    j["display_size"] = {info.display_width, info.display_height};
    j["frame_count"] = info.frame_count;
    j["camera"] = {{"near", shortest_double(info.camera_near)},
                   {"far", shortest_double(info.camera_far)},
                   {"fov_y_deg", shortest_double(info.camera_fov_y_deg)}};
    j["conventions"] = {{"hdr", info.hdr},
                        {"depth_inverted", info.depth_inverted},
                        {"mv_jittered", info.mv_jittered},
                        {"mv_sign", info.mv_sign}};
    j["files"] = {{"mv_display", info.has_mv_display}, {"ground_truth", info.has_ground_truth}};
    // Only when true: a sequence without masks stays what readers before masks accept.
    if (info.has_masks) j["has_masks"] = true;
    if (info.has_motion_masks) j["has_motion_masks"] = true;
    j["jitter_x"] = float_array(info.jitter_x);
    j["jitter_y"] = float_array(info.jitter_y);
    j["exposure"] = float_array(info.exposure);
    j["reset"] = info.reset;
    return j.dump(2) + "\n";
}

SequenceInfo sequence_info_from_json(const std::string& text, const std::string& source) {
    ParsedJson parsed;  // a file that says "exposure" twice is ambiguous: its repeated_key
    try {
        parsed = parse_json_finding_repeated_key(text);
    } catch (const JsonNestingTooDeep& e) {
        throw SequenceError(source + ": " + e.what());
    } catch (const json::exception& e) {  // malformed, or a number like 1e500 (out_of_range)
        // Where and why (e.g. "ill-formed UTF-8 byte"), without the parser's echo of the bytes
        // it last read, which may be binary.
        std::string why = e.what();
        why = why.substr(0, why.find("; last read"));
        const size_t tag_end = why.find("] ");  // after "[json.exception.parse_error.101] "
        if (tag_end != std::string::npos) why = why.substr(tag_end + 2);
        for (char& c : why) {
            if (c < 0x20 || c > 0x7e) c = '?';
        }
        throw SequenceError(source + ": not valid JSON (" + why + ")");
    }
    if (!parsed.repeated_key.empty()) {
        throw SequenceError(source + ": key '" + parsed.repeated_key +
                            "' appears twice in one object (which one is meant?)");
    }
    const json& j = parsed.value;

    ObjectReader top(j, "", source);
    const std::string format = top.string(top.require("format"), "format");
    if (format != kFormatName) {
        throw SequenceError(source + ": format is '" + format + "', expected '" + kFormatName + "'");
    }
    const int version = top.integer(top.require("version"), "version");
    if (version != kFormatVersion) {
        throw SequenceError(source + ": version " + std::to_string(version) +
                            " is not supported (this reader knows version " +
                            std::to_string(kFormatVersion) + ")");
    }
    SequenceInfo info;
    top.optional_string("generator", &info.generator);
    top.optional_string("scene", &info.scene);
    top.size("render_size", &info.render_width, &info.render_height);
    top.size("display_size", &info.display_width, &info.display_height);
    info.frame_count = top.integer(top.require("frame_count"), "frame_count");
    if (info.frame_count < 1 || info.frame_count > kMaxFrames) {
        throw SequenceError(source + ": frame_count " + std::to_string(info.frame_count) +
                            " is outside 1 .. " + std::to_string(kMaxFrames));
    }
    info.jitter_x = top.numbers(top.require("jitter_x"), "jitter_x");
    info.jitter_y = top.numbers(top.require("jitter_y"), "jitter_y");
    const size_t n = static_cast<size_t>(info.frame_count);
    if (const json* v = top.find("exposure")) {
        info.exposure = top.numbers(*v, "exposure");
    } else {
        info.exposure.assign(n, 1.0f);
    }
    if (const json* v = top.find("reset")) {
        if (!v->is_array()) throw SequenceError(source + ": 'reset' must be an array of 0/1");
        for (size_t i = 0; i < v->size(); ++i) {
            const json& r = (*v)[i];
            const std::string key = "reset[" + std::to_string(i) + "]";
            info.reset.push_back(r.is_boolean() ? int(r.get<bool>()) : top.integer(r, key));
        }
    } else {
        info.reset.assign(n, 0);
    }
    if (const json* v = top.find("camera")) {
        ObjectReader camera(*v, "camera", source);
        camera.optional_number("near", &info.camera_near);
        camera.optional_number("far", &info.camera_far);
        camera.optional_number("fov_y_deg", &info.camera_fov_y_deg);
        camera.reject_unknown_keys();
    }
    if (const json* v = top.find("conventions")) {
        ObjectReader conventions(*v, "conventions", source);
        conventions.optional_bool("hdr", &info.hdr);
        conventions.optional_bool("depth_inverted", &info.depth_inverted);
        conventions.optional_bool("mv_jittered", &info.mv_jittered);
        if (const json* s = conventions.find("mv_sign")) {
            info.mv_sign = conventions.integer(*s, "mv_sign");
        }
        conventions.reject_unknown_keys();
    }
    if (const json* v = top.find("files")) {
        ObjectReader files(*v, "files", source);
        files.optional_bool("mv_display", &info.has_mv_display);
        files.optional_bool("ground_truth", &info.has_ground_truth);
        files.reject_unknown_keys();
    }
    top.optional_bool("has_masks", &info.has_masks);
    top.optional_bool("has_motion_masks", &info.has_motion_masks);
    top.reject_unknown_keys();
    sequence_info_validate(info, source);
    return info;
}

}  // namespace swinup
