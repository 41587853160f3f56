// RMSNorm followed by the e4m3 encoding of the next GEMM's input (docs/model-spec.md):
// y[c] = e4m3((x[c] * (1 / sqrt(mean(x^2) + 2^-13))) * gain[c]), where mean(x^2) is the f32 sum of
// the squares in channel order divided by C, and 1 / sqrt(.) an IEEE sqrt then an IEEE division.
#pragma once

namespace swinup::cpu {

// x: rows x channels (row-major), gain: channels, y: rows x channels e4m3 values. y may be x.
void rms_norm_e4m3(const float* x, int rows, int channels, const float* gain, float* y);

// The per-row factor 1 / sqrt(mean(x^2) + 2^-13) of one row (the reference for tests and kernels).
float rms_norm_factor(const float* x, int channels);

}  // namespace swinup::cpu
