#include "render/procedural_textures.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wshadow"
#include <stb/stb_easy_font.h>
#pragma GCC diagnostic pop

namespace swinup::render {

namespace {

constexpr float pi = 3.14159265358979f;

void set(Image& img, int x, int y, const float c[3], float alpha = 1.0f) {
    float* p = img.pixel(x, y);
    p[0] = c[0];
    p[1] = c[1];
    p[2] = c[2];
    p[3] = alpha;
}

uint32_t hash2(uint32_t x, uint32_t y, uint32_t seed) {
    uint32_t h = x * 0x8da6b343u ^ y * 0xd8163841u ^ seed * 0xcb1ab31fu;
    h ^= h >> 13;
    h *= 0x85ebca6bu;
    h ^= h >> 16;
    return h;
}
float unit(uint32_t h) { return static_cast<float>(h & 0xffffffu) / 16777215.0f; }

}  // namespace

Image texture_checker(int size, int cell, const float a[3], const float b[3]) {
    Image img(size, size, 4);
    for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) set(img, x, y, ((x / cell + y / cell) % 2) ? a : b);
    }
    return img;
}

Image texture_chirp(int size) {
    Image img(size, size, 4);
    const float s = static_cast<float>(size);
    for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) {
            const float fx = static_cast<float>(x) / s, fy = static_cast<float>(y) / s;
            // Upper half: vertical stripes whose period falls from 16 to 2 texels (Nyquist).
            // Lower half: concentric rings around the centre, frequency growing with radius.
            float v;
            if (fy < 0.5f) {
                const float phase = 2.0f * pi * s * (fx / 16.0f + fx * fx * (0.5f - 1.0f / 16.0f) * 0.5f);
                v = 0.5f + 0.5f * std::cos(phase);
            } else {
                const float dx = fx - 0.5f, dy = (fy - 0.75f) * 2.0f;
                const float r2 = dx * dx + dy * dy;
                v = 0.5f + 0.5f * std::cos(2.0f * pi * s * r2 * 0.9f);
            }
            const float c[3] = {0.05f + 0.85f * v, 0.05f + 0.8f * v, 0.06f + 0.7f * v};
            set(img, x, y, c);
        }
    }
    return img;
}

Image texture_chain_link(int size, int diamonds, float wire_texels) {
    Image img(size, size, 4);
    const float period = static_cast<float>(size) / static_cast<float>(diamonds);
    const float wire[3] = {0.55f, 0.57f, 0.6f};
    for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) {
            // Two families of diagonal wires: distance to the nearest line x + y = k p and x - y = k p.
            const float u = static_cast<float>(x) + 0.5f, v = static_cast<float>(y) + 0.5f;
            auto dist = [&](float t) {
                const float m = std::fmod(t, period);
                return std::min(m, period - m) / std::sqrt(2.0f);
            };
            const float d = std::min(dist(u + v), dist(u - v + 8.0f * period));
            const float coverage = std::clamp(wire_texels * 0.5f + 0.5f - d, 0.0f, 1.0f);
            set(img, x, y, wire, coverage);
        }
    }
    return img;
}

Image texture_text(const std::vector<std::string>& lines, int scale, const float ink[3], const float paper[3]) {
    // stb_easy_font: 7 units between lines, characters about 6 units wide.
    int width_units = 1;
    for (const auto& line : lines) {
        std::string copy = line;
        width_units = std::max(width_units, stb_easy_font_width(copy.data()));
    }
    const int margin = 2 * scale;
    const int w = width_units * scale + 2 * margin;
    const int h = static_cast<int>(lines.size()) * 10 * scale + 2 * margin;
    Image img(w, h, 4);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) set(img, x, y, paper);
    }
    std::vector<char> buffer(1 << 20);
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string copy = lines[i];
        const int quads = stb_easy_font_print(0.0f, static_cast<float>(i) * 10.0f, copy.data(), nullptr,
                                              buffer.data(), static_cast<int>(buffer.size()));
        const float* v = reinterpret_cast<const float*>(buffer.data());
        for (int q = 0; q < quads; ++q) {
            // Each quad: 4 vertices of (x, y, z, rgba8) = 4 floats; corners 0 and 2 are opposite.
            const float* a = v + q * 16;
            const float* c = a + 8;
            const int x0 = margin + static_cast<int>(std::lround(std::min(a[0], c[0]) * static_cast<float>(scale)));
            const int x1 = margin + static_cast<int>(std::lround(std::max(a[0], c[0]) * static_cast<float>(scale)));
            const int y0 = margin + static_cast<int>(std::lround(std::min(a[1], c[1]) * static_cast<float>(scale)));
            const int y1 = margin + static_cast<int>(std::lround(std::max(a[1], c[1]) * static_cast<float>(scale)));
            for (int y = std::max(0, y0); y < std::min(h, y1); ++y) {
                for (int x = std::max(0, x0); x < std::min(w, x1); ++x) set(img, x, y, ink);
            }
        }
    }
    return img;
}

Image texture_bricks(int size, unsigned seed) {
    Image img(size, size, 4);
    const int rows = 8, cols = 4;
    const float bh = static_cast<float>(size) / rows, bw = static_cast<float>(size) / cols;
    const float mortar[3] = {0.55f, 0.53f, 0.5f};
    for (int y = 0; y < size; ++y) {
        const int row = static_cast<int>(static_cast<float>(y) / bh);
        const float offset = (row % 2) ? bw * 0.5f : 0.0f;
        for (int x = 0; x < size; ++x) {
            const float fx = std::fmod(static_cast<float>(x) + offset, static_cast<float>(size));
            const int col = static_cast<int>(fx / bw);
            const float in_x = fx - static_cast<float>(col) * bw, in_y = static_cast<float>(y) - static_cast<float>(row) * bh;
            const float gap = static_cast<float>(size) / 128.0f;
            if (in_x < gap || in_y < gap) {
                set(img, x, y, mortar);
                continue;
            }
            const float k = unit(hash2(static_cast<uint32_t>(col), static_cast<uint32_t>(row), seed));
            const float grain = 0.9f + 0.2f * unit(hash2(static_cast<uint32_t>(x), static_cast<uint32_t>(y), seed + 1));
            const float c[3] = {(0.35f + 0.25f * k) * grain, (0.12f + 0.08f * k) * grain, (0.07f + 0.05f * k) * grain};
            set(img, x, y, c);
        }
    }
    return img;
}

Image texture_noise(int size, const float a[3], const float b[3], unsigned seed) {
    Image img(size, size, 4);
    auto value = [&](float x, float y, int cell) {
        const int n = size / cell;
        const float gx = x / static_cast<float>(cell), gy = y / static_cast<float>(cell);
        const int x0 = static_cast<int>(std::floor(gx)), y0 = static_cast<int>(std::floor(gy));
        const float fx = gx - static_cast<float>(x0), fy = gy - static_cast<float>(y0);
        auto corner = [&](int cx, int cy) {
            return unit(hash2(static_cast<uint32_t>((cx % n + n) % n), static_cast<uint32_t>((cy % n + n) % n),
                              seed + static_cast<unsigned>(cell)));
        };
        const float sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy);
        const float top = corner(x0, y0) + (corner(x0 + 1, y0) - corner(x0, y0)) * sx;
        const float bottom = corner(x0, y0 + 1) + (corner(x0 + 1, y0 + 1) - corner(x0, y0 + 1)) * sx;
        return top + (bottom - top) * sy;
    };
    for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) {
            const float fx = static_cast<float>(x), fy = static_cast<float>(y);
            const float t = 0.5f * value(fx, fy, size / 8) + 0.3f * value(fx, fy, size / 32) + 0.2f * value(fx, fy, 2);
            const float c[3] = {a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t};
            set(img, x, y, c);
        }
    }
    return img;
}

Image texture_soft_disc(int size, float peak) {
    Image img(size, size, 4);
    const float white[3] = {1.0f, 1.0f, 1.0f};
    for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) {
            const float u = 2.0f * (static_cast<float>(x) + 0.5f) / static_cast<float>(size) - 1.0f;
            const float v = 2.0f * (static_cast<float>(y) + 0.5f) / static_cast<float>(size) - 1.0f;
            const float falloff = std::max(1.0f - (u * u + v * v), 0.0f);
            set(img, x, y, white, peak * falloff * falloff);
        }
    }
    return img;
}

}  // namespace swinup::render
