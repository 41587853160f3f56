// The CPU network (docs/model-spec.md, "Layers, in execution order"), built from the layers in
// cpu/layers/. Full-grid activations are float arrays holding f16 values (the residual streams);
// the level-0 tail (expand0 + skip, head) is fused per token block so that no 32-channel
// full-resolution buffer exists unless a layer hook asks to see it.
#include "cpu/network.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "numeric/half.h"
#include "model/model_spec.h"
#include "model/window_map.h"
#include "cpu/layers/elementwise.h"
#include "cpu/layers/head.h"
#include "cpu/layers/linear.h"
#include "cpu/layers/parallel.h"
#include "cpu/layers/patch_expand.h"
#include "cpu/layers/patch_merge.h"
#include "cpu/layers/swin_block.h"

namespace swinup::cpu {

namespace {

// Token blocks of the per-token layers (embedding, tail): a fixed size, so that the GEMM row
// blocks and therefore the bits never depend on the thread count.
constexpr int kTokensPerTask = 256;

struct ScratchEmbedIn {};
struct ScratchEmbedMid {};
struct ScratchMaskIn {};
struct ScratchMaskOut {};
struct ScratchTailExpand {};
struct ScratchTailSlots {};
struct ScratchTailSkip {};
struct ScratchTailHead {};

// Floats of each full-grid activation of a padded w x h grid: the one place their sizes are
// computed (run() resizes to them, reserve() and activation_bytes() use them too). Zero where the
// variant has no such buffer: lite has no level-0 encoder or decoder stream (its tail is fused).
struct ActivationSizes {
    size_t e0 = 0, d0 = 0, e1 = 0, d1 = 0, e2 = 0, d2 = 0, t3 = 0;

    ActivationSizes(const ModelConfig& config, int w, int h) {
        const int* ch = config.channels;
        const bool full = config.variant == Variant::full;
        e0 = d0 = full ? size_t(w) * h * ch[0] : 0;
        e1 = d1 = size_t(w / 2) * (h / 2) * ch[1];
        e2 = d2 = size_t(w / 4) * (h / 4) * ch[2];
        t3 = size_t(w / 8) * (h / 8) * ch[3];
    }
    size_t total() const { return e0 + d0 + e1 + d1 + e2 + d2 + t3; }
};

}  // namespace

struct Network::Impl {
    std::shared_ptr<const Weights> weights;
    ModelConfig config;
    LayerHook hook;

    // lite: embed (64 -> C1) and skip0 (16 -> C0); full: embed0 (16 -> C0), embed1 (C0 -> C0).
    Linear embed, skip0, embed0, embed1;
    // Weights format 5 (config.masks): the masks' layer, added to embed's / embed0's f32 output.
    Linear mask_embed;
    bool mask_bias_nonzero = false;  // absent masks then still add mask_embed(0) = its bias
    std::vector<SwinBlock> blocks;  // execution order (ModelConfig::blocks())
    std::vector<BlockSpec> block_specs;
    PatchMerge merge0, merge1, merge2;
    PatchExpand expand2, expand1, expand0;
    Head head;

    // Activations, reused between frames: e = encoder (kept as skips), d = decoder.
    std::vector<float> e0, d0, e1, d1, e2, d2, t3, hook_buffer;

    void report(const char* layer, const float* data, int w, int h, int c) const {
        if (hook) hook(layer, data, w, h, c);
    }

    int block_index(const std::string& name) const {
        for (size_t i = 0; i < block_specs.size(); ++i)
            if (block_specs[i].name == name) return int(i);
        throw std::logic_error("network: no block named " + name);
    }

    void run_block(const std::string& name, float* x, int w, int h, uint64_t frame) const {
        const int i = block_index(name);
        const bool shifted = (uint64_t(i) + frame) % 2 == 1;
        swin_block(blocks[size_t(i)], x, w, h, shifted);
        report(name.c_str(), x, w, h, blocks[size_t(i)].channels);
    }

    void run(const float* staged, const float* masks, int w, int h, uint64_t frame, float* head_out);
    void embed_lite(const float* staged, const float* masks, int w, int h);
    void embed_full(const float* staged, const float* masks, int w, int h);
    // Adds mask_embed's output for `count` tokens to out (count x its outputs): of their masks
    // (`mask_in`, count x its inputs) when the frame has masks, else its bias (absent masks are 0).
    void add_mask_embed(const float* mask_in, int count, float* out) const;
    void tail_lite(const float* staged, int w, int h, float* head_out);
    void tail_full(const float* staged, int w, int h, uint64_t frame, float* head_out);
};

Network::Network(std::shared_ptr<const Weights> weights, swinup_precision precision)
    : impl_(std::make_unique<Impl>()) {
    // The CPU evaluates the `exact` formulas in both precision modes: `fast` allows hardware
    // approximations, and on the CPU the exact ones are no slower where it matters (GEMMs).
    (void)precision;
    if (!weights) throw std::invalid_argument("network: no weights");
    Impl& m = *impl_;
    m.weights = weights;
    m.config = weights->config;
    const Weights& w = *weights;
    const int* ch = m.config.channels;
    m.block_specs = m.config.blocks();
    for (const BlockSpec& spec : m.block_specs) m.blocks.push_back(SwinBlock::from_weights(w, spec));
    if (m.config.variant == Variant::lite) {
        m.embed = Linear::from_weights(w, "embed", 4 * kSlots, ch[1]);
        m.skip0 = Linear::from_weights(w, "skip0", kSlots, ch[0]);
    } else {
        m.embed0 = Linear::from_weights(w, "embed0", kSlots, ch[0]);
        m.embed1 = Linear::from_weights(w, "embed1", ch[0], ch[0]);
        m.merge0 = PatchMerge::from_weights(w, "merge0", ch[0], ch[1]);
    }
    if (m.config.masks) {
        m.mask_embed = Linear::from_weights(w, "mask_embed", mask_embed_inputs(m.config), mask_embed_outputs(m.config));
        m.mask_bias_nonzero = !mask_embed_absent_is_zero(w);
    }
    m.merge1 = PatchMerge::from_weights(w, "merge1", ch[1], ch[2]);
    m.merge2 = PatchMerge::from_weights(w, "merge2", ch[2], ch[3]);
    m.expand2 = PatchExpand::from_weights(w, "expand2", ch[3], ch[2]);
    m.expand1 = PatchExpand::from_weights(w, "expand1", ch[2], ch[1]);
    m.expand0 = PatchExpand::from_weights(w, "expand0", ch[1], ch[0]);
    m.head = Head::from_weights(w, ch[0]);
}

Network::~Network() = default;

void Network::set_layer_hook(LayerHook hook) { impl_->hook = std::move(hook); }

void Network::reserve(int width, int height) {
    Impl& m = *impl_;
    const ActivationSizes s(m.config, width, height);
    m.e0.reserve(s.e0);
    m.d0.reserve(s.d0);
    m.e1.reserve(s.e1);
    m.d1.reserve(s.d1);
    m.e2.reserve(s.e2);
    m.d2.reserve(s.d2);
    m.t3.reserve(s.t3);
}

size_t Network::heap_bytes() const {
    const Impl& m = *impl_;
    size_t n = 0;
    for (const SwinBlock& b : m.blocks) n += b.heap_bytes();
    for (const Linear* l : {&m.embed, &m.skip0, &m.embed0, &m.embed1, &m.mask_embed}) n += l->heap_bytes();
    for (const PatchMerge* l : {&m.merge0, &m.merge1, &m.merge2}) n += l->heap_bytes();
    for (const PatchExpand* l : {&m.expand2, &m.expand1, &m.expand0}) n += l->heap_bytes();
    n += m.head.heap_bytes();
    for (const std::vector<float>* a : {&m.e0, &m.d0, &m.e1, &m.d1, &m.e2, &m.d2, &m.t3, &m.hook_buffer})
        n += a->capacity() * sizeof(float);
    return n;
}

size_t Network::activation_bytes(const ModelConfig& config, int width, int height) {
    return ActivationSizes(config, width, height).total() * sizeof(float);
}

void Network::run(const float* staged, int width, int height, uint64_t frame_index, float* head,
                  const float* masks) {
    if (width <= 0 || height <= 0 || width % kPadMultiple != 0 || height % kPadMultiple != 0) {
        throw std::invalid_argument("network: grid " + std::to_string(width) + "x" +
                                    std::to_string(height) + " is not a positive multiple of " +
                                    std::to_string(kPadMultiple));
    }
    impl_->run(staged, masks, width, height, frame_index, head);
}

void Network::Impl::add_mask_embed(const float* mask_in, int count, float* out) const {
    const int c = mask_embed.out;
    if (mask_in != nullptr) {
        float* added = thread_scratch<ScratchMaskOut>(size_t(count) * c);
        linear(mask_embed, mask_in, count, added);
        for (size_t i = 0; i < size_t(count) * c; ++i) out[i] = out[i] + added[i];
    } else if (mask_bias_nonzero) {
        for (int t = 0; t < count; ++t)
            for (int o = 0; o < c; ++o) out[size_t(t) * c + o] = out[size_t(t) * c + o] + mask_embed.bias[size_t(o)];
    }
}

// lite: level-1 token = the 2x2 pixels' slots in quadrant order (64) -> embed (+ mask_embed of the
// 2x2 pixels' masks in quadrant order, 8) -> f16.
void Network::Impl::embed_lite(const float* staged, const float* masks, int w, int h) {
    const int w1 = w / 2, h1 = h / 2, c1 = config.channels[1];
    e1.resize(ActivationSizes(config, w, h).e1);
    for_each_block(w1 * h1, kTokensPerTask, [&](int begin, int end) {
        const int count = end - begin;
        float* in = thread_scratch<ScratchEmbedIn>(size_t(count) * 4 * kSlots);
        for (int i = 0; i < count; ++i) {
            const int t = begin + i;
            gather_quadrants(staged, w, kSlots, t % w1, t / w1, in + size_t(i) * 4 * kSlots);
        }
        float* out = e1.data() + size_t(begin) * c1;
        linear(embed, in, count, out);
        if (config.masks) {
            float* mask_in = nullptr;
            if (masks != nullptr) {
                mask_in = thread_scratch<ScratchMaskIn>(size_t(count) * 4 * kMaskInputs);
                for (int i = 0; i < count; ++i) {
                    const int t = begin + i;
                    gather_quadrants(masks, w, kMaskInputs, t % w1, t / w1, mask_in + size_t(i) * 4 * kMaskInputs);
                }
            }
            add_mask_embed(mask_in, count, out);
        }
        round_array_to_f16(out, size_t(count) * c1);
    });
    report("embed", e1.data(), w1, h1, c1);
}

// full: per pixel, embed0 (16 -> C0) (+ mask_embed of its masks, 2 -> C0) -> ReLU -> e4m3 ->
// embed1 (C0 -> C0) -> f16.
void Network::Impl::embed_full(const float* staged, const float* masks, int w, int h) {
    const int c0 = config.channels[0];
    e0.resize(ActivationSizes(config, w, h).e0);
    if (hook) hook_buffer.resize(size_t(w) * h * c0);
    for_each_block(w * h, kTokensPerTask, [&](int begin, int end) {
        const int count = end - begin;
        float* mid = thread_scratch<ScratchEmbedMid>(size_t(count) * c0);
        linear(embed0, staged + size_t(begin) * kSlots, count, mid);
        if (config.masks) add_mask_embed(masks != nullptr ? masks + size_t(begin) * kMaskInputs : nullptr, count, mid);
        relu_to_e4m3(mid, size_t(count) * c0);
        if (hook) std::memcpy(hook_buffer.data() + size_t(begin) * c0, mid, sizeof(float) * count * c0);
        float* out = e0.data() + size_t(begin) * c0;
        linear(embed1, mid, count, out);
        round_array_to_f16(out, size_t(count) * c0);
    });
    report("embed0", hook_buffer.data(), w, h, c0);
    report("embed1", e0.data(), w, h, c0);
}

// lite tail, per block of level-1 tokens: expand0 (C1 -> 4 x C0) + skip0(slots) -> f16 -> head.
void Network::Impl::tail_lite(const float* staged, int w, int h, float* head_out) {
    const int w1 = w / 2, h1 = h / 2, c0 = config.channels[0];
    if (hook) hook_buffer.resize(size_t(w) * h * c0);
    for_each_block(w1 * h1, kTokensPerTask, [&](int begin, int end) {
        const int count = end - begin;
        const int pixels = 4 * count;  // in (coarse token, quadrant) order
        float* expanded = thread_scratch<ScratchTailExpand>(size_t(pixels) * c0);
        patch_expand_tokens(expand0, d1.data(), begin, count, expanded);
        float* slots = thread_scratch<ScratchTailSlots>(size_t(pixels) * kSlots);
        for (int i = 0; i < count; ++i) {
            const int t = begin + i;
            gather_quadrants(staged, w, kSlots, t % w1, t / w1, slots + size_t(i) * 4 * kSlots);
        }
        float* skip = thread_scratch<ScratchTailSkip>(size_t(pixels) * c0);
        linear(skip0, slots, pixels, skip);
        add_round_f16(expanded, skip, size_t(pixels) * c0);  // expanded = f16(expand0 + skip0)
        float* out = thread_scratch<ScratchTailHead>(size_t(pixels) * kHeadOutputs);
        head_tokens(head, expanded, slots, pixels, out);
        for (int p = 0; p < pixels; ++p) {
            const int t = begin + p / 4;
            const TokenCoord f = quadrant_fine_token(t % w1, t / w1, p % 4);
            const size_t fine = size_t(f.y) * w + f.x;
            std::memcpy(head_out + fine * kHeadOutputs, out + size_t(p) * kHeadOutputs,
                        sizeof(float) * kHeadOutputs);
            if (hook) {
                std::memcpy(hook_buffer.data() + fine * c0, expanded + size_t(p) * c0,
                            sizeof(float) * c0);
            }
        }
    });
    report("expand0", hook_buffer.data(), w, h, c0);
    report("head", head_out, w, h, kHeadOutputs);
}

// full tail: expand0 + enc0 output -> dec0 block -> head per pixel.
void Network::Impl::tail_full(const float* staged, int w, int h, uint64_t frame, float* head_out) {
    const int c0 = config.channels[0];
    d0.resize(ActivationSizes(config, w, h).d0);
    patch_expand(expand0, d1.data(), w / 2, h / 2, e0.data(), d0.data());
    report("expand0", d0.data(), w, h, c0);
    run_block("dec0", d0.data(), w, h, frame);
    for_each_block(w * h, kTokensPerTask, [&](int begin, int end) {
        head_tokens(head, d0.data() + size_t(begin) * c0, staged + size_t(begin) * kSlots, end - begin,
                    head_out + size_t(begin) * kHeadOutputs);
    });
    report("head", head_out, w, h, kHeadOutputs);
}

void Network::Impl::run(const float* staged, const float* masks, int w, int h, uint64_t frame, float* head_out) {
    const int* ch = config.channels;
    const int w1 = w / 2, h1 = h / 2, w2 = w / 4, h2 = h / 4, w3 = w / 8, h3 = h / 8;
    const ActivationSizes sizes(config, w, h);
    if (config.variant == Variant::lite) {
        embed_lite(staged, masks, w, h);
    } else {
        embed_full(staged, masks, w, h);
        run_block("enc0", e0.data(), w, h, frame);
        e1.resize(sizes.e1);
        patch_merge(merge0, e0.data(), w, h, e1.data());
        report("merge0", e1.data(), w1, h1, ch[1]);
    }
    run_block("enc1", e1.data(), w1, h1, frame);

    e2.resize(sizes.e2);
    patch_merge(merge1, e1.data(), w1, h1, e2.data());
    report("merge1", e2.data(), w2, h2, ch[2]);
    run_block("enc2", e2.data(), w2, h2, frame);

    t3.resize(sizes.t3);
    patch_merge(merge2, e2.data(), w2, h2, t3.data());
    report("merge2", t3.data(), w3, h3, ch[3]);
    for (int i = 0; i < config.tube_blocks; ++i) run_block("tube" + std::to_string(i), t3.data(), w3, h3, frame);

    d2.resize(sizes.d2);
    patch_expand(expand2, t3.data(), w3, h3, e2.data(), d2.data());
    report("expand2", d2.data(), w2, h2, ch[2]);
    run_block("dec2", d2.data(), w2, h2, frame);

    d1.resize(sizes.d1);
    patch_expand(expand1, d2.data(), w2, h2, e1.data(), d1.data());
    report("expand1", d1.data(), w1, h1, ch[1]);
    run_block("dec1", d1.data(), w1, h1, frame);

    if (config.variant == Variant::lite) {
        tail_lite(staged, w, h, head_out);
    } else {
        tail_full(staged, w, h, frame, head_out);
    }
}

}  // namespace swinup::cpu
