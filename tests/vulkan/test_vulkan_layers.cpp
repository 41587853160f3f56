// Every layer kernel of the Vulkan backend against the CPU backend's layer functions
// (src/cpu/layers), at small shapes that cross the kernels' tile edges, with the Khronos
// validation layer on (any message fails the test). Seeded random weights (every tensor random:
// tests/support/network_test_weights.h) and inputs in the ranges the network sees.
// Bounds: exact mode, and every kernel whose arithmetic does not depend on the mode (the GEMM's
// accumulation, the element-wise roundings), give the CPU's bits: zero differing values. Fast
// mode (hardware exp2, division, inverse square root) is held to the per-layer bound of the CUDA
// backend, relative RMS <= 5e-2 (tests/cuda/test_cuda_ops.cpp layer_bound); the measured value is
// printed on a `[ measured ]` line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cpu/layers/elementwise.h"
#include "cpu/layers/head.h"
#include "cpu/layers/linear.h"
#include "cpu/layers/patch_expand.h"
#include "cpu/layers/patch_merge.h"
#include "cpu/layers/rms_norm.h"
#include "cpu/layers/swin_block.h"
#include "cpu/layers/weights_access.h"
#include "cpu/layers/window_attention.h"
#include "gpu_test_support.h"
#include "model/window_map.h"
#include "network_test_weights.h"
#include "vulkan/layers/device_weights.h"
#include "vulkan/layers/gemm.h"
#include "vulkan/layers/head.h"
#include "vulkan/layers/patch_expand.h"
#include "vulkan/layers/patch_merge.h"
#include "vulkan/layers/rms_norm.h"
#include "vulkan/layers/runtime_layer_recorder.h"
#include "vulkan/layers/swin_block.h"
#include "vulkan/layers/window_attention.h"
#include "vulkan/runtime/recorder.h"
#include "vulkan_layer_test_support.h"
#include "vulkan_test_support.h"

namespace swinup {
namespace {

using vulkan::Buffer;
using vulkan_test::host_buffer;
using vulkan_test::view;

constexpr double kFastLayerBound = 5e-2;

std::vector<float> random_values(size_t n, uint32_t seed, float lo, float hi, float (*round)(float)) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = round(u(rng));
    return v;
}
std::vector<float> random_e4m3(size_t n, uint32_t seed) { return random_values(n, seed, -2.0f, 2.0f, round_to_e4m3); }
std::vector<float> random_f16(size_t n, uint32_t seed, float range = 2.0f) {
    return random_values(n, seed, -range, range, round_to_f16);
}

// The shared device (vulkan_test_support.h: skipped without one, failed on any validation
// message), with the precision as the parameter.
class VulkanLayers : public vulkan::testing::VulkanTest, public ::testing::WithParamInterface<swinup_precision> {
protected:
    void SetUp() override {
        VulkanTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        device_ = &device();
        weights_ = test::make_random_weights(Variant::lite, 11, true);
        full_weights_ = test::make_random_weights(Variant::full, 12, false);
    }

    bool exact() const { return GetParam() == SWINUP_PRECISION_EXACT; }

    // Records `body` on a fresh command buffer, submits it and waits.
    template <class Body>
    void run(const Body& body) {
        vulkan::HostSubmitter submitter(*device_);
        vulkan::Recorder& rec = submitter.begin();
        vulkan::RuntimeLayerRecorder layers(*device_, rec);
        body(static_cast<vulkan::LayerRecorder&>(layers));
        rec.barrier(true);
        submitter.submit_and_wait();
    }

    // The blob's bytes in a buffer, and the views pointed at it.
    Buffer upload(const vulkan::WeightBlob& blob) {
        return host_buffer(*device_, blob.bytes().data(), blob.bytes().size());
    }

    // Bit-identical in exact mode and for mode-independent kernels; else within the fast bound.
    void expect_match(const std::vector<float>& got, const std::vector<float>& ref, bool mode_dependent,
                      const std::string& what) {
        ASSERT_EQ(got.size(), ref.size()) << what;
        const size_t diff = vulkan_test::bit_differences(got, ref);
        const double err = gpu_test::relative_rms(got, ref);
        std::printf("[ measured ] %s %s: %zu of %zu values differ, relative RMS %.3e\n", what.c_str(),
                    exact() ? "exact" : "fast", diff, ref.size(), err);
        if (exact() || !mode_dependent) {
            EXPECT_EQ(diff, 0u) << what;
        } else {
            EXPECT_LE(err, kFastLayerBound) << what;
        }
    }

    // rms_norm of the f16 rows `x` (rows x channels) with `gain` on the device against the CPU's
    // e4m3 rows.
    void expect_rms_norm_matches_cpu(const std::vector<float>& x, int rows, int channels, const std::vector<float>& gain,
                                     const std::string& what) {
        std::vector<float> ref(x.size());
        cpu::rms_norm_e4m3(x.data(), rows, channels, gain.data(), ref.data());
        const std::vector<uint16_t> xb = vulkan_test::to_f16(x);
        Buffer xbuf = host_buffer(*device_, xb.data(), xb.size() * 2);
        Buffer gbuf = host_buffer(*device_, gain.data(), gain.size() * 4);
        Buffer out = host_buffer(*device_, nullptr, x.size());
        run([&](vulkan::LayerRecorder& rec) {
            vulkan::record_rms_norm(rec, {view(xbuf), view(gbuf), view(out), rows, channels, false, 0, channels / 4},
                                    exact());
        });
        expect_match(vulkan_test::read_e4m3(out, ref.size()), ref, true, what);
    }

    void expect_gemm_epilogues_match_cpu(bool same_sums, const std::string& path);
    void expect_swin_blocks_match_cpu(const std::string& path);

    vulkan::Device* device_ = nullptr;
    std::shared_ptr<Weights> weights_, full_weights_;
};

// Every linear layer through every epilogue against cpu::linear and the CPU's element-wise step,
// on the device's fast-GEMM path as it is set. `same_sums`: the path adds the exact products in
// the CPU's k order (exact mode, the portable kernels and the emulated matrix path, whose
// fragments sum k in order too), so everything but fast GELU is the CPU's bits; the matrix units
// sum in their own order and are held to the fast bound.
void VulkanLayers::expect_gemm_epilogues_match_cpu(bool same_sums, const std::string& path) {
    struct Case {
        const char* name;
        int in, out;
        vulkan::GemmEpilogue epilogue;
        bool full_weights = false;
    };
    const Case cases[] = {
        {"enc1.fc2", 256, 64, vulkan::GemmEpilogue::store_f32},
        {"head_mlp.fc3", 64, 8, vulkan::GemmEpilogue::store_f32},
        {"enc1.qkv", 64, 192, vulkan::GemmEpilogue::store_f16},
        {"enc1.fc1", 64, 256, vulkan::GemmEpilogue::gelu_e4m3},
        {"head_mlp.fc1", 48, 64, vulkan::GemmEpilogue::relu_e4m3},
        {"embed0", 16, 32, vulkan::GemmEpilogue::relu_e4m3, true},
        {"enc2.proj", 96, 96, vulkan::GemmEpilogue::residual_f16},
        {"head_mlp.fc3", 64, 8, vulkan::GemmEpilogue::add_f32},
    };
    const int rows = 130;  // two full row tiles and a partial one
    uint32_t seed = 100;
    for (const Case& c : cases) {
        const Weights& w = c.full_weights ? *full_weights_ : *weights_;
        const cpu::Linear cpu_layer = cpu::Linear::from_weights(w, c.name, c.in, c.out);
        vulkan::WeightBlob blob;
        vulkan::DeviceLinear layer = blob.add_linear(w, c.name, c.in, c.out);
        Buffer wb = upload(blob);
        vulkan::set_buffer(layer, wb.handle());

        const std::vector<float> x = random_e4m3(size_t(rows) * c.in, seed++);
        std::vector<float> ref(size_t(rows) * c.out);
        cpu::linear(cpu_layer, x.data(), rows, ref.data());
        const std::vector<uint8_t> xb = vulkan_test::to_e4m3(x);
        Buffer a = host_buffer(*device_, xb.data(), xb.size());

        using E = vulkan::GemmEpilogue;
        const int ldo = c.epilogue == E::add_f32 ? kHeadOutputs : c.out;
        std::vector<float> base;  // the residual stream / the head outputs the result is added to
        Buffer out;
        switch (c.epilogue) {
            case E::residual_f16: {
                base = random_f16(size_t(rows) * ldo, seed++);
                const std::vector<uint16_t> bits = vulkan_test::to_f16(base);
                out = host_buffer(*device_, bits.data(), bits.size() * 2);
                cpu::add_round_f16(base.data(), ref.data(), ref.data(), ref.size());
                break;
            }
            case E::add_f32: {
                base = random_values(size_t(rows) * ldo, seed++, -3.0f, 3.0f, [](float v) { return v; });
                out = host_buffer(*device_, base.data(), base.size() * 4);
                std::vector<float> sum = base;
                for (int r = 0; r < rows; ++r)
                    for (int o = 0; o < c.out; ++o) sum[size_t(r) * ldo + o] += ref[size_t(r) * c.out + o];
                ref = sum;
                break;
            }
            default:
                out = host_buffer(*device_, nullptr, ref.size() * 4);
                break;
        }
        if (c.epilogue == E::store_f16) cpu::round_array_to_f16(ref.data(), ref.size());
        if (c.epilogue == E::gelu_e4m3) cpu::gelu_to_e4m3(ref.data(), ref.size());
        if (c.epilogue == E::relu_e4m3) cpu::relu_to_e4m3(ref.data(), ref.size());

        run([&](vulkan::LayerRecorder& rec) {
            vulkan::record_gemm(rec, vulkan::gemm_call(layer, view(a), rows, c.in / 4, c.epilogue, view(out), ldo),
                                exact());
        });
        std::vector<float> got;
        switch (c.epilogue) {
            case E::store_f32: case E::add_f32: got = vulkan_test::read_f32(out, ref.size()); break;
            case E::store_f16: case E::residual_f16: got = vulkan_test::read_f16(out, ref.size()); break;
            default: got = vulkan_test::read_e4m3(out, ref.size()); break;
        }
        expect_match(got, ref, c.epilogue == E::gelu_e4m3 || !same_sums,
                     "gemm (" + path + ") " + c.name + " epilogue " + std::to_string(int(c.epilogue)));
    }
}

TEST_P(VulkanLayers, GemmEpiloguesMatchCpu) {
    if (exact()) {
        expect_gemm_epilogues_match_cpu(true, "exact");
        return;
    }
    // Fast mode on each path this device runs (the device's own choice restored after).
    const vulkan::FastGemmPath chosen = device_->fast_gemm_path();
    ASSERT_TRUE(device_->set_fast_gemm_path(vulkan::FastGemmPath::portable));
    expect_gemm_epilogues_match_cpu(true, "portable");
    // The emulated matrix path with each vendor's shape (docs/vulkan.md): NVIDIA and AMD 16x16x16,
    // NVIDIA's 16x8x16, Intel's 8x16x16.
    const vulkan::MatrixShape shapes[] = {{16, 16, 16}, {16, 8, 16}, {8, 16, 16}};
    if (device_->can_run(vulkan::FastGemmPath::matrix_emulated)) {
        for (const vulkan::MatrixShape& shape : shapes) {
            ASSERT_TRUE(device_->set_fast_gemm_path(vulkan::FastGemmPath::matrix_emulated, &shape));
            expect_gemm_epilogues_match_cpu(true, "emulated " + vulkan::shape_text(shape));
        }
    } else {
        std::printf("[ skipped  ] the emulated matrix path: this device or build cannot run it\n");
    }
    if (device_->can_run(vulkan::FastGemmPath::matrix)) {
        ASSERT_TRUE(device_->set_fast_gemm_path(vulkan::FastGemmPath::matrix));
        expect_gemm_epilogues_match_cpu(false, "matrix " + vulkan::shape_text(device_->capabilities().matrix_shape));
    } else {
        std::printf("[ skipped  ] the matrix path: the device has no usable cooperative-matrix shape\n");
    }
    device_->set_fast_gemm_path(chosen);
}

TEST_P(VulkanLayers, RmsNormMatchesCpu) {
    for (const int channels : {32, 96, 128}) {
        const int rows = 77;
        const std::string gain_name = channels == 32 ? "head.norm.gain" : (channels == 96 ? "enc2.norm1.gain" : "tube0.norm2.gain");
        const std::vector<float> gain = cpu::f32_vector(weights_->tensors.at(gain_name));
        std::vector<float> x = random_f16(size_t(rows) * channels, 7 + channels, 4.0f);
        for (int c = 0; c < channels; ++c) x[c] = 0.0f;  // an all-zero row: the epsilon alone
        expect_rms_norm_matches_cpu(x, rows, channels, gain, "rms_norm C" + std::to_string(channels));
    }
}

TEST_P(VulkanLayers, PatchMergeMatchesCpu) {
    const int w = 16, h = 8;  // fine grid of C = 64 -> 8 x 4 coarse tokens of 96
    const cpu::PatchMerge cpu_merge = cpu::PatchMerge::from_weights(*weights_, "merge1", 64, 96);
    vulkan::WeightBlob blob;
    vulkan::DeviceNormLinear merge;
    merge.gain = blob.add_f32(*weights_, "merge1.norm.gain", 256);
    merge.linear = blob.add_linear(*weights_, "merge1.linear", 256, 96);
    Buffer wb = upload(blob);
    vulkan::set_buffer(merge, wb.handle());

    const std::vector<float> x = random_f16(size_t(w) * h * 64, 21);
    std::vector<float> ref(size_t(w / 2) * (h / 2) * 96);
    cpu::patch_merge(cpu_merge, x.data(), w, h, ref.data());

    const std::vector<uint16_t> xb = vulkan_test::to_f16(x);
    Buffer fine = host_buffer(*device_, xb.data(), xb.size() * 2);
    Buffer coarse = host_buffer(*device_, nullptr, ref.size() * 2);
    Buffer normed = host_buffer(*device_, nullptr, x.size());
    run([&](vulkan::LayerRecorder& rec) {
        vulkan::record_patch_merge(rec, merge, view(fine), w, h, view(coarse), {view(normed), {}, {}}, exact());
    });
    expect_match(vulkan_test::read_f16(coarse, ref.size()), ref, true, "patch_merge merge1");
}

// expand1 with its f16 skip (cpu::patch_expand), and lite's expand0 with skip0's f32 outputs as
// the skip (the CPU's tail: patch_expand_tokens, then add_round_f16 per fine token).
TEST_P(VulkanLayers, PatchExpandMatchesCpu) {
    for (const bool skip_f32 : {false, true}) {
        const std::string name = skip_f32 ? "expand0" : "expand1";
        const int c_in = skip_f32 ? 64 : 96, c_out = skip_f32 ? 32 : 64;
        const int w = 8, h = 4;  // coarse grid
        const cpu::PatchExpand cpu_expand = cpu::PatchExpand::from_weights(*weights_, name, c_in, c_out);
        vulkan::WeightBlob blob;
        vulkan::DeviceNormLinear expand;
        expand.gain = blob.add_f32(*weights_, name + ".norm.gain", c_in);
        expand.linear = blob.add_linear(*weights_, name + ".linear", c_in, 4 * c_out);
        Buffer wb = upload(blob);
        vulkan::set_buffer(expand, wb.handle());

        const std::vector<float> x = random_f16(size_t(w) * h * c_in, 31);
        const size_t fine_values = size_t(4) * w * h * c_out;
        std::vector<float> skip = skip_f32 ? random_values(fine_values, 32, -2.0f, 2.0f, [](float v) { return v; })
                                           : random_f16(fine_values, 32);
        std::vector<float> ref(fine_values);
        if (skip_f32) {
            std::vector<float> expanded(fine_values);
            cpu::patch_expand_tokens(cpu_expand, x.data(), 0, w * h, expanded.data());
            for (int t = 0; t < w * h; ++t)
                for (int q = 0; q < 4; ++q) {
                    const TokenCoord f = quadrant_fine_token(t % w, t / w, q);
                    const size_t fine = (size_t(f.y) * 2 * w + f.x) * c_out;
                    cpu::add_round_f16(expanded.data() + (size_t(t) * 4 + q) * c_out, skip.data() + fine,
                                       ref.data() + fine, size_t(c_out));
                }
        } else {
            cpu::patch_expand(cpu_expand, x.data(), w, h, skip.data(), ref.data());
        }

        const std::vector<uint16_t> xb = vulkan_test::to_f16(x);
        Buffer coarse = host_buffer(*device_, xb.data(), xb.size() * 2);
        Buffer skip_buf;
        if (skip_f32) {
            skip_buf = host_buffer(*device_, skip.data(), skip.size() * 4);
        } else {
            const std::vector<uint16_t> sb = vulkan_test::to_f16(skip);
            skip_buf = host_buffer(*device_, sb.data(), sb.size() * 2);
        }
        Buffer fine = host_buffer(*device_, nullptr, fine_values * 2);
        Buffer normed = host_buffer(*device_, nullptr, x.size());
        run([&](vulkan::LayerRecorder& rec) {
            vulkan::record_patch_expand(rec, expand, view(coarse), w, h, view(skip_buf), skip_f32, view(fine),
                                        {view(normed), {}, {}}, exact());
        });
        expect_match(vulkan_test::read_f16(fine, ref.size()), ref, true, "patch_expand " + name);
    }
}

// The attention kernel alone: the CPU gathers each window's tokens (window_token_index), runs
// cpu::window_attention with the window's mask and scatters the rows back.
TEST_P(VulkanLayers, WindowAttentionMatchesCpu) {
    struct Shape {
        int channels, heads;
    };
    for (const Shape s : {Shape{64, 2}, Shape{96, 4}, Shape{32, 2}, Shape{128, 4}}) {
        for (const bool shifted : {false, true}) {
            // 5 x 3 windows for two of the shapes: an odd number of windows in a row.
            const int w = s.heads == 2 ? 20 : 16, h = 12, c = s.channels;
            const std::vector<float> qkv = random_f16(size_t(w) * h * 3 * c, 41 + c, 1.5f);
            const std::vector<float> bias = random_f16(size_t(s.heads) * 256, 42 + c, 1.0f);
            std::vector<float> ref(size_t(w) * h * c);
            std::vector<float> window_qkv(size_t(16) * 3 * c), window_out(size_t(16) * c);
            for (int win = 0; win < window_count(w, h); ++win) {
                for (int t = 0; t < 16; ++t) {
                    const int g = window_token_index(win, t, w, h, shifted);
                    std::copy_n(qkv.begin() + size_t(g) * 3 * c, 3 * c, window_qkv.begin() + size_t(t) * 3 * c);
                }
                uint32_t mask[16];
                for (int q = 0; q < 16; ++q) mask[q] = window_key_mask(win, q, w, h, shifted);
                cpu::window_attention(window_qkv.data(), c, s.heads, bias.data(),
                                      window_has_mask(win, w, h, shifted) ? mask : nullptr, window_out.data());
                for (int t = 0; t < 16; ++t) {
                    const int g = window_token_index(win, t, w, h, shifted);
                    std::copy_n(window_out.begin() + size_t(t) * c, c, ref.begin() + size_t(g) * c);
                }
            }
            const std::vector<uint16_t> qb = vulkan_test::to_f16(qkv);
            Buffer qbuf = host_buffer(*device_, qb.data(), qb.size() * 2);
            Buffer bbuf = host_buffer(*device_, bias.data(), bias.size() * 4);
            Buffer out = host_buffer(*device_, nullptr, ref.size());
            run([&](vulkan::LayerRecorder& rec) {
                vulkan::record_window_attention(rec, {view(qbuf), view(bbuf), view(out), w, h, c, s.heads, shifted},
                                                exact());
            });
            expect_match(vulkan_test::read_e4m3(out, ref.size()), ref, true,
                         "window_attention C" + std::to_string(c) + "/" + std::to_string(s.heads) +
                             (shifted ? " shifted" : ""));
        }
    }
}

// A whole Swin block on the device's fast-GEMM path as it is set (fast mode on the matrix tiles
// fuses both norms into the GEMMs after them).
void VulkanLayers::expect_swin_blocks_match_cpu(const std::string& path) {
    for (const char* name : {"enc1", "enc2"}) {
        for (const bool shifted : {false, true}) {
            BlockSpec spec{};
            for (const BlockSpec& b : weights_->config.blocks())
                if (b.name == name) spec = b;
            const int w = 16, h = 12, c = spec.channels;
            const cpu::SwinBlock cpu_block = cpu::SwinBlock::from_weights(*weights_, spec);
            vulkan::WeightBlob blob;
            vulkan::DeviceBlock block = blob.add_block(*weights_, spec);
            Buffer wb = upload(blob);
            vulkan::set_buffer(block, wb.handle());

            const std::vector<float> x = random_f16(size_t(w) * h * c, 51 + c, 3.0f);
            std::vector<float> ref = x;
            cpu::swin_block(cpu_block, ref.data(), w, h, shifted);

            const std::vector<uint16_t> xb = vulkan_test::to_f16(x);
            Buffer xbuf = host_buffer(*device_, xb.data(), xb.size() * 2);
            Buffer normed = host_buffer(*device_, nullptr, x.size());
            Buffer wide = host_buffer(*device_, nullptr, x.size() * 4);
            Buffer qkv = host_buffer(*device_, nullptr, x.size() * 3 * 2);
            run([&](vulkan::LayerRecorder& rec) {
                vulkan::record_swin_block(rec, block, view(xbuf), w, h, shifted, {view(normed), view(wide), view(qkv)},
                                          exact());
            });
            expect_match(vulkan_test::read_f16(xbuf, ref.size()), ref, true,
                         "swin_block (" + path + ") " + name + (shifted ? " shifted" : ""));
        }
    }
}

TEST_P(VulkanLayers, SwinBlockMatchesCpu) {
    if (exact()) {
        expect_swin_blocks_match_cpu("exact");
        return;
    }
    const vulkan::FastGemmPath chosen = device_->fast_gemm_path();
    ASSERT_TRUE(device_->set_fast_gemm_path(vulkan::FastGemmPath::portable));
    expect_swin_blocks_match_cpu("portable");
    // The matrix tiles with the norm kernels (the default) and with the norms fused into the GEMMs.
    const bool fused = vulkan::fused_norms_enabled();
    for (const bool fuse : {false, true}) {
        vulkan::set_fused_norms(fuse);
        const std::string norms = fuse ? ", fused norms" : "";
        if (device_->can_run(vulkan::FastGemmPath::matrix_emulated)) {
            ASSERT_TRUE(device_->set_fast_gemm_path(vulkan::FastGemmPath::matrix_emulated));
            expect_swin_blocks_match_cpu("emulated matrix" + norms);
        }
        if (device_->can_run(vulkan::FastGemmPath::matrix)) {
            ASSERT_TRUE(device_->set_fast_gemm_path(vulkan::FastGemmPath::matrix));
            expect_swin_blocks_match_cpu("matrix" + norms);
        }
    }
    vulkan::set_fused_norms(fused);
    device_->set_fast_gemm_path(chosen);
}

TEST_P(VulkanLayers, HeadMatchesCpu) {
    for (const bool mlp : {false, true}) {
        const auto w = test::make_random_weights(Variant::lite, 61, mlp);
        const cpu::Head cpu_head = cpu::Head::from_weights(*w, 32);
        vulkan::WeightBlob blob;
        vulkan::DeviceHead head;
        head.head.gain = blob.add_f32(*w, "head.norm.gain", 32);
        head.head.linear = blob.add_linear(*w, "head.linear", 32, kHeadOutputs);
        head.has_mlp = mlp;
        if (mlp) {
            head.fc1 = blob.add_linear(*w, "head_mlp.fc1", kHeadMlpInputs, kHeadMlpHidden);
            head.fc2 = blob.add_linear(*w, "head_mlp.fc2", kHeadMlpHidden, kHeadMlpHidden);
            head.fc3 = blob.add_linear(*w, "head_mlp.fc3", kHeadMlpHidden, kHeadMlpOutputs);
        }
        Buffer wb = upload(blob);
        vulkan::set_buffer(head.head, wb.handle());
        for (vulkan::DeviceLinear* l : {&head.fc1, &head.fc2, &head.fc3}) vulkan::set_buffer(*l, wb.handle());

        const int pixels = 200;
        const std::vector<float> x = random_f16(size_t(pixels) * 32, 62, 3.0f);
        const std::vector<float> slots = random_e4m3(size_t(pixels) * kSlots, 63);
        std::vector<float> ref(size_t(pixels) * kHeadOutputs);
        cpu::head_tokens(cpu_head, x.data(), slots.data(), pixels, ref.data());

        const std::vector<uint16_t> xb = vulkan_test::to_f16(x);
        const std::vector<uint8_t> sb = vulkan_test::to_e4m3(slots);
        Buffer xbuf = host_buffer(*device_, xb.data(), xb.size() * 2);
        Buffer sbuf = host_buffer(*device_, sb.data(), sb.size());
        Buffer out = host_buffer(*device_, nullptr, ref.size() * 4);
        Buffer normed = host_buffer(*device_, nullptr, size_t(pixels) * kHeadMlpHidden);
        Buffer wide = host_buffer(*device_, nullptr, size_t(pixels) * kHeadMlpHidden);
        run([&](vulkan::LayerRecorder& rec) {
            vulkan::record_head(rec, head, view(xbuf), view(sbuf), pixels, view(out), {view(normed), view(wide), {}},
                                exact());
        });
        expect_match(vulkan_test::read_f32(out, ref.size()), ref, true, mlp ? "head with MLP" : "head");
    }
}

// More rows than one dimension of workgroups holds (65535 groups of 64): the kernels number their
// groups on a 2D grid (layer_recorder.h groups_1d), and every row is normalised exactly once.
TEST_P(VulkanLayers, RmsNormBeyondOneGroupDimension) {
    const int rows = 65535 * 64 + 100, channels = 4;
    const std::vector<float> gain = {1.0f, 0.75f, 1.25f, 0.5f};
    const std::vector<float> x = random_f16(size_t(rows) * channels, 71, 4.0f);
    expect_rms_norm_matches_cpu(x, rows, channels, gain, "rms_norm 2D grid");
}

TEST(VulkanLayerGroups, OneDimensionUntil65535GroupsThenTwo) {
    const vulkan::Groups2d a = vulkan::groups_1d(65535u * 64u, 64);
    EXPECT_EQ(a.x, 65535u);
    EXPECT_EQ(a.y, 1u);
    const vulkan::Groups2d b = vulkan::groups_1d(65535u * 64u + 1u, 64);
    EXPECT_EQ(b.x, 65535u);
    EXPECT_EQ(b.y, 2u);
    const vulkan::Groups2d c = vulkan::groups_1d(0, 64);
    EXPECT_EQ(c.x * c.y, 1u);
}

INSTANTIATE_TEST_SUITE_P(Precision, VulkanLayers, ::testing::Values(SWINUP_PRECISION_EXACT, SWINUP_PRECISION_FAST),
                         [](const ::testing::TestParamInfo<swinup_precision>& p) {
                             return std::string(p.param == SWINUP_PRECISION_EXACT ? "Exact" : "Fast");
                         });

}  // namespace
}  // namespace swinup
