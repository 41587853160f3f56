// The weights file: round trip, the embedded defaults, the seeded initial weights, and every
// kind of broken file the loader must reject with a message that names what is wrong.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "numeric/e4m3.h"
#include "numeric/half.h"
#include "model/weights.h"
#include "cpu/network.h"
#include "small_stack.h"
#include "test_dir.h"

namespace swinup {
namespace {

using Image = std::vector<uint8_t>;

const Variant kVariants[] = {Variant::lite, Variant::full};

Image initial_image(Variant v, uint64_t seed = 1) {
    return weights_serialize(weights_make_initial(v, seed));
}

// The seed-1 weights and image, made once (most tests edit a copy).
const Weights& seed1_weights(Variant v) {
    static const Weights lite = weights_make_initial(Variant::lite, 1);
    static const Weights full = weights_make_initial(Variant::full, 1);
    return v == Variant::lite ? lite : full;
}
const Image& seed1_image(Variant v) {
    static const Image lite = weights_serialize(seed1_weights(Variant::lite));
    static const Image full = weights_serialize(seed1_weights(Variant::full));
    return v == Variant::lite ? lite : full;
}

// The test's own reading of the layout (independent of the loader): header length, JSON, data.
struct Split {
    nlohmann::ordered_json header;
    Image data;
};

Split split(const Image& image) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | image[static_cast<size_t>(i)];
    Split s;
    s.header =
        nlohmann::ordered_json::parse(image.begin() + 8, image.begin() + 8 + static_cast<long>(n));
    s.data.assign(image.begin() + 8 + static_cast<long>(n), image.end());
    return s;
}

Image join(const std::string& header_text, const Image& data) {
    std::string text = header_text;
    text.append((8 - text.size() % 8) % 8, ' ');
    Image out;
    for (int i = 0; i < 8; ++i)
        out.push_back(static_cast<uint8_t>(uint64_t(text.size()) >> (8 * i)));
    out.insert(out.end(), text.begin(), text.end());
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

// The lite image with its header JSON edited by `edit`.
Image with_header(const std::function<void(nlohmann::ordered_json&)>& edit,
                  Variant v = Variant::lite) {
    Split s = split(seed1_image(v));
    edit(s.header);
    return join(s.header.dump(), s.data);
}

// The lite initial weights edited by `edit`, then serialised.
Image with_weights(const std::function<void(Weights&)>& edit, Variant v = Variant::lite) {
    Weights w = seed1_weights(v);
    edit(w);
    return weights_serialize(w);
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// Loading must fail, and the message must contain every one of `parts`.
void expect_rejected(const Image& image, const std::vector<std::string>& parts) {
    std::string error;
    auto w = weights_load_memory(image.data(), image.size(), &error);
    EXPECT_EQ(w, nullptr);
    for (const std::string& p : parts)
        EXPECT_TRUE(contains(error, p)) << "'" << p << "' not in: " << error;
}

float f32_at(const Tensor& t, int64_t i) {
    float f;
    std::memcpy(&f, &t.bytes[static_cast<size_t>(i) * 4], 4);
    return f;
}
void set_f32(Tensor& t, int64_t i, float f) {
    std::memcpy(&t.bytes[static_cast<size_t>(i) * 4], &f, 4);
}

// ---- round trip and layout --------------------------------------------------------------------

TEST(Weights, RoundTripPreservesEveryTensorAndTheMetadata) {
    for (Variant v : kVariants) {
        Weights original = weights_make_initial(v, 7);
        original.description = "round trip \xc3\xa9 test";  // UTF-8 survives
        const Image image = weights_serialize(original);
        std::string error;
        auto loaded = weights_load_memory(image.data(), image.size(), &error);
        ASSERT_NE(loaded, nullptr) << error;
        EXPECT_EQ(loaded->config.variant, v);
        EXPECT_EQ(loaded->config.to_json(), original.config.to_json());
        EXPECT_EQ(loaded->description, original.description);
        ASSERT_EQ(loaded->tensors.size(), original.tensors.size());
        for (const auto& [name, t] : original.tensors) {
            const Tensor& u = loaded->at(name);
            EXPECT_EQ(u.dtype, t.dtype) << name;
            EXPECT_EQ(u.shape, t.shape) << name;
            EXPECT_EQ(u.bytes, t.bytes) << name;
        }
        EXPECT_EQ(loaded->parameter_count(), original.parameter_count());
    }
}

TEST(Weights, SerializedLayoutIsSafetensors) {
    for (Variant v : kVariants) {
        const Image image = initial_image(v);
        const Split s = split(image);
        EXPECT_EQ((image.size() - s.data.size()) % 8, 0u) << "data must start 8-byte aligned";
        const auto& meta = s.header["__metadata__"];
        EXPECT_EQ(meta["format"], "swinup-weights");
        EXPECT_EQ(meta["format_version"], "5");
        EXPECT_EQ(meta["variant"], variant_name(v));
        EXPECT_EQ(meta["config"], ModelConfig::make(v).to_json());
        EXPECT_EQ(meta["description"], "seeded initial weights, seed 1, untrained");
        // Tensors in model_tensors() order, contiguous from 0 to the end of the data.
        uint64_t offset = 0;
        uint64_t parameters = 0;
        const auto specs = model_tensors(ModelConfig::make(v));
        EXPECT_EQ(s.header.size(), specs.size() + 1);
        for (const TensorSpec& spec : specs) {
            const auto& e = s.header[spec.name];
            EXPECT_EQ(e["dtype"], dtype_name(spec.dtype)) << spec.name;
            EXPECT_EQ(e["shape"].get<std::vector<int64_t>>(), spec.shape) << spec.name;
            EXPECT_EQ(e["data_offsets"][0].get<uint64_t>(), offset) << spec.name;
            offset += static_cast<uint64_t>(spec.elements()) * dtype_size(spec.dtype);
            EXPECT_EQ(e["data_offsets"][1].get<uint64_t>(), offset) << spec.name;
            parameters += static_cast<uint64_t>(spec.elements());
        }
        EXPECT_EQ(offset, s.data.size());
        EXPECT_EQ(weights_make_initial(v, 1).parameter_count(), parameters);
    }
}

TEST(Weights, LoaderAcceptsTensorsInAnyOrderAndExtraMetadata) {
    // Another writer (the PyTorch exporter) may order the header differently and record more.
    Split s = split(seed1_image(Variant::lite));
    nlohmann::json reversed = nlohmann::json::object();  // std::map order: alphabetical
    for (auto it = s.header.begin(); it != s.header.end(); ++it) reversed[it.key()] = it.value();
    reversed["__metadata__"]["trainer"] = "step 1000";
    const Image image = join(reversed.dump(), s.data);
    std::string error;
    EXPECT_NE(weights_load_memory(image.data(), image.size(), &error), nullptr) << error;
}

// ---- embedded defaults and the seeded initial weights ----------------------------------------

TEST(Weights, EmbeddedWeightsLoadForBothVariantsAndMatchTheFilesInTheRepository) {
    for (Variant v : kVariants) {
        std::string error;
        auto embedded = weights_load_embedded(v, &error);
        ASSERT_NE(embedded, nullptr) << error;
        EXPECT_EQ(embedded->config.variant, v);
        EXPECT_EQ(embedded->tensors.size(), model_tensors(embedded->config).size());
        EXPECT_FALSE(embedded->description.empty());
        EXPECT_EQ(weights_load_embedded(v, &error), embedded) << "parsed once, then shared";

        // The library embeds weights/<variant>.safetensors: a stale embed means a broken build
        // dependency.
        const std::string path = std::string(SWINUP_TEST_DATA_DIR) + "/../../weights/" +
                                 variant_name(v) + ".safetensors";
        auto on_disk = weights_load_file(path, &error);
        ASSERT_NE(on_disk, nullptr) << error;
        EXPECT_EQ(on_disk->description, embedded->description);
        for (const auto& [name, t] : on_disk->tensors)
            EXPECT_EQ(embedded->at(name).bytes, t.bytes) << name;

        // While the defaults are the seed-1 initial weights, they are exactly what the generator
        // makes (once trained weights replace them, their description says so and this is skipped).
        if (embedded->description.rfind("seeded initial weights, seed 1,", 0) == 0) {
            const Weights fresh = weights_make_initial(v, 1);
            for (const auto& [name, t] : fresh.tensors)
                EXPECT_EQ(embedded->at(name).bytes, t.bytes) << name;
        }
    }
}

TEST(Weights, InitialWeightsAreDeterministicPerSeed) {
    for (Variant v : kVariants) {
        const Image a = initial_image(v, 1);
        EXPECT_EQ(a, initial_image(v, 1));
        const Image b = initial_image(v, 2);
        ASSERT_EQ(a.size(), b.size());
        EXPECT_NE(a, b);
        // The seed changes the random layers, not the fixed parts (gains, head biases).
        const Weights w2 = weights_make_initial(v, 2), w1 = weights_make_initial(v, 1);
        EXPECT_NE(w1.at("enc1.qkv.weight").bytes, w2.at("enc1.qkv.weight").bytes);
        EXPECT_EQ(w1.at("head.linear.bias").bytes, w2.at("head.linear.bias").bytes);
    }
}

// Dequantised row o of a linear layer, from its codes and scale.
std::vector<double> dequantised_row(const Weights& w, const std::string& layer, int64_t o) {
    const Tensor& weight = w.at(layer + ".weight");
    const float scale = f32_at(w.at(layer + ".scale"), o);
    const int64_t in = weight.shape[1];
    std::vector<double> row;
    for (int64_t k = 0; k < in; ++k)
        row.push_back(double(e4m3_to_f32(weight.e4m3()[o * in + k])) * scale);
    return row;
}

TEST(Weights, InitialLinearLayersHaveVarianceOneOverFanInAndUseTheTopE4m3Binade) {
    const Weights w = seed1_weights(Variant::full);
    for (const TensorSpec& spec : model_tensors(w.config)) {
        if (spec.dtype != DType::f8_e4m3 || spec.name == "head.linear.weight") continue;
        const std::string layer = spec.name.substr(0, spec.name.size() - 7);
        const bool residual_output = layer.ends_with(".proj") || layer.ends_with(".fc2");
        const int64_t out = spec.shape[0], in = spec.shape[1];
        double sum_sq = 0;
        for (int64_t o = 0; o < out; ++o) {
            const float scale = f32_at(w.at(layer + ".scale"), o);
            int exponent;
            ASSERT_EQ(std::frexp(scale, &exponent), 0.5f) << layer << " scale is a power of two";
            double max_code = 0;  // the row's largest |code value|
            for (int64_t k = 0; k < in; ++k)
                max_code = std::max(
                    max_code, std::fabs(double(e4m3_to_f32(w.at(spec.name).e4m3()[o * in + k]))));
            // max |w| / scale is in (224, 448]; e4m3 rounding may bring it down to 224 itself.
            EXPECT_GE(max_code, 224.0) << layer << " row " << o;
            EXPECT_LE(max_code, 448.0) << layer << " row " << o;
            for (double x : dequantised_row(w, layer, o)) sum_sq += x * x;
            EXPECT_EQ(f32_at(w.at(layer + ".bias"), o), 0.0f) << layer;
        }
        const double gain = residual_output ? 0.1 : 1.0;
        const double expected = gain * gain / double(in);
        const double variance = sum_sq / double(out * in);
        // Sampling >= 512 uniform weights gives a relative spread of the estimate under 4 %
        // (sqrt(0.8 / 512)); the 3-bit rounding adds well under 1 %. 15 % is a wide margin.
        EXPECT_NEAR(variance / expected, 1.0, 0.15) << layer;
    }
}

TEST(Weights, InitialHeadGivesASoftIsotropicKernelAndAHistoryWeightOfPointEight) {
    for (Variant v : kVariants) {
        const Weights w = weights_make_initial(v, 1);
        const Tensor& weight = w.at("head.linear.weight");
        const Tensor& bias = w.at("head.linear.bias");
        const int64_t in = weight.shape[1];
        for (int64_t o = 0; o < kHeadOutputs; ++o) {
            bool all_zero = true;
            for (int64_t k = 0; k < in; ++k) all_zero = all_zero && weight.e4m3()[o * in + k] == 0;
            EXPECT_EQ(all_zero, o >= 4) << "head row " << o;
        }
        // Recurrent rows are small: 0.1 of the usual sqrt(3 / fan_in) bound.
        for (int64_t o = 0; o < 4; ++o)
            for (double x : dequantised_row(w, "head.linear", o))
                EXPECT_LE(std::fabs(x), 0.1 * std::sqrt(3.0 / double(in)) * 1.07);
        EXPECT_NEAR(std::exp2(double(f32_at(bias, 4))), 0.6, 1e-6);  // sigma major, render px
        EXPECT_NEAR(std::exp2(double(f32_at(bias, 5))), 0.6, 1e-6);  // sigma minor
        EXPECT_EQ(f32_at(bias, 6), 0.0f);                            // angle
        EXPECT_NEAR(1.0 / (1.0 + std::exp(-double(f32_at(bias, 7)))), 0.8, 1e-6);  // alpha
        for (int64_t o : {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15})
            EXPECT_EQ(f32_at(bias, o), 0.0f) << o;
        for (const auto& [name, t] : w.tensors) {
            if (name.ends_with(".gain")) {
                for (int64_t i = 0; i < t.elements(); ++i) EXPECT_EQ(f32_at(t, i), 1.0f) << name;
            }
            if (name.ends_with(".rel_bias")) {
                for (int64_t i = 0; i < t.elements(); ++i) EXPECT_EQ(t.f16()[i], 0u) << name;
            }
        }
    }
}

TEST(Weights, InitialWeightsKeepEveryLayerNearUnitScaleThroughTheCpuNetwork) {
    // What "the untrained network gives a reasonable picture" needs: activations neither vanish
    // nor grow along the U-Net, and the head's kernel and alpha outputs are exactly their biases.
    for (Variant v : kVariants) {
        cpu::Network net(std::make_shared<const Weights>(weights_make_initial(v, 1)),
                         SWINUP_PRECISION_EXACT);
        const int width = 32, height = 32;
        std::vector<float> staged(size_t(width) * height * kSlots),
            head(size_t(width) * height * kHeadOutputs);
        uint64_t state = 99;
        for (float& x : staged) {  // slot values in [0, 1), like colours in t-space
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            x = round_to_e4m3(float(state >> 48) / 65536.0f);
        }
        int layers = 0;
        net.set_layer_hook([&](const std::string& layer, const float* data, int w, int h, int c) {
            if (layer == "head") return;
            const size_t n = size_t(w) * h * c;
            double sum_sq = 0;
            for (size_t i = 0; i < n; ++i) sum_sq += double(data[i]) * data[i];
            const double rms = std::sqrt(sum_sq / double(n));
            EXPECT_TRUE(rms > 0.2 && rms < 4.0)
                << variant_name(v) << " " << layer << " rms " << rms;
            ++layers;
        });
        net.run(staged.data(), width, height, 0, head.data());
        EXPECT_GT(layers, 10);
        const float* bias = seed1_weights(v).at("head.linear.bias").f32();
        for (int p = 0; p < width * height; ++p) {
            const float* h = &head[size_t(p) * kHeadOutputs];
            for (int o = 0; o < 4; ++o) EXPECT_LT(std::fabs(h[o]), 1.0f) << "recurrent " << o;
            for (int o = 4; o < kHeadOutputs; ++o) ASSERT_EQ(h[o], bias[o]) << "head output " << o;
        }
    }
}

// ---- broken files -----------------------------------------------------------------------------

TEST(Weights, EveryTruncationIsRejectedWithoutCrashing) {
    const Image image = seed1_image(Variant::lite);
    const size_t data_start = image.size() - split(image).data.size();
    std::vector<size_t> cuts;
    for (size_t n = 0; n <= data_start + 64; ++n) cuts.push_back(n);  // every cut in the header
    for (size_t n = data_start + 64; n < image.size(); n += 4099) cuts.push_back(n);  // in the data
    cuts.push_back(image.size() - 1);
    for (size_t n : cuts) {
        const Image prefix(image.begin(), image.begin() + static_cast<long>(n));
        std::string error;
        // The prefix goes through a heap copy of exactly n bytes: ASan would see any over-read.
        auto w = weights_load_memory(prefix.data(), prefix.size(), &error);
        ASSERT_EQ(w, nullptr) << "prefix of " << n << " bytes loaded";
        ASSERT_EQ(error.rfind("weights: ", 0), 0u) << error;
        if (n < 8)
            ASSERT_TRUE(contains(error, "shorter than the 8-byte header length"))
                << n << ": " << error;
        else
            ASSERT_TRUE(contains(error, "truncated")) << n << ": " << error;
    }
    std::string error;
    EXPECT_EQ(weights_load_memory(nullptr, 0, &error), nullptr);
    EXPECT_EQ(weights_load_memory(nullptr, 100, &error), nullptr);
}

TEST(Weights, CorruptedHeaderJsonIsRejected) {
    const Image image = seed1_image(Variant::lite);
    Image broken = image;
    broken[8 + 20] = '\x01';  // a control byte inside the JSON
    expect_rejected(broken, {"not valid JSON"});
    broken = image;
    broken[8] = '[';  // the header's opening brace
    expect_rejected(broken, {"not valid JSON"});
    broken = image;
    broken[8 + 40] = '\xff';  // invalid UTF-8 inside a string
    expect_rejected(broken, {"not valid JSON"});
    expect_rejected(join("[1, 2]", {}), {"not an object"});
    expect_rejected(join("{}", {}), {"__metadata__"});
    // A number beyond a double is the parser's out_of_range, not its parse_error: it must be
    // refused as bad JSON like the rest, not escape the reader.
    expect_rejected(join("{\"__metadata__\": {\"x\": 1e500}}", {}), {"not valid JSON"});
}

// The lite image whose first tensor's "shape" is the JSON text `shape` (text: a value nested
// deeper than the parser allows cannot be built as a json value first).
Image with_shape_text(const std::string& shape) {
    Split s = split(seed1_image(Variant::lite));
    s.header["embed.weight"]["shape"] = "SHAPE";
    std::string text = s.header.dump();
    text.replace(text.find("\"SHAPE\""), 7, shape);
    return join(text, s.data);
}

std::string nested_arrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// A "shape" nested 100,000 arrays deep (a 200 KB header) crashed swinup_context_create: the
// message printed the entry with dump(), which recursed once per level past the end of the
// stack. Refused while parsing now, on a 256 KiB stack, naming the depth (header, tensor entry
// and 100,000 arrays) and the limit.
TEST(Weights, ADeeplyNestedHeaderIsRefusedOnASmallStack) {
    const Image image = with_shape_text(nested_arrays(100000));
    test::run_on_small_stack([&] {
        expect_rejected(image, {"the header has arrays and objects nested 100002 levels deep",
                                "over the limit of 128"});
    });
    // The model config is JSON inside a metadata string: the same limit, named as the config's.
    const Image config = with_header([](auto& h) {
        h["__metadata__"]["config"] = "{\"variant\": " + nested_arrays(1000) + "}";
    });
    test::run_on_small_stack([&] {
        expect_rejected(config, {"metadata field 'config': model config has arrays and objects nested 1001 levels",
                                 "limit of 128"});
    });
}

// A value in a message is summarised: an entry of 100,000 numbers, or a string of 100 KB,
// was copied into the message whole.
TEST(Weights, ABadShapeEntryIsNamedInAFewCharacters) {
    std::string numbers = "[[";
    for (int i = 0; i < 100000; ++i) numbers += std::to_string(i) + ",";
    numbers.back() = ']';
    numbers += "]";
    std::string error;
    Image image = with_shape_text(numbers);
    EXPECT_EQ(weights_load_memory(image.data(), image.size(), &error), nullptr);
    EXPECT_TRUE(contains(error, "'shape' has an entry that is not a dimension: an array of 100000 elements"))
        << error.substr(0, 300);
    EXPECT_LT(error.size(), 200u);
    image = with_shape_text("[\"" + std::string(100000, 'x') + "\"]");
    EXPECT_EQ(weights_load_memory(image.data(), image.size(), &error), nullptr);
    EXPECT_TRUE(contains(error, "not a dimension: \"xxxx")) << error.substr(0, 300);
    EXPECT_LT(error.size(), 200u);
    expect_rejected(with_shape_text("[3, -1]"), {"'shape' has an entry that is not a dimension: -1"});
}

// The lite image with its header padded with spaces (as the format allows) to `header_bytes`.
Image with_header_padded_to(size_t header_bytes) {
    Split s = split(seed1_image(Variant::lite));
    std::string text = s.header.dump();
    text.append(header_bytes - text.size(), ' ');
    return join(text, s.data);
}

// Headers were allowed 100 MiB (safetensors' limit): one holding an array of zeros cost about
// 2 GB and 24 s in parsing before it was refused. 1 MiB is 65 times the full model's header.
TEST(Weights, AHeaderOverOneMebibyteIsRefused) {
    std::string error;
    const Image at_limit = with_header_padded_to(1 << 20);
    EXPECT_NE(weights_load_memory(at_limit.data(), at_limit.size(), &error), nullptr) << error;
    // 8 more bytes: a valid header otherwise, refused for its length alone.
    expect_rejected(with_header_padded_to((1 << 20) + 8),
                    {"header length 1048584 is over the 1 MiB limit", "13-17 KB"});
}

TEST(Weights, ATensorNamedTwiceIsRejected) {
    // nlohmann::json keeps the last of two equal keys: with equal offsets the file loaded.
    Split s = split(seed1_image(Variant::lite));
    std::string text = s.header.dump();
    text.pop_back();  // the closing brace
    text += ", \"embed.weight\": " + s.header["embed.weight"].dump() + "}";
    expect_rejected(join(text, s.data), {"'embed.weight' twice"});
}

TEST(Weights, WrongFormatOrVersionIsRejected) {
    expect_rejected(with_header([](auto& h) { h["__metadata__"]["format_version"] = "6"; }),
                    {"weights format_version 6 is not supported by this build (expects 2 to 5)"});
    // Version 1 (t(history) in slots 3-5) is refused with the reason and what to do instead.
    expect_rejected(with_header([](auto& h) { h["__metadata__"]["format_version"] = "1"; }),
                    {"format_version 1 is not supported", "export them again from a current checkpoint"});
    expect_rejected(with_header([](auto& h) { h["__metadata__"]["format_version"] = "1.0"; }),
                    {"format_version", "1.0"});
    expect_rejected(with_header([](auto& h) { h["__metadata__"].erase("format_version"); }),
                    {"'format_version' is missing"});
    expect_rejected(with_header([](auto& h) { h["__metadata__"]["format_version"] = 1; }),
                    {"'format_version' is not a string"});
    expect_rejected(with_header([](auto& h) { h["__metadata__"]["format"] = "gguf"; }),
                    {"'format'", "gguf", "swinup-weights"});
    expect_rejected(with_header([](auto& h) { h["__metadata__"] = "x"; }),
                    {"'__metadata__' is not an object"});
}

// The config is JSON inside the header's JSON: a key given twice there is as ambiguous (which
// "head_mlp" describes the tensors?), and a number beyond a double is bad JSON, not a crash.
TEST(Weights, ConfigWithARepeatedKeyOrAnOverflowIsRejected) {
    expect_rejected(with_header([](auto& h) {
                        std::string config = h["__metadata__"]["config"].template get<std::string>();
                        config.insert(1, "\"head_mlp\": false, ");
                        h["__metadata__"]["config"] = config;
                    }),
                    {"model config: 'head_mlp' is given twice"});
    expect_rejected(with_header([](auto& h) {
                        std::string config = h["__metadata__"]["config"].template get<std::string>();
                        config.insert(1, "\"note\": 1e500, ");
                        h["__metadata__"]["config"] = config;
                    }),
                    {"model config is not a JSON object"});
}

// Format 2 is format 3 without the head MLP: such files load as the network without it, and a
// version-2 header that claims the head MLP is refused (it came with version 3).
TEST(Weights, Version2LoadsAsTheNetworkWithoutTheHeadMlp) {
    const Image v2 = with_header([](auto& h) {
        h["__metadata__"]["format_version"] = "2";
        auto config = nlohmann::json::parse(h["__metadata__"]["config"].template get<std::string>());
        config.erase("head_mlp");
        h["__metadata__"]["config"] = config.dump();
    });
    std::string error;
    auto loaded = weights_load_memory(v2.data(), v2.size(), &error);
    ASSERT_NE(loaded, nullptr) << error;
    EXPECT_FALSE(loaded->config.head_mlp);
    expect_rejected(with_header([](auto& h) {
                        h["__metadata__"]["format_version"] = "2";
                        auto config = nlohmann::json::parse(h["__metadata__"]["config"].template get<std::string>());
                        config["head_mlp"] = true;
                        h["__metadata__"]["config"] = config.dump();
                    }),
                    {"head MLP", "format_version 2"});
}

// The head MLP's tensors follow the head; a file that states the MLP must hold them, and one that
// does not must not.
// Format 4 adds the still-pixel shift to the config: it round-trips; a format-3 file reads as
// shift 0 (the same network), and one that claims a shift is refused; so are a shift that is not
// a number or beyond +-8.
TEST(Weights, StillHistoryShiftIsFormat4) {
    Weights shifted = seed1_weights(Variant::lite);
    shifted.config.still_history_shift = 0.75f;
    const Image image = weights_serialize(shifted);
    std::string error;
    auto loaded = weights_load_memory(image.data(), image.size(), &error);
    ASSERT_NE(loaded, nullptr) << error;
    EXPECT_EQ(loaded->config.still_history_shift, 0.75f);

    const Split s = split(image);
    auto with_config = [&](const std::string& version, const std::function<void(nlohmann::json&)>& edit) {
        nlohmann::json header = s.header;
        header["__metadata__"]["format_version"] = version;
        auto config = nlohmann::json::parse(header["__metadata__"]["config"].get<std::string>());
        edit(config);
        header["__metadata__"]["config"] = config.dump();
        return join(header.dump(), s.data);
    };
    const Image v3 = with_config("3", [](nlohmann::json& c) { c.erase("still_history_shift"); });
    loaded = weights_load_memory(v3.data(), v3.size(), &error);
    ASSERT_NE(loaded, nullptr) << error;
    EXPECT_EQ(loaded->config.still_history_shift, 0.0f);
    expect_rejected(with_config("3", [](nlohmann::json&) {}),
                    {"still_history_shift", "format_version 3", "came with version 4"});
    expect_rejected(with_config("4", [](nlohmann::json& c) { c["still_history_shift"] = "0.75"; }),
                    {"'still_history_shift' must be a number in [-8, 8]"});
    expect_rejected(with_config("4", [](nlohmann::json& c) { c["still_history_shift"] = 8.5; }),
                    {"'still_history_shift' must be a number in [-8, 8]"});
}

// Format 5 states the masks (mask_embed, docs/masks.md): lite 8 -> 64, full 2 -> 32, right after
// the first embedding layer; the initial layer is zero (scale 1) so it computes nothing. A format-4
// file reads as the network without it; one whose config claims it is refused, and so are a config
// that says masks without the tensors and tensors without the config.
TEST(Weights, MasksAreFormat5) {
    for (Variant v : kVariants) {
        const Weights masked = weights_make_initial(v, 3, false, true);
        EXPECT_TRUE(masked.config.masks);
        const int64_t in = v == Variant::lite ? 8 : 2, out = v == Variant::lite ? 64 : 32;
        EXPECT_EQ(masked.at("mask_embed.weight").shape, (std::vector<int64_t>{out, in}));
        const std::vector<TensorSpec> specs = model_tensors(masked.config);
        const std::string first = v == Variant::lite ? "embed.bias" : "embed0.bias";
        for (size_t i = 0; i + 1 < specs.size(); ++i)
            if (specs[i].name == first) {
                EXPECT_EQ(specs[i + 1].name, "mask_embed.weight");
            }
        for (uint8_t code : masked.at("mask_embed.weight").bytes) ASSERT_EQ(code, 0u);
        for (int64_t i = 0; i < out; ++i) {
            EXPECT_EQ(f32_at(masked.at("mask_embed.scale"), i), 1.0f);
            EXPECT_EQ(f32_at(masked.at("mask_embed.bias"), i), 0.0f);
        }
        EXPECT_TRUE(mask_embed_absent_is_zero(masked));
        Weights biased = masked;
        set_f32(biased.tensors.at("mask_embed.bias"), 1, 0.25f);
        EXPECT_FALSE(mask_embed_absent_is_zero(biased));
        EXPECT_TRUE(mask_embed_absent_is_zero(seed1_weights(v)));  // no mask_embed at all

        const Image image = weights_serialize(masked);
        std::string error;
        auto loaded = weights_load_memory(image.data(), image.size(), &error);
        ASSERT_NE(loaded, nullptr) << error;
        EXPECT_TRUE(loaded->config.masks);
        EXPECT_EQ(loaded->tensors.size(), specs.size());
    }
    const Split s = split(weights_serialize(weights_make_initial(Variant::lite, 3, false, true)));
    auto with_config = [&](const Split& from, const std::string& version,
                           const std::function<void(nlohmann::json&)>& edit) {
        nlohmann::json header = from.header;
        header["__metadata__"]["format_version"] = version;
        auto config = nlohmann::json::parse(header["__metadata__"]["config"].get<std::string>());
        edit(config);
        header["__metadata__"]["config"] = config.dump();
        return join(header.dump(), from.data);
    };
    expect_rejected(with_config(s, "4", [](nlohmann::json&) {}), {"masks", "format_version 4", "came with version 5"});
    expect_rejected(with_config(s, "5", [](nlohmann::json& c) { c["masks"] = 1; }), {"'masks' must be true or false"});
    expect_rejected(with_config(s, "5", [](nlohmann::json& c) { c["masks"] = false; }), {"mask_embed"});
    const Split plain = split(seed1_image(Variant::lite));
    expect_rejected(with_config(plain, "5", [](nlohmann::json& c) { c["masks"] = true; }), {"mask_embed.weight"});
    const Image v4 = with_config(plain, "4", [](nlohmann::json& c) { c.erase("masks"); });
    std::string error;
    auto loaded = weights_load_memory(v4.data(), v4.size(), &error);
    ASSERT_NE(loaded, nullptr) << error;
    EXPECT_FALSE(loaded->config.masks);
}

TEST(Weights, HeadMlpTensorsRoundTripAndAreRequired) {
    const Weights with_mlp = weights_make_initial(Variant::lite, 4, true);
    EXPECT_TRUE(with_mlp.config.head_mlp);
    EXPECT_EQ(with_mlp.tensors.size(), model_tensors(ModelConfig::make(Variant::lite)).size() + 9);
    const Image image = weights_serialize(with_mlp);
    std::string error;
    auto loaded = weights_load_memory(image.data(), image.size(), &error);
    ASSERT_NE(loaded, nullptr) << error;
    EXPECT_TRUE(loaded->config.head_mlp);
    EXPECT_EQ(loaded->tensors.at("head_mlp.fc1.weight").shape, (std::vector<int64_t>{64, 48}));
    EXPECT_EQ(loaded->tensors.at("head_mlp.fc3.weight").shape, (std::vector<int64_t>{8, 64}));
    // The config says no MLP but the tensors are there: they are unknown.
    Split s = split(image);
    auto config = nlohmann::json::parse(s.header["__metadata__"]["config"].get<std::string>());
    config["head_mlp"] = false;
    s.header["__metadata__"]["config"] = config.dump();
    expect_rejected(join(s.header.dump(), s.data), {"head_mlp.fc"});
    // The config says MLP but a plain file's tensors lack it.
    Split plain = split(seed1_image(Variant::lite));
    config = nlohmann::json::parse(plain.header["__metadata__"]["config"].get<std::string>());
    config["head_mlp"] = true;
    plain.header["__metadata__"]["config"] = config.dump();
    expect_rejected(join(plain.header.dump(), plain.data), {"head_mlp.fc1.weight"});
    config["head_mlp"] = "yes";
    plain.header["__metadata__"]["config"] = config.dump();
    expect_rejected(join(plain.header.dump(), plain.data), {"'head_mlp' must be true or false"});
}

TEST(Weights, WrongVariantOrConfigIsRejected) {
    expect_rejected(with_header([](auto& h) { h["__metadata__"]["variant"] = "full"; }),
                    {"'variant'", "full", "lite"});
    expect_rejected(with_header([](auto& h) { h["__metadata__"]["variant"] = "huge"; }),
                    {"'variant'", "huge"});
    auto config = nlohmann::json::parse(ModelConfig::make(Variant::lite).to_json());
    config["channels"][2] = 80;
    expect_rejected(with_header([&](auto& h) { h["__metadata__"]["config"] = config.dump(); }),
                    {"'config'", "'channels'"});
    config = nlohmann::json::parse(ModelConfig::make(Variant::lite).to_json());
    config["tube_blocks"] = 6;
    expect_rejected(with_header([&](auto& h) { h["__metadata__"]["config"] = config.dump(); }),
                    {"'config'", "'tube_blocks'"});
    expect_rejected(with_header([](auto& h) { h["__metadata__"]["config"] = "{oops"; }),
                    {"'config'"});
    // A full file's tensors under a lite header: the first full-only tensor is "unknown".
    Split full = split(seed1_image(Variant::full));
    full.header["__metadata__"] = split(seed1_image(Variant::lite)).header["__metadata__"];
    expect_rejected(join(full.header.dump(), full.data), {"tensor 'embed.weight' is missing"});
}

TEST(Weights, TensorWithWrongShapeOrDtypeIsRejected) {
    expect_rejected(with_weights([](Weights& w) {
                        w.tensors.at("enc1.qkv.weight").shape = {64, 192};
                    }),
                    {"tensor 'enc1.qkv.weight'", "shape [64, 192], expected [192, 64]"});
    expect_rejected(with_weights([](Weights& w) {
                        w.tensors.at("dec2.rel_bias").shape = {4, 256};
                    }),
                    {"tensor 'dec2.rel_bias'", "shape [4, 256], expected [4, 16, 16]"});
    expect_rejected(with_weights([](Weights& w) {
                        Tensor& t = w.tensors.at("head.linear.bias");
                        t.dtype = DType::f16;
                        t.bytes.resize(t.bytes.size() / 2);
                    }),
                    {"tensor 'head.linear.bias'", "dtype F16, expected F32"});
    expect_rejected(with_header([](auto& h) { h["embed.scale"]["dtype"] = "BF16"; }),
                    {"tensor 'embed.scale'", "unknown dtype 'BF16'"});
    expect_rejected(with_header([](auto& h) { h["embed.scale"]["shape"] = {-64}; }),
                    {"tensor 'embed.scale'", "'shape'"});
    expect_rejected(with_header([](auto& h) { h["embed.scale"]["layout"] = "row"; }),
                    {"tensor 'embed.scale'", "unexpected field 'layout'"});
}

TEST(Weights, MissingOrUnknownTensorIsRejected) {
    expect_rejected(with_weights([](Weights& w) { w.tensors.erase("enc2.rel_bias"); }),
                    {"tensor 'enc2.rel_bias' is missing"});
    expect_rejected(with_weights([](Weights& w) { w.tensors.erase("head.linear.scale"); }),
                    {"tensor 'head.linear.scale' is missing"});
    expect_rejected(with_weights([](Weights& w) {
                        Tensor t;
                        t.shape = {4};
                        t.bytes.assign(16, 0);
                        w.tensors.emplace("enc1.extra", t);
                    }),
                    {"unknown tensor 'enc1.extra'"});
    // full-only tensor in a lite file
    expect_rejected(with_weights([](Weights& w) {
                        Weights full = seed1_weights(Variant::full);
                        w.tensors.emplace("enc0.norm1.gain", full.at("enc0.norm1.gain"));
                    }),
                    {"unknown tensor 'enc0.norm1.gain'"});
}

TEST(Weights, BadOffsetsAreRejected) {
    // Overlap: enc1.qkv.scale pointed at enc1.qkv.bias's bytes (same size).
    expect_rejected(with_header([](auto& h) {
                        h["enc1.qkv.bias"]["data_offsets"] = h["enc1.qkv.scale"]["data_offsets"];
                    }),
                    {"overlaps", "enc1.qkv.bias", "enc1.qkv.scale"});
    // Beyond the data.
    expect_rejected(with_header([](auto& h) {
                        const uint64_t end =
                            h["head.linear.bias"]["data_offsets"][1].template get<uint64_t>();
                        h["head.linear.bias"]["data_offsets"] = {end + 64, end + 128};
                    }),
                    {"tensor 'head.linear.bias'", "go beyond the data"});
    // Span that does not match the shape.
    expect_rejected(with_header([](auto& h) {
                        const uint64_t begin =
                            h["embed.bias"]["data_offsets"][0].template get<uint64_t>();
                        h["embed.bias"]["data_offsets"] = {begin, begin + 4};
                    }),
                    {"tensor 'embed.bias'", "span 4 bytes", "needs 256"});
    expect_rejected(with_header([](auto& h) {
                        h["embed.bias"]["data_offsets"] = {300, 200};
                    }),
                    {"tensor 'embed.bias'", "end before they begin"});
    expect_rejected(with_header([](auto& h) { h["embed.bias"]["data_offsets"] = {1}; }),
                    {"tensor 'embed.bias'", "'data_offsets'"});
    // Trailing bytes and a gap.
    Image padded = seed1_image(Variant::lite);
    padded.insert(padded.end(), 8, 0);
    expect_rejected(padded, {"8 bytes follow the last tensor", "head.linear.bias"});
    Split s = split(seed1_image(Variant::lite));
    s.data.insert(s.data.begin(), 16, 0);
    for (auto it = s.header.begin(); it != s.header.end(); ++it) {
        if (it.key() == "__metadata__") continue;
        auto& off = it.value()["data_offsets"];
        off = {off[0].get<uint64_t>() + 16, off[1].get<uint64_t>() + 16};
    }
    expect_rejected(join(s.header.dump(), s.data), {"data bytes 0..16", "belong to no tensor"});
}

TEST(Weights, NonFiniteValuesAndBadScalesAreRejected) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    expect_rejected(
        with_weights([&](Weights& w) { set_f32(w.tensors.at("enc2.fc1.bias"), 3, nan); }),
        {"tensor 'enc2.fc1.bias' element 3 is not finite"});
    expect_rejected(
        with_weights([&](Weights& w) { set_f32(w.tensors.at("head.norm.gain"), 0, -inf); }),
        {"tensor 'head.norm.gain' element 0 is not finite"});
    expect_rejected(
        with_weights([&](Weights& w) { set_f32(w.tensors.at("tube2.proj.scale"), 5, 0.75f); }),
        {"tensor 'tube2.proj.scale' element 5 is 0.75", "powers of two"});
    expect_rejected(
        with_weights([&](Weights& w) { set_f32(w.tensors.at("tube2.proj.scale"), 1, -0.5f); }),
        {"tensor 'tube2.proj.scale' element 1", "powers of two"});
    expect_rejected(
        with_weights([&](Weights& w) { set_f32(w.tensors.at("embed.scale"), 0, 0.0f); }),
        {"tensor 'embed.scale' element 0", "powers of two"});
    expect_rejected(with_weights([&](Weights& w) {
                        set_f32(w.tensors.at("embed.scale"), 2, std::ldexp(1.0f, -140));
                    }),
                    {"tensor 'embed.scale' element 2", "powers of two"});  // subnormal
    expect_rejected(with_weights([&](Weights& w) { set_f32(w.tensors.at("embed.scale"), 2, inf); }),
                    {"tensor 'embed.scale' element 2 is not finite"});
    expect_rejected(
        with_weights([](Weights& w) { w.tensors.at("enc1.fc2.weight").bytes[77] = 0x7f; }),
        {"tensor 'enc1.fc2.weight' element 77 is an e4m3 NaN code"});
    expect_rejected(
        with_weights([](Weights& w) { w.tensors.at("enc1.fc2.weight").bytes[78] = 0xff; }),
        {"tensor 'enc1.fc2.weight' element 78 is an e4m3 NaN code"});
    expect_rejected(with_weights([&](Weights& w) {
                        uint16_t inf16 = f32_to_f16_bits(inf);
                        std::memcpy(&w.tensors.at("dec1.rel_bias").bytes[2 * 9], &inf16, 2);
                    }),
                    {"tensor 'dec1.rel_bias' element 9 is not finite"});
    // Large but finite values and negative e4m3 codes are fine.
    Image ok = with_weights([](Weights& w) {
        set_f32(w.tensors.at("embed.bias"), 0, 3.0e38f);
        set_f32(w.tensors.at("embed.scale"), 0, std::ldexp(1.0f, -126));
        w.tensors.at("enc1.fc2.weight").bytes[0] = 0xfe;  // -448
    });
    std::string error;
    EXPECT_NE(weights_load_memory(ok.data(), ok.size(), &error), nullptr) << error;
}

// ---- files ------------------------------------------------------------------------------------

class WeightsFile : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = swinup::test::fresh_test_dir("weights");
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::string write(const std::string& name, const Image& bytes) {
        const std::string path = (dir_ / name).string();
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()),
                   static_cast<std::streamsize>(bytes.size()));
        return path;
    }
    std::filesystem::path dir_;
};

TEST_F(WeightsFile, MissingFileIsAnIoErrorThatNamesThePath) {
    const std::string path = (dir_ / "absent.safetensors").string();
    std::string error;
    bool io_error = false;
    EXPECT_EQ(weights_load_file(path, &error, &io_error), nullptr);
    EXPECT_TRUE(io_error);
    EXPECT_TRUE(contains(error, path)) << error;
    io_error = false;
    EXPECT_EQ(weights_load_file(dir_.string(), &error, &io_error), nullptr);
    EXPECT_TRUE(io_error) << "a directory is not a weights file";
}

TEST_F(WeightsFile, ValidFileLoadsAndInvalidFileIsNotAnIoError) {
    std::string error;
    bool io_error = true;
    const Image image = initial_image(Variant::full, 3);
    auto w = weights_load_file(write("full.safetensors", image), &error, &io_error);
    ASSERT_NE(w, nullptr) << error;
    EXPECT_FALSE(io_error);
    EXPECT_EQ(w->config.variant, Variant::full);

    const Image cut(image.begin(), image.begin() + 1000);
    const std::string path = write("cut.safetensors", cut);
    EXPECT_EQ(weights_load_file(path, &error, &io_error), nullptr);
    EXPECT_FALSE(io_error);
    EXPECT_TRUE(contains(error, path)) << error;
    EXPECT_TRUE(contains(error, "truncated")) << error;
    EXPECT_EQ(weights_load_file(write("empty.safetensors", {}), &error, &io_error), nullptr);
    EXPECT_FALSE(io_error);

    // A wrong path to something huge is refused before it is read (a sparse file: no disk use).
    const std::string huge = write("huge.safetensors", {});
    std::filesystem::resize_file(huge, 3ull << 30);
    EXPECT_EQ(weights_load_file(huge, &error, &io_error), nullptr);
    EXPECT_FALSE(io_error);
    EXPECT_TRUE(contains(error, "larger than any swinup weights file")) << error;
}

// A file whose first 8 bytes give a header over the limit is refused from them, before the rest
// is read: a (sparse) 512 MiB file claiming a 512 MiB header leaves the peak memory as it was.
TEST_F(WeightsFile, AHeaderOverTheLimitIsRefusedBeforeTheFileIsRead) {
    const uint64_t header = 512ull << 20;
    Image first8;
    for (int i = 0; i < 8; ++i) first8.push_back(static_cast<uint8_t>(header >> (8 * i)));
    const std::string path = write("big_header.safetensors", first8);
    std::filesystem::resize_file(path, 8 + header);
    rusage before{}, after{};
    getrusage(RUSAGE_SELF, &before);
    std::string error;
    bool io_error = true;
    EXPECT_EQ(weights_load_file(path, &error, &io_error), nullptr);
    getrusage(RUSAGE_SELF, &after);
    EXPECT_FALSE(io_error);
    EXPECT_TRUE(contains(error, path)) << error;
    EXPECT_TRUE(contains(error, "header length 536870912 is over the 1 MiB limit")) << error;
    EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024) << "peak memory grew by " << after.ru_maxrss -
        before.ru_maxrss << " KB";
    // A header length beyond the end of the file is still named as truncation.
    const std::string cut = write("cut_header.safetensors", first8);
    EXPECT_EQ(weights_load_file(cut, &error, &io_error), nullptr);
    EXPECT_TRUE(contains(error, "truncated")) << error;
}

// The file source reaches the same parse (see ADeeplyNestedHeaderIsRefusedOnASmallStack).
TEST_F(WeightsFile, ADeeplyNestedHeaderIsRefusedOnASmallStack) {
    const std::string path = write("deep.safetensors", with_shape_text(nested_arrays(100000)));
    test::run_on_small_stack([&] {
        std::string error;
        bool io_error = true;
        EXPECT_EQ(weights_load_file(path, &error, &io_error), nullptr);
        EXPECT_FALSE(io_error);
        EXPECT_TRUE(contains(error, path)) << error;
        EXPECT_TRUE(contains(error, "nested 100002 levels deep, over the limit of 128")) << error;
    });
}

}  // namespace
}  // namespace swinup
