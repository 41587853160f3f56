// Building textures on the host: a linear RGBA image becomes a mip chain (2x2 box filter in
// linear light) appended to the scene's texel pool.
#pragma once

#include <vector>

#include "render/scene_view.h"
#include "sequence/image.h"

namespace swinup::render {

// sRGB-encoded value in [0,1] -> linear.
float srgb_to_linear(float v);

// Appends `rgba` (4 channels, linear) with its full mip chain; returns the texture's index.
int texture_add(std::vector<TextureInfo>& textures, std::vector<Rgba>& texels, const Image& rgba,
                int wrap_s = wrap_repeat, int wrap_t = wrap_repeat);

}  // namespace swinup::render
