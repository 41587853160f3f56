#include "model/model_spec.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "text/json_repeated_key.h"

namespace swinup {

const char* variant_name(Variant v) { return v == Variant::lite ? "lite" : "full"; }

bool parse_variant(const std::string& s, Variant* v) {
    if (s == "lite") { *v = Variant::lite; return true; }
    if (s == "full") { *v = Variant::full; return true; }
    return false;
}

const char* dtype_name(DType t) {
    switch (t) {
        case DType::f8_e4m3: return "F8_E4M3";
        case DType::f16: return "F16";
        case DType::f32: return "F32";
    }
    return "?";
}

bool parse_dtype(const std::string& s, DType* t) {
    if (s == "F8_E4M3") { *t = DType::f8_e4m3; return true; }
    if (s == "F16") { *t = DType::f16; return true; }
    if (s == "F32") { *t = DType::f32; return true; }
    return false;
}

size_t dtype_size(DType t) {
    switch (t) {
        case DType::f8_e4m3: return 1;
        case DType::f16: return 2;
        case DType::f32: return 4;
    }
    return 0;
}

int64_t TensorSpec::elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

ModelConfig ModelConfig::make(Variant v, bool head_mlp, bool masks) {
    ModelConfig c;
    c.variant = v;
    c.head_mlp = head_mlp;
    c.masks = masks;
    return c;
}

int mask_embed_inputs(const ModelConfig& config) {
    return config.variant == Variant::lite ? 4 * kMaskInputs : kMaskInputs;
}

int mask_embed_outputs(const ModelConfig& config) {
    return config.variant == Variant::lite ? config.channels[1] : config.channels[0];
}

std::vector<BlockSpec> ModelConfig::blocks() const {
    std::vector<BlockSpec> b;
    auto add = [&](const std::string& name, int level) {
        b.push_back({name, level, channels[level], heads[level]});
    };
    if (variant == Variant::full) add("enc0", 0);
    add("enc1", 1);
    add("enc2", 2);
    for (int i = 0; i < tube_blocks; ++i) add("tube" + std::to_string(i), 3);
    add("dec2", 2);
    add("dec1", 1);
    if (variant == Variant::full) add("dec0", 0);
    return b;
}

std::string ModelConfig::to_json() const {
    nlohmann::json j;
    j["variant"] = variant_name(variant);
    j["tube_blocks"] = tube_blocks;
    j["channels"] = {channels[0], channels[1], channels[2], channels[3]};
    j["heads"] = {heads[0], heads[1], heads[2], heads[3]};
    j["slots"] = kSlots;
    j["head_outputs"] = kHeadOutputs;
    j["window"] = kWindow;
    j["head_mlp"] = head_mlp;
    j["still_history_shift"] = still_history_shift;
    j["masks"] = masks;
    return j.dump();
}

bool ModelConfig::from_json(const std::string& text, ModelConfig* out, std::string* error) {
    ParsedJson parsed;
    try {
        parsed = parse_json_finding_repeated_key(text);
    } catch (const JsonNestingTooDeep& e) {
        *error = std::string("model config has ") + e.what();
        return false;
    } catch (const nlohmann::json::exception&) {
        // Malformed, or a number like 1e500: parsed.value stays null, refused just below.
    }
    if (!parsed.value.is_object()) {
        *error = "model config is not a JSON object";
        return false;
    }
    // Which of two "head_mlp" entries describes the tensors is unknowable.
    if (!parsed.repeated_key.empty()) {
        *error = "model config: '" + parsed.repeated_key + "' is given twice";
        return false;
    }
    const nlohmann::json& j = parsed.value;
    ModelConfig c;
    if (!j.contains("variant") || !j["variant"].is_string() ||
        !parse_variant(j["variant"].get<std::string>(), &c.variant)) {
        *error = "model config: 'variant' must be \"lite\" or \"full\"";
        return false;
    }
    // v1 fixes the widths: a file that claims others was made for another network.
    const ModelConfig expected = make(c.variant);
    auto check_int = [&](const char* key, int want) {
        if (!j.contains(key) || !j[key].is_number_integer() || j[key].get<int>() != want) {
            *error = std::string("model config: '") + key + "' must be " + std::to_string(want);
            return false;
        }
        return true;
    };
    auto check_array = [&](const char* key, const int* want) {
        if (!j.contains(key) || !j[key].is_array() || j[key].size() != 4) {
            *error = std::string("model config: '") + key + "' must be an array of 4 integers";
            return false;
        }
        for (int i = 0; i < 4; ++i) {
            if (!j[key][i].is_number_integer() || j[key][i].get<int>() != want[i]) {
                *error = std::string("model config: '") + key + "' differs from this build's v1 network";
                return false;
            }
        }
        return true;
    };
    if (!check_int("tube_blocks", expected.tube_blocks) || !check_int("slots", kSlots) ||
        !check_int("head_outputs", kHeadOutputs) || !check_int("window", kWindow) ||
        !check_array("channels", expected.channels) || !check_array("heads", expected.heads)) {
        return false;
    }
    // Format 3 states the head MLP; a format-2 config has no such key and no MLP.
    bool head_mlp = false;
    if (j.contains("head_mlp")) {
        if (!j["head_mlp"].is_boolean()) {
            *error = "model config: 'head_mlp' must be true or false";
            return false;
        }
        head_mlp = j["head_mlp"].get<bool>();
    }
    // Format 4 states the still-pixel shift; older configs have no such key and no shift.
    float still_history_shift = 0.0f;
    if (j.contains("still_history_shift")) {
        const nlohmann::json& v = j["still_history_shift"];
        if (!v.is_number() || !(std::fabs(v.get<double>()) <= double(kMaxStillHistoryShift))) {
            *error = "model config: 'still_history_shift' must be a number in [-" +
                     std::to_string(int(kMaxStillHistoryShift)) + ", " +
                     std::to_string(int(kMaxStillHistoryShift)) + "]";
            return false;
        }
        still_history_shift = v.get<float>();
    }
    // Format 5 states whether the network reads the masks; older configs have no such key.
    bool masks = false;
    if (j.contains("masks")) {
        if (!j["masks"].is_boolean()) {
            *error = "model config: 'masks' must be true or false";
            return false;
        }
        masks = j["masks"].get<bool>();
    }
    *out = expected;
    out->head_mlp = head_mlp;
    out->masks = masks;
    out->still_history_shift = still_history_shift;
    return true;
}

namespace {

void add_linear(std::vector<TensorSpec>& t, const std::string& name, int in, int out) {
    t.push_back({name + ".weight", DType::f8_e4m3, {out, in}});
    t.push_back({name + ".scale", DType::f32, {out}});
    t.push_back({name + ".bias", DType::f32, {out}});
}

void add_norm(std::vector<TensorSpec>& t, const std::string& name, int c) {
    t.push_back({name + ".gain", DType::f32, {c}});
}

void add_block(std::vector<TensorSpec>& t, const BlockSpec& b) {
    const int c = b.channels;
    add_norm(t, b.name + ".norm1", c);
    add_linear(t, b.name + ".qkv", c, 3 * c);
    t.push_back({b.name + ".rel_bias", DType::f16, {b.heads, kWindowTokens, kWindowTokens}});
    add_linear(t, b.name + ".proj", c, c);
    add_norm(t, b.name + ".norm2", c);
    add_linear(t, b.name + ".fc1", c, 4 * c);
    add_linear(t, b.name + ".fc2", 4 * c, c);
}

void add_merge(std::vector<TensorSpec>& t, const std::string& name, int c_in, int c_out) {
    add_norm(t, name + ".norm", 4 * c_in);
    add_linear(t, name + ".linear", 4 * c_in, c_out);
}

void add_expand(std::vector<TensorSpec>& t, const std::string& name, int c_in, int c_out) {
    add_norm(t, name + ".norm", c_in);
    add_linear(t, name + ".linear", c_in, 4 * c_out);
}

}  // namespace

std::vector<TensorSpec> model_tensors(const ModelConfig& config) {
    std::vector<TensorSpec> t;
    const int* ch = config.channels;
    const std::vector<BlockSpec> blocks = config.blocks();
    auto block = [&](const std::string& name) {
        for (const BlockSpec& b : blocks)
            if (b.name == name) add_block(t, b);
    };
    if (config.variant == Variant::lite) {
        add_linear(t, "embed", 4 * kSlots, ch[1]);
        if (config.masks) add_linear(t, "mask_embed", mask_embed_inputs(config), mask_embed_outputs(config));
    } else {
        add_linear(t, "embed0", kSlots, ch[0]);
        if (config.masks) add_linear(t, "mask_embed", mask_embed_inputs(config), mask_embed_outputs(config));
        add_linear(t, "embed1", ch[0], ch[0]);
        block("enc0");
        add_merge(t, "merge0", ch[0], ch[1]);
    }
    block("enc1");
    add_merge(t, "merge1", ch[1], ch[2]);
    block("enc2");
    add_merge(t, "merge2", ch[2], ch[3]);
    for (int i = 0; i < config.tube_blocks; ++i) block("tube" + std::to_string(i));
    add_expand(t, "expand2", ch[3], ch[2]);
    block("dec2");
    add_expand(t, "expand1", ch[2], ch[1]);
    block("dec1");
    add_expand(t, "expand0", ch[1], ch[0]);
    if (config.variant == Variant::lite) {
        add_linear(t, "skip0", kSlots, ch[0]);
    } else {
        block("dec0");
    }
    add_norm(t, "head.norm", ch[0]);
    add_linear(t, "head.linear", ch[0], kHeadOutputs);
    if (config.head_mlp) {
        add_linear(t, "head_mlp.fc1", kHeadMlpInputs, kHeadMlpHidden);
        add_linear(t, "head_mlp.fc2", kHeadMlpHidden, kHeadMlpHidden);
        add_linear(t, "head_mlp.fc3", kHeadMlpHidden, kHeadMlpOutputs);
    }
    return t;
}

ModelCost model_cost(const ModelConfig& config, int w, int h) {
    ModelCost cost;
    const double tokens[4] = {double(w) * h, double(w) * h / 4, double(w) * h / 16,
                              double(w) * h / 64};
    auto linear = [&](int level, int in, int out) { cost.linear_macs += tokens[level] * in * out; };
    if (config.variant == Variant::lite) {
        linear(1, 4 * kSlots, config.channels[1]);
        linear(0, kSlots, config.channels[0]);  // skip0
    } else {
        linear(0, kSlots, config.channels[0]);
        linear(0, config.channels[0], config.channels[0]);
        linear(1, 4 * config.channels[0], config.channels[1]);  // merge0
    }
    if (config.masks) linear(config.variant == Variant::lite ? 1 : 0, mask_embed_inputs(config), mask_embed_outputs(config));
    for (const BlockSpec& b : config.blocks()) {
        const int c = b.channels;
        linear(b.level, c, 3 * c);
        linear(b.level, c, c);
        linear(b.level, c, 4 * c);
        linear(b.level, 4 * c, c);
        // QK^T and PV: each token against the 16 tokens of its window, all heads: 2 * 16 * C.
        cost.attention_macs += tokens[b.level] * 2.0 * kWindowTokens * c;
    }
    const int* ch = config.channels;
    linear(2, 4 * ch[1], ch[2]);   // merge1
    linear(3, 4 * ch[2], ch[3]);   // merge2
    linear(3, ch[3], 4 * ch[2]);   // expand2
    linear(2, ch[2], 4 * ch[1]);   // expand1
    linear(1, ch[1], 4 * ch[0]);   // expand0
    linear(0, ch[0], kHeadOutputs);  // head
    if (config.head_mlp) {
        linear(0, kHeadMlpInputs, kHeadMlpHidden);
        linear(0, kHeadMlpHidden, kHeadMlpHidden);
        linear(0, kHeadMlpHidden, kHeadMlpOutputs);
    }
    return cost;
}

}  // namespace swinup
