#include "eval/comparison_pictures.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "eval/bitmap_font.h"

namespace swinup::eval {

std::vector<CropRect> pick_detail_crops(const Image& image, int size, int count) {
    std::vector<CropRect> crops;
    if (image.empty() || image.channels < 3 || count <= 0) return crops;
    size = std::clamp(size, 1, std::min(image.width, image.height));
    const int w = image.width, h = image.height;
    // Summed-area table of |grad luma| (forward differences).
    std::vector<double> table(size_t(w + 1) * (h + 1), 0.0);
    auto luma = [&](int x, int y) {
        const float* p = image.pixel(x, y);
        return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
    };
    for (int y = 0; y < h; ++y) {
        double row = 0.0;
        for (int x = 0; x < w; ++x) {
            const double l = luma(x, y);
            const double gx = x + 1 < w ? std::abs(luma(x + 1, y) - l) : 0.0;
            const double gy = y + 1 < h ? std::abs(luma(x, y + 1) - l) : 0.0;
            row += gx + gy;
            table[size_t(y + 1) * (w + 1) + x + 1] = table[size_t(y) * (w + 1) + x + 1] + row;
        }
    }
    auto energy = [&](int x, int y) {
        auto at = [&](int tx, int ty) { return table[size_t(ty) * (w + 1) + tx]; };
        return at(x + size, y + size) - at(x, y + size) - at(x + size, y) + at(x, y);
    };
    const int stride = std::max(1, size / 8);
    for (int k = 0; k < count; ++k) {
        double best = -1.0;
        CropRect pick;
        for (int y = 0; y + size <= h; y += stride) {
            for (int x = 0; x + size <= w; x += stride) {
                bool overlaps = false;
                for (const CropRect& c : crops) {
                    overlaps |=
                        x < c.x + c.size && c.x < x + size && y < c.y + c.size && c.y < y + size;
                }
                if (overlaps) continue;
                const double e = energy(x, y);
                if (e > best) {
                    best = e;
                    pick = {x, y, size};
                }
            }
        }
        if (best < 0.0) break;
        crops.push_back(pick);
    }
    return crops;
}

Image compose_comparison(const std::vector<std::string>& labels,
                         const std::vector<const Image*>& images, const CropRect& crop, int zoom) {
    if (labels.size() != images.size() || images.empty()) {
        throw std::invalid_argument("compose_comparison: one label per image, at least one image");
    }
    zoom = std::max(zoom, 1);
    const int gap = 6, label_scale = 2, label_height = kGlyphHeight * label_scale + 10;
    const int panel = crop.size * zoom;
    const int n = int(images.size());
    Image out(n * panel + (n + 1) * gap, label_height + panel + gap, 3, 0.12f);
    for (int i = 0; i < n; ++i) {
        const Image& src = *images[size_t(i)];
        const int left = gap + i * (panel + gap);
        const std::string& label = labels[size_t(i)];
        draw_text(out, left + (panel - text_width(label, label_scale)) / 2, 5, label, label_scale,
                  0.95f, 0.95f, 0.95f);
        for (int y = 0; y < panel; ++y) {
            const int sy = std::clamp(crop.y + y / zoom, 0, src.height - 1);
            for (int x = 0; x < panel; ++x) {
                const int sx = std::clamp(crop.x + x / zoom, 0, src.width - 1);
                const float* p = src.pixel(sx, sy);
                float* q = out.pixel(left + x, label_height + y);
                for (int c = 0; c < 3; ++c) q[c] = p[c];
            }
        }
    }
    return out;
}

std::vector<std::string> write_comparison_pictures(const std::string& dir,
                                                   const EvaluationResult& result,
                                                   const std::vector<std::string>& methods,
                                                   int crop_size, int zoom, int count,
                                                   const std::vector<CropRect>& given) {
    if (result.picture_truth.empty()) {
        throw std::invalid_argument(
            "write_comparison_pictures: the evaluation kept no picture frame");
    }
    std::vector<std::string> labels;
    std::vector<const Image*> images;
    for (const std::string& name : methods) {
        for (size_t i = 0; i < result.methods.size(); ++i) {
            if (result.methods[i].name == name && i < result.picture_outputs.size()) {
                labels.push_back(name);
                images.push_back(&result.picture_outputs[i]);
            }
        }
    }
    labels.push_back("ground truth");
    images.push_back(&result.picture_truth);

    std::filesystem::create_directories(dir);
    std::vector<std::string> written;
    std::vector<CropRect> crops;
    if (given.empty()) {
        crops = pick_detail_crops(result.picture_truth, crop_size, count);
    } else {
        const Image& t = result.picture_truth;
        for (CropRect c : given) {
            c.size = std::clamp(c.size, 1, std::min(t.width, t.height));
            c.x = std::clamp(c.x, 0, t.width - c.size);
            c.y = std::clamp(c.y, 0, t.height - c.size);
            crops.push_back(c);
        }
    }
    for (size_t k = 0; k < crops.size(); ++k) {
        const std::string path =
            (std::filesystem::path(dir) / ("compare_" + std::to_string(k + 1) + ".png")).string();
        // The images are display-encoded already: write the values as they are.
        png_write(path, compose_comparison(labels, images, crops[k], zoom), false);
        written.push_back(path);
    }
    return written;
}

}  // namespace swinup::eval
