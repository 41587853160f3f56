#include "render/texture_build.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace swinup::render {

float srgb_to_linear(float v) {
    return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f);
}

int texture_add(std::vector<TextureInfo>& textures, std::vector<Rgba>& texels, const Image& rgba,
                int wrap_s, int wrap_t) {
    if (rgba.channels != 4 || rgba.width <= 0 || rgba.height <= 0) {
        throw std::invalid_argument("texture_add: need a non-empty 4-channel image");
    }
    TextureInfo info;
    info.width = rgba.width;
    info.height = rgba.height;
    info.wrap_s = wrap_s;
    info.wrap_t = wrap_t;

    std::vector<Rgba> level(static_cast<size_t>(rgba.width) * rgba.height);
    for (size_t i = 0; i < level.size(); ++i) {
        level[i] = {rgba.data[4 * i], rgba.data[4 * i + 1], rgba.data[4 * i + 2], rgba.data[4 * i + 3]};
    }
    int w = rgba.width, h = rgba.height;
    for (int l = 0; l < max_texture_levels; ++l) {
        info.level_offset[l] = static_cast<int64_t>(texels.size());
        info.level_width[l] = w;
        info.level_height[l] = h;
        info.levels = l + 1;
        texels.insert(texels.end(), level.begin(), level.end());
        if (w == 1 && h == 1) break;
        // Next level: average of each 2x2 block (a lone last row/column averages with itself).
        const int nw = std::max(1, w / 2), nh = std::max(1, h / 2);
        std::vector<Rgba> next(static_cast<size_t>(nw) * nh);
        for (int y = 0; y < nh; ++y) {
            for (int x = 0; x < nw; ++x) {
                Rgba sum{0, 0, 0, 0};
                for (int dy = 0; dy < 2; ++dy) {
                    for (int dx = 0; dx < 2; ++dx) {
                        const int sx = std::min(2 * x + dx, w - 1), sy = std::min(2 * y + dy, h - 1);
                        const Rgba& t = level[static_cast<size_t>(sy) * w + sx];
                        sum.r += t.r; sum.g += t.g; sum.b += t.b; sum.a += t.a;
                    }
                }
                next[static_cast<size_t>(y) * nw + x] = {sum.r * 0.25f, sum.g * 0.25f, sum.b * 0.25f, sum.a * 0.25f};
            }
        }
        level.swap(next);
        w = nw;
        h = nh;
    }
    textures.push_back(info);
    return static_cast<int>(textures.size()) - 1;
}

}  // namespace swinup::render
