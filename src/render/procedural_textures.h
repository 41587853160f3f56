// Textures the built-in scenes generate (host), each chosen for something upscalers get wrong:
// fine periodic patterns near the Nyquist rate (moire), text, a chain-link alpha mask.
// All images are linear RGBA (4 channels).
#pragma once

#include <string>
#include <vector>

#include "sequence/image.h"

namespace swinup::render {

// size x size texels, checks of `cell` texels, two linear colours.
Image texture_checker(int size, int cell, const float a[3], const float b[3]);
// Fine stripes with a slowly changing period (a chirp) plus concentric rings: every spatial
// frequency up to the texel Nyquist rate appears somewhere.
Image texture_chirp(int size);
// Chain-link fence: a diamond mesh of wire `wire_texels` wide; alpha 1 on the wire, 0 elsewhere.
Image texture_chain_link(int size, int diamonds, float wire_texels);
// Lines of dark text on a light panel, rendered with stb_easy_font at `scale` texels per font
// unit. The image is sized to fit the text.
Image texture_text(const std::vector<std::string>& lines, int scale, const float ink[3], const float paper[3]);
// Bricks with mortar and per-brick colour variation.
Image texture_bricks(int size, unsigned seed);
// A particle sprite: white, alpha `peak` (1 - r^2)^2 at distance r from the centre (r = 1 at the
// edge of the square's inscribed circle), 0 beyond.
Image texture_soft_disc(int size, float peak);
// Smooth value noise between two colours (ground, asphalt).
Image texture_noise(int size, const float a[3], const float b[3], unsigned seed);

}  // namespace swinup::render
