// The network as an evaluated method: swinup run through its public C API (include/swinup/
// swinup.h), exactly as an engine would call it, on the CPU or GPU backend. A frame's masks
// (Frame::masks) go to the dispatch's reactive_mask and transparency_mask as R32F host planes,
// unless they are zero everywhere (the same frames as none, and a backend that does not read masks
// runs them).
#pragma once

#include <string>

#include "eval/upscaler.h"
#include "swinup/swinup.h"

namespace swinup::eval {

struct SwinupMethodOptions {
    swinup_backend backend = SWINUP_BACKEND_AUTO;
    swinup_variant variant = SWINUP_VARIANT_LITE;
    swinup_precision precision = SWINUP_PRECISION_EXACT;
    std::string weights_path;  // empty: the embedded default weights
};

// The context descriptor the method creates for a sequence (its sizes and conventions; with
// display-resolution motion vectors when use_mv_display). The weights path points into `options`.
// Written once so that a command can have the library check these values before the evaluation.
swinup_context_desc swinup_method_context_desc(const SwinupMethodOptions& options, const SequenceInfo& info,
                                               bool use_mv_display);

class SwinupUpscaler final : public Upscaler {
public:
    explicit SwinupUpscaler(const SwinupMethodOptions& options);
    ~SwinupUpscaler() override;
    SwinupUpscaler(const SwinupUpscaler&) = delete;
    SwinupUpscaler& operator=(const SwinupUpscaler&) = delete;

    std::string name() const override { return "swinup"; }
    // Creates the context on the first frame (it needs the sequence's sizes and conventions).
    // Throws std::runtime_error with the library's message when a call fails.
    Image upscale(const UpscaleInput& input) override;
    // What the context runs on ("CPU: ...", "CUDA: ..."), its weights; empty before the first
    // frame.
    std::string description() const override { return description_; }

private:
    SwinupMethodOptions options_;
    swinup_context* context_ = nullptr;
    std::string description_;
};

}  // namespace swinup::eval
