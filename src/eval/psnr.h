// Peak signal-to-noise ratio of display-encoded images (display_encode.h), peak value 1.
#pragma once

#include "sequence/image.h"

namespace swinup::eval {

// Mean squared difference over all pixels and the first 3 channels (R, G, B).
// Throws std::invalid_argument when sizes differ or an image has fewer than 3 channels.
double mean_squared_error(const Image& a, const Image& b);

// 10 log10(1 / mse) in dB; +infinity when mse == 0 (identical images).
double psnr_from_mse(double mse);

// psnr_from_mse(mean_squared_error(a, b)).
double psnr(const Image& a, const Image& b);

}  // namespace swinup::eval
