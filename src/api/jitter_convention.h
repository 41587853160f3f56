// swinup_dispatch_desc.jitter_convention (swinup.h): the engine's jitter turned into swinup's own
// convention, the offset of the frame's sample from the pixel centre, once, where a dispatch
// descriptor has been read and validated. Everything after (staging, the motion vectors' jitter
// cancellation, the warnings, the sign check) then sees one convention.
//
// FSR 2/3 and DLSS report the amount the projection moved the image: FSR 2 applies its
// jitterOffset as +2 jx / w in NDC x and -2 jy / h in NDC y (NDC y up), and its upsampler puts
// the sample of pixel i at i + 0.5 - jitter (ffx_fsr2_upsample.h: fSrcUnjitteredPos =
// iSrcInputPos + 0.5 - Jitter()); DLSS's InJitterOffsetX/Y take the same numbers (engines pass one
// value to both). swinup's sample lies at centre + jitter, so their jitter is swinup's negated.
#pragma once

#include "api/raw_enum.h"
#include "swinup/swinup.h"

namespace swinup {

// *d validated (its jitter_convention one of the enum's values): jitter_x / jitter_y become sample
// offsets and jitter_convention SWINUP_JITTER_SAMPLE_OFFSET. The negation is exact (0 - x, so a zero
// jitter stays +0), and keeps [-0.5, 0.5].
inline void to_sample_offset_jitter(swinup_dispatch_desc* d) {
    if (raw_enum(d->jitter_convention) == SWINUP_JITTER_FSR_DLSS) {
        d->jitter_x = 0.0f - d->jitter_x;
        d->jitter_y = 0.0f - d->jitter_y;
    }
    d->jitter_convention = SWINUP_JITTER_SAMPLE_OFFSET;
}

}  // namespace swinup
