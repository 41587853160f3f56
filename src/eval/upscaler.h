// The interface every evaluated method implements: spatial baselines, the TAAU and the network.
// A method sees one frame at a time, in order, as an engine would hand it over; temporal methods
// keep their own history between calls.
#pragma once

#include <memory>
#include <string>

#include "sequence/sequence.h"

namespace swinup::eval {

struct UpscaleInput {
    const SequenceInfo& info;  // sizes and conventions of the sequence
    const Frame& frame;        // colour, depth, MVs (render res), optional mv_display and masks
    int index = 0;             // frame number in the sequence
    float jitter_x = 0.0f;     // this frame's jitter, render pixels
    float jitter_y = 0.0f;
    float exposure = 1.0f;  // colour multiplier of this frame
    bool reset = false;     // camera cut: drop history
};

class Upscaler {
public:
    virtual ~Upscaler() = default;
    // The method's name in tables and on the command line ("bicubic", "taau", "swinup", ...).
    virtual std::string name() const = 0;
    // What runs behind the name, for the report (e.g. swinup's backend and weights); "" if nothing
    // to say.
    virtual std::string description() const { return ""; }
    // The display-resolution output of this frame: linear colour in the units of the input colour
    // (exposure not applied), 3 or 4 channels (the metrics read R, G, B).
    virtual Image upscale(const UpscaleInput& input) = 0;
};

}  // namespace swinup::eval
