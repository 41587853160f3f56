#include "cpu/layers/head.h"

#include "core/model_spec.h"
#include "cpu/layers/parallel.h"
#include "cpu/layers/rms_norm.h"
#include "cpu/layers/weights_access.h"

namespace swinup::cpu {

Head Head::from_weights(const Weights& weights, int channels) {
    Head h;
    h.gain = f32_vector(tensor_checked(weights, "head.norm.gain", DType::f32, {channels}));
    h.linear = Linear::from_weights(weights, "head.linear", channels, kHeadOutputs);
    return h;
}

namespace {
struct ScratchHeadNormed {};
}  // namespace

void head_tokens(const Head& head, const float* x, int count, float* y) {
    const int c = head.linear.in;
    float* normed = thread_scratch<ScratchHeadNormed>(size_t(count) * c);
    rms_norm_e4m3(x, count, c, head.gain.data(), normed);
    linear(head.linear, normed, count, y);
}

}  // namespace swinup::cpu
