// A 5x7 pixel font for labelling comparison pictures without a font library: upper-case letters
// (lower case is drawn as upper case), digits and a little punctuation; other characters draw as
// blanks.
#pragma once

#include <string>

#include "sequence/image.h"

namespace swinup::eval {

inline constexpr int kGlyphWidth = 5, kGlyphHeight = 7, kGlyphAdvance = 6;

// Width in pixels of `text` at `scale` (each font pixel drawn as scale x scale).
int text_width(const std::string& text, int scale);

// Draws `text` with its top-left corner at (x, y) in colour (r, g, b) into a 3+ channel image,
// clipped to the image.
void draw_text(Image& image, int x, int y, const std::string& text, int scale, float r, float g,
               float b);

}  // namespace swinup::eval
