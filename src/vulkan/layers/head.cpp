#include "vulkan/layers/head.h"

#include "model/model_spec.h"
#include "vulkan/layers/gather_rows.h"
#include "vulkan/layers/gemm.h"
#include "vulkan/layers/rms_norm.h"

namespace swinup::vulkan {

void record_head(LayerRecorder& rec, const DeviceHead& h, BufferView x, BufferView staged, int pixels, BufferView out,
                 const LayerScratch& s, bool exact) {
    const int c = h.head.linear.in;
    // With the MLP the norm writes the first C values of fc1's 48-value input rows.
    const int row_words = (h.has_mlp ? kHeadMlpInputs : c) / 4;
    record_rms_norm(rec, {x, h.head.gain, s.normed, pixels, c, false, 0, row_words}, exact);
    if (h.has_mlp) {
        record_gather_rows(rec, {staged, s.normed, pixels, kSlots / 4, kSlots / 4, row_words, c / 4, false, 0});
    }
    rec.barrier();
    record_gemm(rec, gemm_call(h.head.linear, s.normed, pixels, row_words, GemmEpilogue::store_f32, out, kHeadOutputs),
                exact);
    if (!h.has_mlp) {
        rec.barrier();
        return;
    }
    record_gemm(rec, gemm_call(h.fc1, s.normed, pixels, row_words, GemmEpilogue::relu_e4m3, s.wide, kHeadMlpHidden),
                exact);
    rec.barrier();
    // fc1's input is dead once fc1 has run: h2 goes to `normed`.
    record_gemm(rec, gemm_call(h.fc2, s.wide, pixels, kHeadMlpHidden / 4, GemmEpilogue::relu_e4m3, s.normed,
                               kHeadMlpHidden),
                exact);
    rec.barrier();
    // Added to head.linear's outputs 0-7 (its dispatch is behind the barriers above).
    record_gemm(rec, gemm_call(h.fc3, s.normed, pixels, kHeadMlpHidden / 4, GemmEpilogue::add_f32, out, kHeadOutputs),
                exact);
    rec.barrier();
}

}  // namespace swinup::vulkan
