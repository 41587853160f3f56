#include "vulkan/backend/network_vulkan.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "model/model_spec.h"
#include "numeric/e4m3.h"
#include "numeric/half.h"
#include "vulkan/layers/device_weights.h"
#include "vulkan/layers/gather_rows.h"
#include "vulkan/layers/gemm.h"
#include "vulkan/layers/head.h"
#include "vulkan/layers/layer_scratch.h"
#include "vulkan/layers/patch_expand.h"
#include "vulkan/layers/patch_merge.h"
#include "vulkan/layers/runtime_layer_recorder.h"
#include "vulkan/layers/swin_block.h"
#include "vulkan/runtime/device.h"
#include "vulkan/runtime/memory.h"
#include "vulkan/runtime/recorder.h"

namespace swinup::vulkan {

namespace {

BufferView whole(const Buffer& b) { return BufferView{b.handle(), 0, b.size()}; }

// How a layer's output is stored, for the snapshots.
enum class Stored { f16, e4m3, f32 };

size_t stored_bytes(Stored s, size_t values) {
    return s == Stored::f16 ? values * 2 : (s == Stored::e4m3 ? values : values * 4);
}

}  // namespace

struct VulkanNetwork::Impl {
    Device& device;
    ModelConfig config;
    bool exact;
    int max_width, max_height;

    // Weights (one buffer; the structs' views point into it).
    // The weights: read from weight_buffer (device-local), which gets them from weight_upload (host
    // visible, written at creation) by a copy recorded into the frames themselves, never by a
    // submit of its own: creation on the application's device must not touch the application's
    // queue. Every recorded evaluation carries the copy until the owner reports one completed
    // (weights_arrived): a frame recorded but never submitted must not leave later frames reading
    // memory nothing wrote. The upload buffer is kept for the network's life (the weights' size,
    // about 1.4 MB; counted in the device memory).
    Buffer weight_upload;
    Buffer weight_buffer;
    bool weights_in_place = false;
    std::vector<DeviceBlock> blocks;  // ModelConfig::blocks() order
    DeviceLinear embed, skip0, embed0, embed1;
    DeviceLinear mask_embed;  // weights format 5 (config.masks); K padded to 4 for full (2 inputs)
    DeviceNormLinear merge0, merge1, merge2, expand2, expand1, expand0;
    DeviceHead head;

    // Activations (f16 residual streams): e = encoder (kept as skips), d = decoder, t3 = the tube;
    // Scratch: layer_scratch.h; lite's skip0 outputs (f32) use `qkv`, dead after dec1.
    Buffer e0, d0, e1, d1, e2, d2, t3;
    Buffer normed, wide, qkv;
    LayerScratch scratch;

    // Snapshots (tests).
    struct Snapshot {
        std::string name;
        int w, h, c;
        Stored stored;
        size_t offset;  // bytes into snapshot_buffer
    };
    bool snapshots_on = false;
    LayerMarker marker;
    Recorder* recorder = nullptr;  // during record()
    std::vector<Snapshot> snapshots;
    Buffer snapshot_buffer;

    Impl(Device& d, const Weights& w, swinup_precision precision, int mw, int mh);
    void record(LayerRecorder& rec, BufferView staged, BufferView masks, int w, int h, uint64_t frame,
                BufferView head_out);
    void block(LayerRecorder& rec, const std::string& name, const Buffer& x, int w, int h, uint64_t frame);
    void snap(LayerRecorder& rec, const char* name, BufferView data, int w, int h, int c, Stored stored);
    void begin(const char* name) {
        current_layer = name;
        if (marker) marker(name, true, *recorder);
    }
    KernelMarker kernel_marker;
    std::string current_layer;
};

VulkanNetwork::Impl::Impl(Device& d, const Weights& weights, swinup_precision precision, int mw, int mh)
    : device(d), config(weights.config), exact(precision == SWINUP_PRECISION_EXACT), max_width(mw), max_height(mh) {
    if (mw <= 0 || mh <= 0 || mw % kPadMultiple != 0 || mh % kPadMultiple != 0) {
        throw std::invalid_argument("vulkan network: maximum grid " + std::to_string(mw) + "x" + std::to_string(mh) +
                                    " is not a positive multiple of " + std::to_string(kPadMultiple));
    }
    const int* ch = config.channels;
    const bool lite = config.variant == Variant::lite;

    WeightBlob blob;
    for (const BlockSpec& spec : config.blocks()) blocks.push_back(blob.add_block(weights, spec));
    auto norm_linear = [&](const std::string& name, int norm_c, int in, int out) {
        DeviceNormLinear n;
        n.gain = blob.add_f32(weights, name + ".norm.gain", norm_c);
        n.linear = blob.add_linear(weights, name + ".linear", in, out);
        return n;
    };
    if (lite) {
        embed = blob.add_linear(weights, "embed", 4 * kSlots, ch[1]);
        skip0 = blob.add_linear(weights, "skip0", kSlots, ch[0]);
    } else {
        embed0 = blob.add_linear(weights, "embed0", kSlots, ch[0]);
        embed1 = blob.add_linear(weights, "embed1", ch[0], ch[0]);
        merge0 = norm_linear("merge0", 4 * ch[0], 4 * ch[0], ch[1]);
    }
    if (config.masks) {
        const int in = mask_embed_inputs(config);
        mask_embed = blob.add_linear_padded(weights, "mask_embed", in, mask_embed_outputs(config), (in + 3) / 4 * 4);
    }
    merge1 = norm_linear("merge1", 4 * ch[1], 4 * ch[1], ch[2]);
    merge2 = norm_linear("merge2", 4 * ch[2], 4 * ch[2], ch[3]);
    expand2 = norm_linear("expand2", ch[3], ch[3], 4 * ch[2]);
    expand1 = norm_linear("expand1", ch[2], ch[2], 4 * ch[1]);
    expand0 = norm_linear("expand0", ch[1], ch[1], 4 * ch[0]);
    head.head = norm_linear("head", ch[0], ch[0], kHeadOutputs);
    head.has_mlp = config.head_mlp;
    if (head.has_mlp) {
        if (ch[0] + kSlots != kHeadMlpInputs)
            throw std::invalid_argument("vulkan network: the head MLP reads 32 channels and the 16 slots");
        head.fc1 = blob.add_linear(weights, "head_mlp.fc1", kHeadMlpInputs, kHeadMlpHidden);
        head.fc2 = blob.add_linear(weights, "head_mlp.fc2", kHeadMlpHidden, kHeadMlpHidden);
        head.fc3 = blob.add_linear(weights, "head_mlp.fc3", kHeadMlpHidden, kHeadMlpOutputs);
    }
    weight_upload = Buffer(device, blob.bytes().size(), MemoryUse::Upload);
    weight_upload.write(blob.bytes().data(), blob.bytes().size());
    weight_buffer = Buffer(device, blob.bytes().size(), MemoryUse::DeviceLocal);
    const VkBuffer wb = weight_buffer.handle();
    for (DeviceBlock& b : blocks) set_buffer(b, wb);
    for (DeviceLinear* l : {&embed, &skip0, &embed0, &embed1, &mask_embed}) set_buffer(*l, wb);
    for (DeviceNormLinear* n : {&merge0, &merge1, &merge2, &expand2, &expand1, &expand0, &head.head}) set_buffer(*n, wb);
    for (DeviceLinear* l : {&head.fc1, &head.fc2, &head.fc3}) set_buffer(*l, wb);

    // Activations and scratch for the largest grid.
    const size_t px = size_t(mw) * mh;
    const size_t tokens[4] = {px, px / 4, px / 16, px / 64};
    const int first_level = lite ? 1 : 0;
    size_t normed_bytes = px * (head.has_mlp ? kHeadMlpHidden : ch[0]);  // head rows (and the MLP's)
    size_t wide_bytes = head.has_mlp ? px * kHeadMlpHidden : 0;
    size_t qkv_bytes = 0;
    for (int l = first_level; l < 4; ++l) {
        normed_bytes = std::max(normed_bytes, tokens[l] * ch[l]);
        wide_bytes = std::max(wide_bytes, tokens[l] * 4 * ch[l]);
        qkv_bytes = std::max(qkv_bytes, tokens[l] * 3 * ch[l] * 2);
    }
    if (lite) {
        normed_bytes = std::max(normed_bytes, tokens[1] * 4 * kSlots);  // embed's input rows
        qkv_bytes = std::max(qkv_bytes, px * ch[0] * 4);                // skip0's f32 outputs
    } else {
        wide_bytes = std::max(wide_bytes, px * ch[0]);  // embed0's outputs
    }
    // mask_embed's f32 outputs, added to embed's / embed0's before their rounding, use `qkv` too
    // (no attention runs before the embedding's end).
    if (config.masks) qkv_bytes = std::max(qkv_bytes, (lite ? tokens[1] * ch[1] : px * ch[0]) * 4);
    normed = Buffer(device, normed_bytes, MemoryUse::DeviceLocal);
    wide = Buffer(device, wide_bytes, MemoryUse::DeviceLocal);
    qkv = Buffer(device, qkv_bytes, MemoryUse::DeviceLocal);
    scratch = {whole(normed), whole(wide), whole(qkv)};
    auto f16_grid = [&](int level) { return Buffer(device, tokens[level] * ch[level] * 2, MemoryUse::DeviceLocal); };
    if (!lite) e0 = f16_grid(0);
    d0 = f16_grid(0);
    e1 = f16_grid(1);
    d1 = f16_grid(1);
    e2 = f16_grid(2);
    d2 = f16_grid(2);
    t3 = f16_grid(3);
}

// Ends layer `name`: the marker's end, then (tests) the copy of its output.
void VulkanNetwork::Impl::snap(LayerRecorder& rec, const char* name, BufferView data, int w, int h, int c,
                               Stored stored) {
    if (marker) marker(name, false, *recorder);
    if (!snapshots_on) return;
    const size_t bytes = stored_bytes(stored, size_t(w) * h * c);
    const size_t offset = snapshots.empty() ? 0 : snapshots.back().offset +
        stored_bytes(snapshots.back().stored, size_t(snapshots.back().w) * snapshots.back().h * snapshots.back().c);
    snapshots.push_back({name, w, h, c, stored, offset});
    if (offset + bytes > snapshot_buffer.size()) throw std::logic_error("vulkan network: snapshot buffer too small");
    // A copy by the row-gather kernel (one uint per row): no transfer stage, only compute barriers.
    const int words = int(bytes / 4);
    record_gather_rows(rec, {data, whole(snapshot_buffer), words, 1, 1, 1, int(offset / 4), false, 0});
    rec.barrier();  // the next layer may overwrite `data` in place
}

void VulkanNetwork::Impl::block(LayerRecorder& rec, const std::string& name, const Buffer& x, int w, int h,
                                uint64_t frame) {
    for (size_t i = 0; i < blocks.size(); ++i) {
        if (blocks[i].spec.name != name) continue;
        const bool shifted = (uint64_t(i) + frame) % 2 == 1;
        begin(name.c_str());
        record_swin_block(rec, blocks[i], whole(x), w, h, shifted, scratch, exact);
        snap(rec, name.c_str(), whole(x), w, h, blocks[i].spec.channels, Stored::f16);
        return;
    }
    throw std::logic_error("vulkan network: no block named " + name);
}

void VulkanNetwork::Impl::record(LayerRecorder& rec, BufferView staged, BufferView masks, int w, int h,
                                 uint64_t frame, BufferView head_out) {
    const int* ch = config.channels;
    // Without masks mask_embed would add its bias alone, which is zero (context creation refuses
    // other weights on the GPU backends): the layer is left out, as the CPU leaves it out.
    const bool with_masks = config.masks && masks.buffer != VK_NULL_HANDLE;
    const int w1 = w / 2, h1 = h / 2, w2 = w / 4, h2 = h / 4, w3 = w / 8, h3 = h / 8;
    const bool lite = config.variant == Variant::lite;
    snapshots.clear();
    if (snapshots_on && !snapshot_buffer.valid()) {
        // Every layer's output at the largest grid, stored as the layer stores it (f32 at most 4x).
        size_t bytes = 0;
        const size_t px = size_t(max_width) * max_height;
        for (int l = 0; l < 4; ++l) bytes += (px >> (2 * l)) * ch[l] * 2 * 16;
        bytes += px * kHeadOutputs * 4 + px * ch[0] * 2;
        snapshot_buffer = Buffer(device, bytes, MemoryUse::Readback);
    }

    if (lite) {
        // embed: the 2x2 pixels' 16 slots in quadrant order (64 e4m3) -> linear -> f16.
        // With masks: + mask_embed of the 2x2 pixels' masks (8 e4m3 a token) in f32, then f16.
        begin("embed");
        record_gather_rows(rec, {staged, scratch.normed, w1 * h1 * 4, kSlots / 4, kSlots / 4, kSlots / 4, 0, true, w1});
        if (with_masks) {
            record_gemm(rec, gemm_call(mask_embed, masks, w1 * h1, mask_embed.in / 4, GemmEpilogue::store_f32,
                                       scratch.qkv, ch[1]),
                        exact);
        }
        rec.barrier();
        GemmCall embed_call = gemm_call(embed, scratch.normed, w1 * h1, kSlots, GemmEpilogue::store_f16, whole(e1), ch[1]);
        if (with_masks) {
            embed_call.epilogue = GemmEpilogue::add_f32_store_f16;
            embed_call.skip = scratch.qkv;
        }
        record_gemm(rec, embed_call, exact);
        rec.barrier();
        snap(rec, "embed", whole(e1), w1, h1, ch[1], Stored::f16);
    } else {
        // embed0 (16 -> C0) -> ReLU -> e4m3 -> embed1 (C0 -> C0) -> f16, per pixel.
        // With masks: + mask_embed of each pixel's masks (r, t, 0, 0) in f32 before the ReLU.
        begin("embed0");
        if (with_masks) {
            record_gemm(rec, gemm_call(mask_embed, masks, w * h, mask_embed.in / 4, GemmEpilogue::store_f32,
                                       scratch.qkv, ch[0]),
                        exact);
            rec.barrier();
        }
        GemmCall embed0_call = gemm_call(embed0, staged, w * h, kSlots / 4, GemmEpilogue::relu_e4m3, scratch.wide, ch[0]);
        if (with_masks) {
            embed0_call.epilogue = GemmEpilogue::add_f32_relu_e4m3;
            embed0_call.skip = scratch.qkv;
        }
        record_gemm(rec, embed0_call, exact);
        rec.barrier();
        snap(rec, "embed0", scratch.wide, w, h, ch[0], Stored::e4m3);
        begin("embed1");
        record_gemm(rec, gemm_call(embed1, scratch.wide, w * h, ch[0] / 4, GemmEpilogue::store_f16, whole(e0), ch[0]),
                    exact);
        rec.barrier();
        snap(rec, "embed1", whole(e0), w, h, ch[0], Stored::f16);
        block(rec, "enc0", e0, w, h, frame);
        begin("merge0");
        record_patch_merge(rec, merge0, whole(e0), w, h, whole(e1), scratch, exact);
        snap(rec, "merge0", whole(e1), w1, h1, ch[1], Stored::f16);
    }
    block(rec, "enc1", e1, w1, h1, frame);
    begin("merge1");
    record_patch_merge(rec, merge1, whole(e1), w1, h1, whole(e2), scratch, exact);
    snap(rec, "merge1", whole(e2), w2, h2, ch[2], Stored::f16);
    block(rec, "enc2", e2, w2, h2, frame);
    begin("merge2");
    record_patch_merge(rec, merge2, whole(e2), w2, h2, whole(t3), scratch, exact);
    snap(rec, "merge2", whole(t3), w3, h3, ch[3], Stored::f16);
    for (int i = 0; i < config.tube_blocks; ++i) block(rec, "tube" + std::to_string(i), t3, w3, h3, frame);
    begin("expand2");
    record_patch_expand(rec, expand2, whole(t3), w3, h3, whole(e2), false, whole(d2), scratch, exact);
    snap(rec, "expand2", whole(d2), w2, h2, ch[2], Stored::f16);
    block(rec, "dec2", d2, w2, h2, frame);
    begin("expand1");
    record_patch_expand(rec, expand1, whole(d2), w2, h2, whole(e1), false, whole(d1), scratch, exact);
    snap(rec, "expand1", whole(d1), w1, h1, ch[1], Stored::f16);
    block(rec, "dec1", d1, w1, h1, frame);

    begin("expand0");
    if (lite) {
        // expand0 + skip0(slots) -> f16 at level 0 (the CPU's fused tail, layer by layer).
        // expand0's GEMM reads skip0's outputs: a barrier between them (its norm, where it runs
        // as a kernel of its own, is after the barrier too).
        // The outputs go to `qkv`: no attention runs after dec1 in lite.
        record_gemm(rec, gemm_call(skip0, staged, w * h, kSlots / 4, GemmEpilogue::store_f32, scratch.qkv, ch[0]),
                    exact);
        rec.barrier();
        record_patch_expand(rec, expand0, whole(d1), w1, h1, scratch.qkv, true, whole(d0), scratch, exact);
    } else {
        record_patch_expand(rec, expand0, whole(d1), w1, h1, whole(e0), false, whole(d0), scratch, exact);
    }
    snap(rec, "expand0", whole(d0), w, h, ch[0], Stored::f16);
    if (!lite) block(rec, "dec0", d0, w, h, frame);
    begin("head");
    record_head(rec, head, whole(d0), staged, w * h, head_out, scratch, exact);
    snap(rec, "head", head_out, w, h, kHeadOutputs, Stored::f32);
}

VulkanNetwork::VulkanNetwork(Device& device, std::shared_ptr<const Weights> weights, swinup_precision precision,
                             int max_width, int max_height) {
    if (!weights) throw std::invalid_argument("vulkan network: no weights");
    impl_ = std::make_unique<Impl>(device, *weights, precision, max_width, max_height);
}

VulkanNetwork::~VulkanNetwork() = default;

void VulkanNetwork::weights_arrived() { impl_->weights_in_place = true; }

void VulkanNetwork::record(Recorder& recorder, BufferView staged, int width, int height, uint64_t frame_index,
                           BufferView head, BufferView masks) {
    if (width <= 0 || height <= 0 || width % kPadMultiple != 0 || height % kPadMultiple != 0 ||
        width > impl_->max_width || height > impl_->max_height) {
        throw std::invalid_argument("vulkan network: grid " + std::to_string(width) + "x" + std::to_string(height) +
                                    " is not a positive multiple of " + std::to_string(kPadMultiple) +
                                    " within the network's " + std::to_string(impl_->max_width) + "x" +
                                    std::to_string(impl_->max_height));
    }
    if (!impl_->weights_in_place) {
        // Ordered before the layers' reads, and after an earlier frame's reads, by the recorder's
        // barriers (a copy is a command like a dispatch).
        recorder.copy_buffer(impl_->weight_upload, 0, impl_->weight_buffer, 0, impl_->weight_buffer.size());
    }
    RuntimeLayerRecorder::DispatchHook hook;
    if (impl_->kernel_marker) {
        hook = [this](const char* kernel, Recorder& r) { impl_->kernel_marker(impl_->current_layer, kernel, r); };
    }
    RuntimeLayerRecorder rec(impl_->device, recorder, hook);
    impl_->recorder = &recorder;
    impl_->record(rec, staged, masks, width, height, frame_index, head);
    impl_->recorder = nullptr;
}

void VulkanNetwork::set_layer_snapshots(bool on) { impl_->snapshots_on = on; }

void VulkanNetwork::set_layer_marker(LayerMarker marker) { impl_->marker = std::move(marker); }

void VulkanNetwork::set_kernel_marker(KernelMarker marker) { impl_->kernel_marker = std::move(marker); }

std::vector<VulkanNetwork::LayerOutput> VulkanNetwork::layer_outputs() const {
    std::vector<LayerOutput> out;
    if (impl_->snapshots.empty()) return out;
    const auto& last = impl_->snapshots.back();
    std::vector<uint8_t> bytes(last.offset + stored_bytes(last.stored, size_t(last.w) * last.h * last.c));
    impl_->snapshot_buffer.read(bytes.data(), bytes.size());
    for (const auto& s : impl_->snapshots) {
        LayerOutput o{s.name, s.w, s.h, s.c, std::vector<float>(size_t(s.w) * s.h * s.c)};
        const uint8_t* p = bytes.data() + s.offset;
        for (size_t i = 0; i < o.values.size(); ++i) {
            switch (s.stored) {
                case Stored::f16: {
                    uint16_t bits;
                    std::memcpy(&bits, p + 2 * i, 2);
                    o.values[i] = f16_bits_to_f32(bits);
                    break;
                }
                case Stored::e4m3: o.values[i] = e4m3_to_f32(p[i]); break;
                case Stored::f32: std::memcpy(&o.values[i], p + 4 * i, 4); break;
            }
        }
        out.push_back(std::move(o));
    }
    return out;
}

}  // namespace swinup::vulkan
