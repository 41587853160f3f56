// The weights file: the safetensors layout, read and written.
//
//   [8 bytes]  N, the header length, unsigned little-endian
//   [N bytes]  UTF-8 JSON, padded with spaces so that the data starts at a multiple of 8:
//              { "__metadata__": { "format": "swinup-weights", "format_version": "5",
//                                  "variant": "lite", "config": "<ModelConfig::to_json()>",
//                                  "description": "<origin and training>" },
//                "<tensor>": { "dtype": "F8_E4M3" | "F16" | "F32", "shape": [...],
//                              "data_offsets": [begin, end] },  ... }
//   [rest]     the tensors' bytes, little-endian; offsets are relative to the data start.
//
// What the loader accepts (and why):
// - Metadata: the four keys format, format_version, variant, config are required, all metadata
//   values must be strings (safetensors' rule); "description" is optional free text; other keys
//   are allowed and ignored (a trainer may record its run there).
// - Exactly the tensors of model_tensors(config), each with its dtype and shape; a tensor entry
//   has exactly the fields dtype, shape and data_offsets.
// - The data region is covered exactly: tensors may come in any order but must not overlap or
//   leave gaps, and no byte may follow the last tensor. This is safetensors' own rule (it rules
//   out files that hide other content) and it catches a file cut or padded by a broken copy.
// - Values: f32 tensors finite, X.scale a positive normal power of two (the kernels apply it as
//   an exact multiplication), e4m3 codes never the NaN codes 0x7f / 0xff, f16 tables finite.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "numeric/e4m3.h"
#include "numeric/float_bits.h"
#include "text/json_repeated_key.h"
#include "text/json_summary.h"
#include "model/weights.h"

namespace swinup {

int64_t Tensor::elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

uint64_t Weights::parameter_count() const {
    uint64_t n = 0;
    for (const auto& [name, tensor] : tensors) n += static_cast<uint64_t>(tensor.elements());
    return n;
}

uint64_t Weights::heap_bytes() const {
    uint64_t n = description.capacity();
    for (const auto& [name, tensor] : tensors)
        n += name.capacity() + tensor.bytes.capacity() + tensor.shape.capacity() * sizeof(int64_t);
    return n;
}

namespace {

constexpr const char* kFormatName = "swinup-weights";
// The header (JSON) of the lite weights is 13,520 bytes, of the full 16,208 (format 4). 1 MiB is
// 65 times that, room for many more tensors or a long description, and still cheap to parse.
// safetensors' own limit, 100 MiB, let a header of a zeros array cost 1.7-2 GB and 24 s in
// parsing before it was refused; checked before the file is read or the header parsed.
constexpr uint64_t kMaxHeaderBytes = 1ull << 20;
// v1 files are about 1.4 MB; refusing anything over 1 GiB keeps a wrong path (a video, a disk
// image) from being read into memory whole.
constexpr uint64_t kMaxFileBytes = 1ull << 30;

// The header length that the first 8 bytes of a weights image give, if it fits in an image of
// `size` bytes and under kMaxHeaderBytes; else false, with the message in *error.
bool read_header_length(const uint8_t* data, uint64_t size, uint64_t* length, std::string* error) {
    if (size < 8) {
        *error = "the file is " + std::to_string(size) + " bytes, shorter than the 8-byte header length";
        return false;
    }
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | data[i];
    if (n > size - 8) {
        *error = "header length " + std::to_string(n) + " goes beyond the end of the file (" +
                 std::to_string(size) + " bytes): the file is truncated or not safetensors";
        return false;
    }
    if (n > kMaxHeaderBytes) {
        *error = "header length " + std::to_string(n) +
                 " is over the 1 MiB limit (swinup's own headers are 13-17 KB)";
        return false;
    }
    *length = n;
    return true;
}

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    s += ']';
    return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A tensor entry of the header after its fields were checked against the model.
struct Entry {
    const TensorSpec* spec;
    uint64_t begin, end;
};

// The parse state: on failure, `error` holds a message that names the tensor or field.
class Loader {
public:
    Loader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

    std::shared_ptr<const Weights> load(std::string* error) {
        auto weights = std::make_shared<Weights>();
        if (!read_header() || !read_metadata(*weights) || !read_entries(weights->config) ||
            !check_layout() || !copy_tensors(*weights) || !check_values(*weights)) {
            *error = error_;
            return nullptr;
        }
        return weights;
    }

private:
    bool fail(std::string message) {
        error_ = std::move(message);
        return false;
    }

    bool read_header() {
        uint64_t n = 0;
        if (!read_header_length(data_, size_, &n, &error_)) return false;
        data_start_ = 8 + n;
        data_size_ = size_ - data_start_;
        const auto* text = reinterpret_cast<const char*>(data_ + 8);
        // A tensor named twice would be read from its second entry while its first one's bytes
        // go unexplained (or, with equal offsets, pass unnoticed).
        ParsedJson parsed;
        try {
            parsed = parse_json_finding_repeated_key(std::string_view(text, n));
        } catch (const JsonNestingTooDeep& e) {
            return fail(std::string("the header has ") + e.what());
        } catch (const nlohmann::json::exception&) {  // malformed, or a number like 1e500
            return fail("the header is not valid JSON (truncated or corrupted file)");
        }
        if (!parsed.repeated_key.empty())
            return fail("the header has the key '" + parsed.repeated_key +
                        "' twice in one object (which entry is meant?)");
        header_ = std::move(parsed.value);
        if (!header_.is_object()) return fail("the header JSON is not an object");
        return true;
    }

    bool metadata_string(const nlohmann::json& meta, const char* key, std::string* out) {
        if (!meta.contains(key))
            return fail(std::string("metadata field '") + key + "' is missing");
        *out = meta.at(key).get<std::string>();
        return true;
    }

    bool read_metadata(Weights& w) {
        if (!header_.contains("__metadata__")) return fail("the header has no '__metadata__'");
        const nlohmann::json& meta = header_["__metadata__"];
        if (!meta.is_object()) return fail("'__metadata__' is not an object");
        for (const auto& [key, value] : meta.items())
            if (!value.is_string()) return fail("metadata field '" + key + "' is not a string");

        std::string format, version, variant, config;
        if (!metadata_string(meta, "format", &format)) return false;
        if (format != kFormatName)
            return fail("metadata field 'format' is '" + format + "', expected '" + kFormatName +
                        "'");
        if (!metadata_string(meta, "format_version", &version)) return false;
        const bool numeric = !version.empty() && version.size() <= 9 &&
                             std::all_of(version.begin(), version.end(),
                                         [](char c) { return c >= '0' && c <= '9'; });
        if (!numeric)
            return fail("metadata field 'format_version' is '" + version +
                        "', not a version number");
        const int number = std::stoi(version);
        if (number < kOldestFormatVersion || number > kFormatVersion) {
            const char* conversion = number == 1
                                         ? ": version 1 weights read t(history) in staging slots 3-5 and "
                                           "blend without the kernel's weight sum; they are no longer "
                                           "read: export them again from a current checkpoint"
                                         : "";
            return fail("weights format_version " + version + " is not supported by this build (expects " +
                        std::to_string(kOldestFormatVersion) + " to " + std::to_string(kFormatVersion) + ")" +
                        conversion);
        }
        if (!metadata_string(meta, "variant", &variant)) return false;
        Variant v;
        if (!parse_variant(variant, &v))
            return fail("metadata field 'variant' is '" + variant + "', expected 'lite' or 'full'");
        if (!metadata_string(meta, "config", &config)) return false;
        std::string config_error;
        if (!ModelConfig::from_json(config, &w.config, &config_error))
            return fail("metadata field 'config': " + config_error);
        if (number < 3 && w.config.head_mlp)
            return fail("metadata field 'config' has the head MLP, which format_version " + version +
                        " does not have (it came with version 3)");
        if (number < 4 && w.config.still_history_shift != 0.0f)
            return fail("metadata field 'config' has a still_history_shift, which format_version " + version +
                        " does not have (it came with version 4)");
        if (number < 5 && w.config.masks)
            return fail("metadata field 'config' has the masks (mask_embed), which format_version " + version +
                        " does not have (they came with version 5)");
        if (w.config.variant != v)
            return fail("metadata field 'variant' is '" + variant + "' but 'config' describes '" +
                        variant_name(w.config.variant) + "'");
        if (meta.contains("description")) w.description = meta.at("description").get<std::string>();
        return true;
    }

    bool read_entry(const TensorSpec& spec, const nlohmann::json& j) {
        const std::string where = "tensor '" + spec.name + "': ";
        if (!j.is_object()) return fail(where + "the entry is not an object");
        for (const auto& [key, value] : j.items())
            if (key != "dtype" && key != "shape" && key != "data_offsets")
                return fail(where + "unexpected field '" + key + "'");

        if (!j.contains("dtype") || !j["dtype"].is_string())
            return fail(where + "'dtype' is missing");
        const std::string dtype = j["dtype"].get<std::string>();
        DType t;
        if (!parse_dtype(dtype, &t)) return fail(where + "unknown dtype '" + dtype + "'");
        if (t != spec.dtype)
            return fail(where + "dtype " + dtype + ", expected " + dtype_name(spec.dtype));

        if (!j.contains("shape") || !j["shape"].is_array())
            return fail(where + "'shape' is missing");
        std::vector<int64_t> shape;
        for (const auto& d : j["shape"]) {
            if (!d.is_number_unsigned() || d.get<uint64_t>() > (1ull << 40))
                return fail(where + "'shape' has an entry that is not a dimension: " + json_summary(d));
            shape.push_back(static_cast<int64_t>(d.get<uint64_t>()));
        }
        if (shape != spec.shape)
            return fail(where + "shape " + shape_text(shape) + ", expected " +
                        shape_text(spec.shape));

        if (!j.contains("data_offsets") || !j["data_offsets"].is_array() ||
            j["data_offsets"].size() != 2 || !j["data_offsets"][0].is_number_unsigned() ||
            !j["data_offsets"][1].is_number_unsigned())
            return fail(where + "'data_offsets' must be two unsigned integers [begin, end]");
        const uint64_t begin = j["data_offsets"][0].get<uint64_t>();
        const uint64_t end = j["data_offsets"][1].get<uint64_t>();
        // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "literal" + string&&.
        std::string range = "[";
        range.append(std::to_string(begin)).append(", ").append(std::to_string(end)).append("]");
        if (begin > end) return fail(where + "data_offsets " + range + " end before they begin");
        if (end > data_size_)
            return fail(where + "data_offsets " + range + " go beyond the data (" +
                        std::to_string(data_size_) + " bytes): the file is truncated");
        const uint64_t needed = static_cast<uint64_t>(spec.elements()) * dtype_size(spec.dtype);
        if (end - begin != needed)
            return fail(where + "data_offsets " + range + " span " + std::to_string(end - begin) +
                        " bytes, shape " + shape_text(spec.shape) + " " + dtype_name(spec.dtype) +
                        " needs " + std::to_string(needed));
        entries_.push_back({&spec, begin, end});
        return true;
    }

    bool read_entries(const ModelConfig& config) {
        specs_ = model_tensors(config);
        for (const TensorSpec& spec : specs_) {
            if (!header_.contains(spec.name))
                return fail("tensor '" + spec.name + "' is missing (" +
                            variant_name(config.variant) + " model)");
            if (!read_entry(spec, header_.at(spec.name))) return false;
        }
        for (const auto& item : header_.items()) {
            // A named reference, not a structured binding: clang 14 cannot capture those in a
            // lambda (C++20 allows it; clang implements it from version 16).
            const std::string& key = item.key();
            if (key == "__metadata__") continue;
            const bool known = std::any_of(specs_.begin(), specs_.end(),
                                           [&](const TensorSpec& s) { return s.name == key; });
            if (!known)
                return fail("unknown tensor '" + key + "' (not part of the " +
                            variant_name(config.variant) + " model)");
        }
        return true;
    }

    // Every data byte belongs to exactly one tensor.
    bool check_layout() {
        std::vector<Entry> sorted = entries_;
        std::sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) {
            return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
        });
        uint64_t covered = 0;
        const Entry* previous = nullptr;
        for (const Entry& e : sorted) {
            if (e.begin < covered)
                return fail("tensor '" + e.spec->name + "' overlaps tensor '" +
                            previous->spec->name + "' (data bytes " + std::to_string(e.begin) +
                            ".." + std::to_string(covered) + ")");
            if (e.begin > covered)
                return fail("data bytes " + std::to_string(covered) + ".." +
                            std::to_string(e.begin) + " (before tensor '" + e.spec->name +
                            "') belong to no tensor");
            covered = e.end;
            previous = &e;
        }
        if (covered != data_size_)
            return fail(std::to_string(data_size_ - covered) + " bytes follow the last tensor" +
                        (previous ? " ('" + previous->spec->name + "')" : std::string()) +
                        ": the data region must hold exactly the tensors");
        return true;
    }

    bool copy_tensors(Weights& w) {
        for (const Entry& e : entries_) {
            Tensor t;
            t.dtype = e.spec->dtype;
            t.shape = e.spec->shape;
            const uint8_t* p = data_ + data_start_ + e.begin;
            t.bytes.assign(p, p + (e.end - e.begin));
            w.tensors.emplace(e.spec->name, std::move(t));
        }
        return true;
    }

    bool check_values(const Weights& w) {
        for (const auto& [name, t] : w.tensors) {
            const std::string where = "tensor '" + name + "' element ";
            const int64_t n = t.elements();
            for (int64_t i = 0; i < n; ++i) {
                const auto idx = static_cast<size_t>(i);
                switch (t.dtype) {
                    case DType::f8_e4m3:
                        if ((t.bytes[idx] & 0x7fu) == kE4m3NaN)
                            return fail(where + std::to_string(i) + " is an e4m3 NaN code");
                        break;
                    case DType::f16: {
                        uint16_t h;
                        std::memcpy(&h, &t.bytes[idx * 2], 2);
                        if ((h & 0x7c00u) == 0x7c00u)
                            return fail(where + std::to_string(i) + " is not finite (f16)");
                        break;
                    }
                    case DType::f32: {
                        uint32_t bits;
                        std::memcpy(&bits, &t.bytes[idx * 4], 4);
                        const float f = bits_to_float(bits);
                        if (!std::isfinite(f))
                            return fail(where + std::to_string(i) + " is not finite");
                        const uint32_t exponent = (bits >> 23) & 0xffu;
                        if (ends_with(name, ".scale") &&
                            ((bits >> 31) != 0 || exponent == 0 || (bits & 0x7fffffu) != 0)) {
                            std::ostringstream value;
                            value.precision(9);
                            value << f;
                            return fail(where + std::to_string(i) + " is " + value.str() +
                                        ": scales must be positive (normal) powers of two");
                        }
                        break;
                    }
                }
            }
        }
        return true;
    }

    const uint8_t* data_;
    size_t size_;
    uint64_t data_start_ = 0, data_size_ = 0;
    nlohmann::json header_;
    std::vector<TensorSpec> specs_;
    std::vector<Entry> entries_;
    std::string error_;
};

}  // namespace

std::shared_ptr<const Weights> weights_load_memory(const void* data, size_t size,
                                                   std::string* error) {
    std::string message;
    if (data == nullptr && size != 0) {
        if (error) *error = "weights: null data pointer with a non-zero size";
        return nullptr;
    }
    auto w = Loader(static_cast<const uint8_t*>(data), size).load(&message);
    if (!w && error) *error = "weights: " + message;
    return w;
}

std::shared_ptr<const Weights> weights_load_file(const std::string& path, std::string* error,
                                                 bool* io_error) {
    if (io_error) *io_error = false;
    auto io_fail = [&](const std::string& why) -> std::shared_ptr<const Weights> {
        if (io_error) *io_error = true;
        if (error) *error = "weights file '" + path + "': " + why;
        return nullptr;
    };
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) return io_fail(ec ? ec.message() : "no such file");
    if (!std::filesystem::is_regular_file(status)) return io_fail("not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) return io_fail(std::string("cannot open: ") + std::strerror(errno));
    std::vector<uint8_t> bytes;
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    in.seekg(0, std::ios::beg);
    if (size < 0) return io_fail("cannot determine the size");
    if (static_cast<uint64_t>(size) > kMaxFileBytes) {
        if (error)
            *error = "weights file '" + path + "': " + std::to_string(size) +
                     " bytes, far larger than any swinup weights file (not a weights file?)";
        return nullptr;
    }
    // The header length first: a file that cannot hold a header under the limit is refused
    // before the rest of it is read.
    uint8_t first8[8] = {};
    const auto head = static_cast<std::streamsize>(std::min<std::streamoff>(size, 8));
    if (head > 0 && !in.read(reinterpret_cast<char*>(first8), head)) return io_fail("read error");
    uint64_t header_length = 0;
    std::string message;
    if (!read_header_length(first8, static_cast<uint64_t>(size), &header_length, &message)) {
        if (error) *error = "weights file '" + path + "': " + message;
        return nullptr;
    }
    in.seekg(0, std::ios::beg);
    bytes.resize(static_cast<size_t>(size));
    if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size))
        return io_fail("read error");

    auto w = Loader(bytes.data(), bytes.size()).load(&message);
    if (!w && error) *error = "weights file '" + path + "': " + message;
    return w;
}

std::vector<uint8_t> weights_serialize(const Weights& weights) {
    nlohmann::ordered_json header;
    header["__metadata__"] = {
        {"format", kFormatName},
        {"format_version", std::to_string(kFormatVersion)},
        {"variant", variant_name(weights.config.variant)},
        {"config", weights.config.to_json()},
        {"description", weights.description},
    };
    // Tensors in model_tensors() order, then any others (not part of the model: the loader will
    // reject them, but writing them lets a test build such a file) in name order.
    std::vector<std::string> order;
    for (const TensorSpec& spec : model_tensors(weights.config))
        if (weights.tensors.count(spec.name)) order.push_back(spec.name);
    for (const auto& [name, tensor] : weights.tensors)
        if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);

    uint64_t offset = 0;
    for (const std::string& name : order) {
        const Tensor& t = weights.tensors.at(name);
        header[name] = {{"dtype", dtype_name(t.dtype)},
                        {"shape", t.shape},
                        {"data_offsets", {offset, offset + t.bytes.size()}}};
        offset += t.bytes.size();
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');

    std::vector<uint8_t> out;
    out.reserve(8 + text.size() + offset);
    for (int i = 0; i < 8; ++i)
        out.push_back(static_cast<uint8_t>(uint64_t(text.size()) >> (8 * i)));
    out.insert(out.end(), text.begin(), text.end());
    for (const std::string& name : order) {
        const auto& bytes = weights.tensors.at(name).bytes;
        out.insert(out.end(), bytes.begin(), bytes.end());
    }
    return out;
}

}  // namespace swinup
