// The CPU backend against the PyTorch reference's golden data (tests/data/golden_<variant>.*,
// written by python/scripts/make_golden.py from weights/<variant>.safetensors).
//
// Both sides compute the same function with the same arithmetic (docs/model-spec.md): the same
// e4m3/f16 rounding points, the same exact-mode formulas, the same fixed-order sums (RMSNorm,
// softmax denominator, staging, output pass). They differ only where the spec leaves the order
// free: the f32 accumulation of GEMMs and of attention's dot products (the reference forms each
// such sum exactly in float64 and rounds once, the CPU sums in float32 in its blocking order).
// The weights are weights/<variant>.safetensors with a fixed perturbation (perturb_weights) that
// makes biases, gains, bias tables, the head's kernel and alpha rows and the mask embedding
// non-trivial; every frame has a reactive and a transparency mask (weights format 5, docs/masks.md).
// A different last bit there can flip a later e4m3 or f16 rounding by one unit, and that flip
// travels on through the network. The bounds below say how far that may go; they were set at
// about twice what the reference itself moves when every such sum is perturbed by 2 f32 ulps
// (measured: per layer, teacher-forced, max 0.0014 r and 0.15% of elements differing; end to
// end, head mean 0.0067 r, max 0.091 r; output mean |dt| 2.0e-4, max 0.0068). The CPU backend
// of 2026-11-30 is far inside them: every layer bit-identical but for one layer per variant with
// <= 0.05% of its elements off by one f16 unit, and the output frames bit-identical.
// The end-to-end bounds hold for these inputs, not for any input: on 2026-12-04 a still band
// made of other texels (make_golden.py) put lite's enc1 0.18% off by one e4m3 unit of a GEMM
// input (teacher-forced, within the per-layer bound), and free-running that cascaded to one
// head element 0.43 r off (mean 0.0035 r) and an output max |dt| of 0.026. So a failure of (a)'s
// end-to-end or (b)'s bounds alone, with every layer inside its bound, can be such a cascade:
// check the per-layer lines first.
// The two cases differ in every convention the data can vary cheaply: lite is HDR with
// conventional depth, 64x32 -> 128x64 (s = 2); full is LDR with reverse-Z depth, 28x30 -> 42x45
// (s = 1.5, and a render size the network pads to 32x32).
//
// (a) Network only, layer by layer: the golden staged slots of frame 1 go through
//     cpu::Network::run; the layer hook compares each layer's output with the golden one and then
//     overwrites it with the golden values (teacher forcing), so that each layer is judged on its
//     own arithmetic from identical inputs. Forcing takes effect where the hook is handed the live
//     activation, which is every layer except the fused ones (full: embed0; lite: expand0, whose
//     hook buffer is a copy): the layer after those also carries their differences. Per layer L
//     with r = RMS of the golden output:
//       max |cpu - golden| <= 0.05 r      (one e4m3 unit of one GEMM input, times a weight)
//       mean |cpu - golden| <= 1e-3 r
//       at most 2% of the elements differ at all.
//     Then frames 0 and 1 run free (no forcing) and the head is compared end to end:
//       max |cpu - golden| <= 0.2 r, mean <= 0.015 r.
// (b) Whole frames through the C API (CPU backend, exact precision, the golden's inputs and
//     settings, 3 frames with history): the RGBA16F output against the golden frames, in t-space
//     (t = log2(1 + x), where the blend happens): max |dt| <= 0.015, mean |dt| <= 4e-4; alpha 1.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/resource_desc.h"
#include "numeric/e4m3.h"
#include "numeric/half.h"
#include "model/weights.h"
#include "cpu/network.h"
#include "swinup/swinup.h"

namespace {

using swinup::e4m3_to_f32;
using swinup::f16_bits_to_f32;
using swinup::frame_dispatch_desc;
using swinup::input_resource;
using swinup::output_resource;

const std::string kDataDir = SWINUP_TEST_DATA_DIR;
const std::string kRootDir = kDataDir + "/../..";

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("cannot open " + path);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

uint64_t fnv1a64(const std::vector<uint8_t>& bytes) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint8_t b : bytes) {
        h ^= b;
        h *= 0x100000001b3ull;
    }
    return h;
}

// One golden case: the JSON index and the blob, with typed access to its tensors.
struct Golden {
    nlohmann::json index;
    std::vector<uint8_t> blob;
    std::string variant;

    explicit Golden(const std::string& v) : variant(v) {
        const std::vector<uint8_t> text = read_file(kDataDir + "/golden_" + v + ".json");
        index = nlohmann::json::parse(text.begin(), text.end());
        blob = read_file(kDataDir + "/golden_" + v + ".bin");
    }

    const nlohmann::json* find(const std::string& name) const {
        for (const auto& e : index["tensors"])
            if (e["name"] == name) return &e;
        return nullptr;
    }
    bool has(const std::string& name) const { return find(name) != nullptr; }

    // The tensor as floats (f16 and e4m3 decoded exactly).
    std::vector<float> floats(const std::string& name) const {
        const nlohmann::json* e = find(name);
        if (!e) throw std::runtime_error("golden_" + variant + ": no tensor " + name);
        const size_t offset = (*e)["offset"], bytes = (*e)["bytes"];
        if (offset + bytes > blob.size()) throw std::runtime_error("golden blob too short for " + name);
        const uint8_t* p = blob.data() + offset;
        const std::string dtype = (*e)["dtype"];
        std::vector<float> out;
        if (dtype == "f32") {
            out.resize(bytes / 4);
            std::memcpy(out.data(), p, bytes);
        } else if (dtype == "f16") {
            out.resize(bytes / 2);
            for (size_t i = 0; i < out.size(); ++i) {
                uint16_t h;
                std::memcpy(&h, p + 2 * i, 2);
                out[i] = f16_bits_to_f32(h);
            }
        } else if (dtype == "e4m3") {
            out.resize(bytes);
            for (size_t i = 0; i < bytes; ++i) out[i] = e4m3_to_f32(p[i]);
        } else {
            throw std::runtime_error("golden: unknown dtype " + dtype);
        }
        return out;
    }

    // The raw bytes of an f16 tensor (fed to the C API as RGBA16F / RG16F).
    std::vector<uint16_t> halfs(const std::string& name) const {
        const nlohmann::json* e = find(name);
        if (!e || (*e)["dtype"] != "f16") throw std::runtime_error("golden: no f16 tensor " + name);
        const size_t offset = (*e)["offset"], bytes = (*e)["bytes"];
        std::vector<uint16_t> out(bytes / 2);
        std::memcpy(out.data(), blob.data() + offset, bytes);
        return out;
    }

    std::string weights_path() const { return kRootDir + "/" + index["weights"].get<std::string>(); }
    int render_w() const { return index["render"][0]; }
    int render_h() const { return index["render"][1]; }
    int display_w() const { return index["display"][0]; }
    int display_h() const { return index["display"][1]; }
};

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// make_golden.py's perturb_weights(), element for element: the seeded weights have zero biases
// and bias tables, unit gains and zero head rows 4..7, which would leave those parts untested.
std::shared_ptr<swinup::Weights> perturb_weights(const swinup::Weights& in) {
    auto w = std::make_shared<swinup::Weights>(in);
    const std::vector<swinup::TensorSpec> specs = swinup::model_tensors(w->config);
    for (size_t ti = 0; ti < specs.size(); ++ti) {
        const std::string& name = specs[ti].name;
        swinup::Tensor& t = w->tensors.at(name);
        const int64_t n = t.elements();
        const auto k = static_cast<int64_t>(ti);
        for (int64_t i = 0; i < n; ++i) {
            if (ends_with(name, ".bias") || ends_with(name, ".gain")) {
                float v;
                std::memcpy(&v, t.bytes.data() + 4 * i, 4);
                if (ends_with(name, ".bias"))
                    v = v + static_cast<float>((7 * i + 3 * k) % 17 - 8) / 64.0f;
                else
                    v = v * (1.0f + static_cast<float>((5 * i + k) % 9 - 4) / 16.0f);
                std::memcpy(t.bytes.data() + 4 * i, &v, 4);
            } else if (ends_with(name, ".rel_bias")) {
                uint16_t h;
                std::memcpy(&h, t.bytes.data() + 2 * i, 2);
                h = swinup::f32_to_f16_bits(f16_bits_to_f32(h) +
                                            static_cast<float>((11 * i + k) % 13 - 6) / 8.0f);
                std::memcpy(t.bytes.data() + 2 * i, &h, 2);
            }
        }
    }
    swinup::Tensor& head_w = w->tensors.at("head.linear.weight");
    swinup::Tensor& head_s = w->tensors.at("head.linear.scale");
    const size_t row = size_t(head_w.shape[1]);
    std::memcpy(head_w.bytes.data() + 4 * row, head_w.bytes.data(), 4 * row);
    std::memcpy(head_s.bytes.data() + 4 * 4, head_s.bytes.data(), 4 * 4);
    // v2: a fixed non-zero mask_embed (the shipped trained layers replaced, so the data pins the arithmetic), codes
    // 1/8 .. 15/32, a third negative.
    if (w->config.masks) {
        swinup::Tensor& mask_w = w->tensors.at("mask_embed.weight");
        for (int64_t i = 0; i < mask_w.elements(); ++i)
            mask_w.bytes[size_t(i)] = uint8_t((0x20 + (37 * i + 11) % 32) | (i % 3 == 0 ? 0x80 : 0));
        swinup::Tensor& mask_s = w->tensors.at("mask_embed.scale");
        for (int64_t i = 0; i < mask_s.elements(); ++i) {
            const float half = 0.5f;
            std::memcpy(mask_s.bytes.data() + 4 * i, &half, 4);
        }
    }
    return w;
}

// The weights the golden data was made from, or a failure that says to regenerate it.
std::shared_ptr<const swinup::Weights> load_golden_weights(const Golden& g) {
    const std::vector<uint8_t> bytes = read_file(g.weights_path());
    std::ostringstream hash;
    hash << std::hex;
    hash.width(16);
    hash.fill('0');
    hash << fnv1a64(bytes);
    EXPECT_EQ(hash.str(), g.index["weights_fnv1a64"].get<std::string>())
        << g.weights_path() << " is not the file tests/data/golden_" << g.variant
        << " was made from: run python/scripts/make_golden.py after changing the weights";
    std::string error;
    auto w = swinup::weights_load_memory(bytes.data(), bytes.size(), &error);
    EXPECT_TRUE(w) << error;
    if (!w) return nullptr;
    EXPECT_EQ(g.index.value("weights_perturbation", ""), "v2");
    EXPECT_TRUE(w->config.masks) << "the golden data pins the masks' path: its weights must have mask_embed";
    return perturb_weights(*w);
}

struct Diff {
    double max_abs = 0, mean_abs = 0, rms = 0, fraction_differing = 0;
    size_t worst = 0;
};

Diff compare(const float* got, const float* want, size_t n) {
    Diff d;
    double sum = 0, sq = 0;
    size_t differing = 0;
    for (size_t i = 0; i < n; ++i) {
        const double e = std::fabs(double(got[i]) - double(want[i]));
        if (!(e <= d.max_abs)) {  // also catches NaN
            d.max_abs = std::isnan(e) ? INFINITY : e;
            d.worst = i;
        }
        sum += e;
        sq += double(want[i]) * want[i];
        differing += got[i] != want[i];
    }
    d.mean_abs = sum / double(n);
    d.rms = std::sqrt(sq / double(n));
    d.fraction_differing = double(differing) / double(n);
    return d;
}

std::string describe(const Diff& d, int c) {
    std::ostringstream s;
    s << "max " << d.max_abs << " (element " << d.worst << ": token " << d.worst / size_t(c)
      << " channel " << d.worst % size_t(c) << "), mean " << d.mean_abs << ", rms of golden " << d.rms
      << ", differing " << 100.0 * d.fraction_differing << "%";
    return s.str();
}

int padded(int n) { return (n + 31) / 32 * 32; }

// (a), layer by layer with teacher forcing.
void check_layers(const std::string& variant) {
    const Golden g(variant);
    auto weights = load_golden_weights(g);
    ASSERT_TRUE(weights);
    const int f = g.index["layer_frame"];
    const std::string prefix = "frame" + std::to_string(f) + "/";
    const int w = padded(g.render_w()), h = padded(g.render_h());
    const std::vector<float> staged = g.floats(prefix + "staged");
    ASSERT_EQ(staged.size(), size_t(w) * h * 16);
    const std::vector<float> masks = g.floats(prefix + "staged_masks");
    ASSERT_EQ(masks.size(), size_t(w) * h * 2);

    swinup::cpu::Network net(weights, SWINUP_PRECISION_EXACT);
    std::vector<std::string> seen;
    net.set_layer_hook([&](const std::string& layer, const float* data, int lw, int lh, int lc) {
        seen.push_back(layer);
        const std::string name = prefix + "layer/" + layer;
        if (!g.has(name)) {
            ADD_FAILURE() << variant << ": the CPU network reports layer '" << layer
                          << "', which the golden data does not have";
            return;
        }
        const std::vector<float> want = g.floats(name);
        ASSERT_EQ(want.size(), size_t(lw) * lh * lc) << variant << " " << layer << ": size";
        const Diff d = compare(data, want.data(), want.size());
        std::printf("  %s %-8s %s\n", variant.c_str(), layer.c_str(), describe(d, lc).c_str());
        SCOPED_TRACE(variant + " layer " + layer + ": " + describe(d, lc));
        EXPECT_LE(d.max_abs, 0.05 * d.rms);
        EXPECT_LE(d.mean_abs, 1e-3 * d.rms);
        EXPECT_LE(d.fraction_differing, 0.02);
        // Teacher forcing: continue from the golden values (the buffer is the network's own,
        // non-const storage; see the comment at the top).
        std::memcpy(const_cast<float*>(data), want.data(), want.size() * sizeof(float));
    });
    std::vector<float> head(size_t(w) * h * 16);
    net.run(staged.data(), w, h, uint64_t(f), head.data(), masks.data());
    std::vector<std::string> expected;
    for (const auto& n : g.index["layers"]) expected.push_back(n);
    EXPECT_EQ(seen, expected) << variant << ": the layers the CPU network reports, in order";
}

// (a), end to end without forcing, for both window-shift parities.
void check_heads(const std::string& variant) {
    const Golden g(variant);
    auto weights = load_golden_weights(g);
    ASSERT_TRUE(weights);
    const int w = padded(g.render_w()), h = padded(g.render_h());
    swinup::cpu::Network net(weights, SWINUP_PRECISION_EXACT);
    const int layer_frame = g.index["layer_frame"];
    for (int f : {0, layer_frame}) {
        const std::string prefix = "frame" + std::to_string(f) + "/";
        const std::string head_name = g.has(prefix + "head") ? prefix + "head" : prefix + "layer/head";
        const std::vector<float> staged = g.floats(prefix + "staged");
        const std::vector<float> masks = g.floats(prefix + "staged_masks");
        const std::vector<float> want = g.floats(head_name);
        std::vector<float> head(size_t(w) * h * 16);
        net.run(staged.data(), w, h, uint64_t(f), head.data(), masks.data());
        const Diff d = compare(head.data(), want.data(), want.size());
        std::printf("  %s frame %d head: %s\n", variant.c_str(), f, describe(d, 16).c_str());
        SCOPED_TRACE(variant + " frame " + std::to_string(f) + " head: " + describe(d, 16));
        EXPECT_LE(d.max_abs, 0.2 * d.rms);
        EXPECT_LE(d.mean_abs, 0.015 * d.rms);
    }
}

float t_of(float x) { return std::log2(1.0f + std::max(x, 0.0f)); }

// (b), whole frames through the C API.
void check_frames(const std::string& variant) {
    const Golden g(variant);
    auto weights = load_golden_weights(g);
    ASSERT_TRUE(weights);
    const std::vector<uint8_t> weight_bytes = swinup::weights_serialize(*weights);
    ASSERT_EQ(g.index["precision"], "exact");
    ASSERT_EQ(g.index["output_format"], "RGBA16F");
    const int rw = g.render_w(), rh = g.render_h(), dw = g.display_w(), dh = g.display_h();

    swinup_context_desc cd;
    swinup_context_desc_init(&cd);
    cd.backend = SWINUP_BACKEND_CPU;
    cd.variant = variant == "full" ? SWINUP_VARIANT_FULL : SWINUP_VARIANT_LITE;
    cd.precision = SWINUP_PRECISION_EXACT;
    cd.max_render_width = uint32_t(rw);
    cd.max_render_height = uint32_t(rh);
    cd.display_width = uint32_t(dw);
    cd.display_height = uint32_t(dh);
    const auto& flags = g.index["flags"];
    auto flag = [&](const char* key, swinup_context_flags bit) {
        return flags[key].get<bool>() ? uint32_t(bit) : 0u;
    };
    cd.flags = flag("hdr", SWINUP_FLAG_HDR) | flag("depth_inverted", SWINUP_FLAG_DEPTH_INVERTED) |
               flag("mv_display_res", SWINUP_FLAG_MV_DISPLAY_RES) |
               flag("mv_jittered", SWINUP_FLAG_MV_JITTERED);
    cd.output_format = SWINUP_FORMAT_RGBA16F;
    cd.weights_source = SWINUP_WEIGHTS_MEMORY;
    cd.weights_data = weight_bytes.data();
    cd.weights_size = weight_bytes.size();
    cd.num_threads = 2;
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(&cd, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    std::unique_ptr<swinup_context, void (*)(swinup_context*)> guard(ctx, swinup_context_destroy);

    const auto& frames = g.index["frames"];
    for (size_t f = 0; f < frames.size(); ++f) {
        const std::string prefix = "frame" + std::to_string(f) + "/";
        const std::vector<uint16_t> color = g.halfs(prefix + "input/color");  // RGBA
        const std::vector<float> depth = g.floats(prefix + "input/depth");
        const std::vector<uint16_t> mv = g.halfs(prefix + "input/mv");  // RG
        const std::vector<uint16_t> masks = g.halfs(prefix + "input/masks");  // (reactive, transparency)
        std::vector<uint16_t> reactive(size_t(rw) * rh), transparency(size_t(rw) * rh);
        for (size_t i = 0; i < reactive.size(); ++i) {
            reactive[i] = masks[i * 2];
            transparency[i] = masks[i * 2 + 1];
        }
        const std::vector<float> want = g.floats(prefix + "output");     // RGB
        std::vector<uint16_t> out(size_t(dw) * dh * 4, 0);

        swinup_dispatch_desc dd = frame_dispatch_desc(input_resource(color.data(), SWINUP_FORMAT_RGBA16F, rw, rh),
                                                      input_resource(depth.data(), SWINUP_FORMAT_R32F, rw, rh),
                                                      input_resource(mv.data(), SWINUP_FORMAT_RG16F, rw, rh),
                                                      output_resource(out.data(), SWINUP_FORMAT_RGBA16F, dw, dh));
        dd.jitter_x = frames[f]["jitter"][0];
        dd.jitter_y = frames[f]["jitter"][1];
        dd.exposure_value = frames[f]["exposure"];
        dd.pre_exposure = frames[f]["pre_exposure"];
        dd.mv_scale_x = g.index["mv_scale"][0];
        dd.mv_scale_y = g.index["mv_scale"][1];
        dd.reset = frames[f]["reset"];
        dd.reactive_mask = input_resource(reactive.data(), SWINUP_FORMAT_R16F, rw, rh);
        dd.transparency_mask = input_resource(transparency.data(), SWINUP_FORMAT_R16F, rw, rh);
        ASSERT_EQ(swinup_dispatch(ctx, &dd), SWINUP_STATUS_OK) << swinup_last_error(ctx);

        double max_dt = 0, sum_dt = 0;
        size_t worst = 0;
        bool alpha_ok = true;
        for (size_t p = 0; p < size_t(dw) * dh; ++p) {
            alpha_ok = alpha_ok && out[p * 4 + 3] == 0x3c00u;
            for (int c = 0; c < 3; ++c) {
                const double dt = std::fabs(double(t_of(f16_bits_to_f32(out[p * 4 + c]))) -
                                            double(t_of(want[p * 3 + c])));
                sum_dt += dt;
                if (!(dt <= max_dt)) {
                    max_dt = std::isnan(dt) ? INFINITY : dt;
                    worst = p;
                }
            }
        }
        const double mean_dt = sum_dt / (3.0 * dw * dh);
        std::printf("  %s frame %zu output: max |dt| %g, mean |dt| %g\n", variant.c_str(), f, max_dt,
                    mean_dt);
        SCOPED_TRACE(variant + " frame " + std::to_string(f) + ": max |dt| " + std::to_string(max_dt) +
                     " at display pixel (" + std::to_string(worst % size_t(dw)) + ", " +
                     std::to_string(worst / size_t(dw)) + "), mean |dt| " + std::to_string(mean_dt));
        EXPECT_TRUE(alpha_ok);
        EXPECT_LE(max_dt, 0.015);
        EXPECT_LE(mean_dt, 4e-4);
    }
}

TEST(GoldenNetwork, LiteLayerByLayer) { check_layers("lite"); }
TEST(GoldenNetwork, FullLayerByLayer) { check_layers("full"); }
TEST(GoldenNetwork, LiteHeadEndToEnd) { check_heads("lite"); }
TEST(GoldenNetwork, FullHeadEndToEnd) { check_heads("full"); }
TEST(GoldenFrames, LiteThroughCApi) { check_frames("lite"); }
TEST(GoldenFrames, FullThroughCApi) { check_frames("full"); }

}  // namespace
