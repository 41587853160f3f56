// Side-by-side crops for people to look at: the same region of each method's output and of the
// ground truth, enlarged (nearest neighbour, so pixels stay visible), labelled, written as PNG.
// Crops are chosen where the ground truth has the most detail (gradient energy), since flat
// regions show nothing about an upscaler.
#pragma once

#include <string>
#include <vector>

#include "eval/evaluation.h"

namespace swinup::eval {

struct CropRect {
    int x = 0, y = 0, size = 0;
};

// Up to `count` non-overlapping square crops of side `size` (clamped to the image) with the most
// gradient energy of the image's luma, best first.
std::vector<CropRect> pick_detail_crops(const Image& image, int size, int count);

// One row of labelled panels: each image's crop enlarged by `zoom`, its label above it.
Image compose_comparison(const std::vector<std::string>& labels,
                         const std::vector<const Image*>& images, const CropRect& crop, int zoom);

// Writes dir/compare_1.png .. compare_<count>.png from the picture frame kept by the evaluation:
// panels for `methods` (those the evaluation ran, in the given order; the others are skipped)
// followed by the ground truth. The crops are placed where the detail is, or, when `crops` is not
// empty, exactly there (one picture each; moved inside the frame). Returns the paths written.
// Creates dir.
std::vector<std::string> write_comparison_pictures(const std::string& dir,
                                                   const EvaluationResult& result,
                                                   const std::vector<std::string>& methods,
                                                   int crop_size, int zoom, int count,
                                                   const std::vector<CropRect>& crops = {});

}  // namespace swinup::eval
