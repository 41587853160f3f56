// A sequence frame's masks as swinup_dispatch takes them. Frame::masks interleaves (reactive,
// transparency) per render pixel; the API takes one plane per mask, so they are split into two
// R32F host planes. Masks of zero everywhere are not passed: the API gives the same bytes for
// them as for none, and a sequence without masked content then also runs where masks are not
// read. Used by `swinup upscale` and the evaluation's swinup method alike.
#pragma once

#include <cstdint>
#include <vector>

#include "api/resource_desc.h"
#include "sequence/image.h"

namespace swinup {

struct DispatchMasks {
    std::vector<float> reactive, transparency;

    // Fills d's reactive_mask and transparency_mask from `masks` (width x height x 2) and returns
    // true, or leaves them empty and returns false when `masks` is empty or zero everywhere. The
    // planes stay owned here: *this must outlive the dispatch.
    bool attach(const Image& masks, swinup_dispatch_desc& d) {
        bool any = false;
        for (const float v : masks.data) any = any || v != 0.0f;
        if (!any) return false;
        const size_t n = size_t(masks.width) * size_t(masks.height);
        reactive.resize(n);
        transparency.resize(n);
        for (size_t i = 0; i < n; ++i) {
            reactive[i] = masks.data[i * 2];
            transparency[i] = masks.data[i * 2 + 1];
        }
        const auto w = uint32_t(masks.width), h = uint32_t(masks.height);
        d.reactive_mask = input_resource(reactive.data(), SWINUP_FORMAT_R32F, w, h);
        d.transparency_mask = input_resource(transparency.data(), SWINUP_FORMAT_R32F, w, h);
        return true;
    }
};

}  // namespace swinup
