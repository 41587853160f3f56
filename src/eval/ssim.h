// Structural similarity (Wang, Bovik, Sheikh, Simoncelli 2004) of display-encoded images.
//
// Choices (fixed, so that scores are comparable):
// - computed on luma Y' = 0.2126 R' + 0.7152 G' + 0.0722 B' of the sRGB-encoded values (Rec. 709
//   weights), as the original paper does for colour images, rather than per channel;
// - an 11x11 Gaussian window, sigma 1.5, normalised to sum 1; weighted (population) moments;
// - K1 = 0.01, K2 = 0.03, dynamic range L = 1: C1 = (K1 L)^2, C2 = (K2 L)^2;
// - only windows that lie fully inside the image ("valid"; no padding), and the mean of the SSIM
//   map over them is the score. Images must therefore be at least 11x11.
#pragma once

#include <array>

#include "sequence/image.h"

namespace swinup::eval {

inline constexpr int kSsimWindow = 11;
inline constexpr double kSsimSigma = 1.5;
inline constexpr double kSsimC1 = 0.01 * 0.01;
inline constexpr double kSsimC2 = 0.03 * 0.03;

// The normalised 1-D Gaussian taps (offsets -5..5); the 2-D window is their outer product.
std::array<double, kSsimWindow> ssim_gaussian_taps();

// Mean SSIM of two images of >= 3 channels (RGB used, as luma). Throws std::invalid_argument when
// sizes differ, an image has fewer than 3 channels, or it is smaller than 11x11.
double ssim(const Image& a, const Image& b);

}  // namespace swinup::eval
