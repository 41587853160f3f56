// The evaluation loop, the method registry, the report formats and the comparison pictures.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <nlohmann/json.hpp>

#include "eval/bitmap_font.h"
#include "eval/comparison_pictures.h"
#include "eval/evaluation.h"
#include "eval/flip.h"
#include "eval/report.h"
#include "sequence_fixture.h"
#include "test_dir.h"
#include "text_file.h"

using swinup::Frame;
using swinup::Image;
using swinup::SequenceInfo;
namespace ev = swinup::eval;

namespace {

// A still 16x16 -> 32x32 sequence whose render samples are exact point samples of the truth.
ev::SequenceSource still_sequence(int frames, bool with_truth) {
    SequenceInfo info;
    info.render_width = info.render_height = 16;
    info.display_width = info.display_height = 32;
    info.frame_count = frames;
    info.has_ground_truth = with_truth;
    std::vector<Frame> list;
    auto truth_at = [](int x, int y, int c) {
        return 0.2f + 0.6f * float(((x / 3) + (y / 2) + c) % 2);
    };
    for (int i = 0; i < frames; ++i) {
        const float jx = float((i * 5) % 8) / 8.0f - 0.5f + 1.0f / 16.0f;
        const float jy = float((i * 3) % 8) / 8.0f - 0.5f + 1.0f / 16.0f;
        info.jitter_x.push_back(jx);
        info.jitter_y.push_back(jy);
        info.exposure.push_back(1.0f);
        info.reset.push_back(0);
        Frame f = swinup::test::blank_frame(16, 16);
        for (int y = 0; y < 16; ++y)
            for (int x = 0; x < 16; ++x)
                for (int c = 0; c < 3; ++c)
                    f.color.at(x, y, c) = truth_at(int((float(x) + 0.5f + jx) * 2.0f),
                                                   int((float(y) + 0.5f + jy) * 2.0f), c);
        f.gt = Image(32, 32, 4, 1.0f);
        for (int y = 0; y < 32; ++y)
            for (int x = 0; x < 32; ++x)
                for (int c = 0; c < 3; ++c) f.gt.at(x, y, c) = truth_at(x, y, c);
        list.push_back(std::move(f));
    }
    return ev::sequence_source_from_frames(info, std::move(list), "test sequence");
}

// still_sequence(frames, true) changed: described by `info` (its own info with the caller's
// changes), each frame passed through `edit`.
ev::SequenceSource edited_still_sequence(int frames, const std::function<void(SequenceInfo&)>& edit_info,
                                         const std::function<void(Frame&)>& edit, const std::string& description) {
    const ev::SequenceSource still = still_sequence(frames, true);
    SequenceInfo info = still.info;
    edit_info(info);
    std::vector<Frame> list;
    for (int i = 0; i < frames; ++i) {
        Frame f = still.read_frame(i);
        edit(f);
        list.push_back(std::move(f));
    }
    return ev::sequence_source_from_frames(info, std::move(list), description);
}

// The same sequence as HDR linear colour, every value multiplied by scale.
ev::SequenceSource scaled_hdr_sequence(int frames, float scale) {
    return edited_still_sequence(
        frames, [](SequenceInfo& info) { info.hdr = true; },
        [scale](Frame& f) {
            for (float& v : f.color.data) v *= scale;
            for (int p = 0; p < f.gt.width * f.gt.height; ++p)
                for (int c = 0; c < 3; ++c) f.gt.data[size_t(p) * 4 + size_t(c)] *= scale;
        },
        "hdr test sequence");
}

}  // namespace

// An LDR sequence's FLIP is LDR-FLIP of the display-encoded frames (the pictures are those), each
// frame scored and the scored ones averaged.
TEST(EvalEvaluation, FlipScoresEveryFrameOfEveryMethod) {
    ev::EvaluationOptions options;
    options.methods = {"nearest", "taau"};
    options.skip_frames = 1;
    const ev::EvaluationResult r = ev::evaluate_sequence(still_sequence(5, true), options);
    ASSERT_EQ(r.picture_frame, 4);
    for (size_t m = 0; m < r.methods.size(); ++m) {
        const ev::MethodScores& s = r.methods[m];
        ASSERT_EQ(s.frame_flip.size(), 5u);
        EXPECT_EQ(s.frame_flip[4],
                  ev::mean_flip(ev::ldr_flip_error_map(r.picture_truth, r.picture_outputs[m])));
        EXPECT_NEAR(s.flip, (s.frame_flip[1] + s.frame_flip[2] + s.frame_flip[3] + s.frame_flip[4]) / 4.0,
                    1e-12);
        EXPECT_GT(s.flip, 0.0);
        EXPECT_LT(s.flip, 1.0);
    }
    // The accumulating method is closer to the truth of a still scene than nearest, here too.
    EXPECT_LT(r.methods[1].flip, r.methods[0].flip);
}

// An HDR sequence's FLIP is HDR-FLIP of the linear frames: it does not change when all the colour
// is twice as bright (its exposures follow the truth), which the display encoding's x / (1 + x)
// would.
TEST(EvalEvaluation, HdrFlipScoresTheLinearFrames) {
    ev::EvaluationOptions options;
    options.methods = {"nearest"};
    const ev::EvaluationResult a = ev::evaluate_sequence(scaled_hdr_sequence(3, 3.0f), options);
    const ev::EvaluationResult b = ev::evaluate_sequence(scaled_hdr_sequence(3, 6.0f), options);
    EXPECT_NEAR(a.methods[0].flip, b.methods[0].flip, 1e-6);
    EXPECT_GT(a.methods[0].flip, 0.0);
    EXPECT_GT(std::abs(a.methods[0].psnr_db - b.methods[0].psnr_db), 0.1);
    const double ldr_flip_of_encoded =
        ev::mean_flip(ev::ldr_flip_error_map(a.picture_truth, a.picture_outputs[0]));
    EXPECT_GT(std::abs(a.methods[0].frame_flip[2] - ldr_flip_of_encoded), 1e-3);
    EXPECT_NE(ev::format_results_table(a).find("HDR-FLIP"), std::string::npos);
}

TEST(EvalEvaluation, FlipCanBeLeftOut) {
    ev::EvaluationOptions options;
    options.methods = {"nearest"};
    options.flip = false;
    const ev::EvaluationResult r = ev::evaluate_sequence(still_sequence(3, true), options);
    EXPECT_TRUE(std::isnan(r.methods[0].flip));
    EXPECT_TRUE(r.methods[0].frame_flip.empty());
    EXPECT_NE(ev::format_results_table(r).find("n/a"), std::string::npos);
    EXPECT_TRUE(nlohmann::json::parse(ev::results_json(r))["methods"][0]["flip"].is_null());
}

TEST(EvalEvaluation, ScoresEveryMethodOnEveryFrame) {
    const auto source = still_sequence(8, true);
    ev::EvaluationOptions options;
    options.methods = {"nearest", "bilinear", "taau"};
    int progress_calls = 0;
    options.progress = [&](int done, int total) {
        ++progress_calls;
        EXPECT_EQ(total, 8);
        EXPECT_EQ(done, progress_calls);
    };
    const ev::EvaluationResult r = ev::evaluate_sequence(source, options);
    EXPECT_EQ(progress_calls, 8);
    ASSERT_EQ(r.methods.size(), 3u);
    EXPECT_EQ(r.methods[2].name, "taau");
    EXPECT_EQ(r.scored_frames, 8);
    EXPECT_DOUBLE_EQ(r.stable_fraction, 1.0);  // still, no disocclusion
    for (const auto& m : r.methods) {
        EXPECT_EQ(m.frame_psnr_db.size(), 8u);
        EXPECT_EQ(m.frame_temporal_error.size(), 8u);
        EXPECT_TRUE(std::isfinite(m.psnr_db));
        EXPECT_GT(m.ssim, 0.0);
        EXPECT_LE(m.ssim, 1.0);
        // The pooled PSNR lies between the best and the worst frame.
        double lo = 1e9, hi = -1e9;
        for (double v : m.frame_psnr_db) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        EXPECT_GE(m.psnr_db, lo - 1e-9);
        EXPECT_LE(m.psnr_db, hi + 1e-9);
    }
    // The accumulating method beats the spatial ones on a still scene, and flickers less.
    EXPECT_GT(r.methods[2].psnr_db, r.methods[1].psnr_db);
    EXPECT_LT(r.methods[2].temporal_error, r.methods[0].temporal_error);
    // Pictures of the last frame were kept for every method.
    EXPECT_EQ(r.picture_frame, 7);
    EXPECT_EQ(r.picture_outputs.size(), 3u);
    EXPECT_EQ(r.picture_truth.width, 32);
}

TEST(EvalEvaluation, SkippedFramesAreLeftOutOfTheScores) {
    const auto source = still_sequence(6, true);
    ev::EvaluationOptions options;
    options.methods = {"nearest"};
    options.skip_frames = 4;
    const ev::EvaluationResult r = ev::evaluate_sequence(source, options);
    const auto& f = r.methods[0].frame_psnr_db;
    // Pooled over frames 4 and 5 only: 10 log10(1 / mean(MSE_4, MSE_5)).
    const double mse = 0.5 * (std::pow(10.0, -f[4] / 10.0) + std::pow(10.0, -f[5] / 10.0));
    EXPECT_NEAR(r.methods[0].psnr_db, -10.0 * std::log10(mse), 1e-9);
    EXPECT_EQ(r.scored_frames, 2);
    EXPECT_GT(r.methods[0].temporal_error, 0.0);  // the pair (4, 5) is scored
}

// With one scored frame there is no frame pair: the temporal error is not measured (n/a in the
// table, null in JSON), not a perfect 0.
TEST(EvalEvaluation, OneScoredFrameHasNoTemporalError) {
    ev::EvaluationOptions options;
    options.methods = {"nearest"};
    options.skip_frames = 5;
    const ev::EvaluationResult r = ev::evaluate_sequence(still_sequence(6, true), options);
    EXPECT_TRUE(std::isnan(r.methods[0].temporal_error));
    EXPECT_TRUE(std::isfinite(r.methods[0].psnr_db));
    EXPECT_NE(ev::format_results_table(r).find("n/a"), std::string::npos);
    EXPECT_TRUE(nlohmann::json::parse(ev::results_json(r))["methods"][0]["temporal_error"].is_null());
}

TEST(EvalEvaluation, RejectsBadRequests) {
    ev::EvaluationOptions options;
    options.methods = {"nearest"};
    EXPECT_THROW(ev::evaluate_sequence(still_sequence(3, false), options), swinup::SequenceError);
    options.skip_frames = 3;
    EXPECT_THROW(ev::evaluate_sequence(still_sequence(3, true), options), std::invalid_argument);
    // A picture frame outside the sequence is an error, not silently the last frame.
    options.skip_frames = 0;
    options.picture_frame = 3;
    EXPECT_THROW(ev::evaluate_sequence(still_sequence(3, true), options), std::invalid_argument);
    options.picture_frame = -2;
    EXPECT_THROW(ev::evaluate_sequence(still_sequence(3, true), options), std::invalid_argument);
    options.picture_frame = -1;  // the last frame
    EXPECT_EQ(ev::evaluate_sequence(still_sequence(3, true), options).picture_frame, 2);
    EXPECT_THROW(ev::parse_method_list("bicubic,magic"), std::invalid_argument);
    EXPECT_THROW(ev::parse_method_list(""), std::invalid_argument);
    EXPECT_EQ(ev::parse_method_list("taau,bicubic,taau"),
              (std::vector<std::string>{"taau", "bicubic"}));
    EXPECT_EQ(ev::parse_method_list("all").size(), ev::method_names().size());
}

TEST(EvalReport, TableAndJsonCarryTheScores) {
    const auto source = still_sequence(4, true);
    ev::EvaluationOptions options;
    options.methods = {"bicubic", "lanczos3"};
    const ev::EvaluationResult r = ev::evaluate_sequence(source, options);
    const std::string table = ev::format_results_table(r);
    EXPECT_NE(table.find("bicubic"), std::string::npos);
    EXPECT_NE(table.find("lanczos3"), std::string::npos);
    const auto j = nlohmann::json::parse(ev::results_json(r));
    ASSERT_EQ(j["methods"].size(), 2u);
    EXPECT_NEAR(j["methods"][1]["psnr_db"].get<double>(), r.methods[1].psnr_db, 1e-9);
    EXPECT_EQ(j["methods"][0]["frame_ssim"].size(), 4u);
    EXPECT_EQ(j["display_size"][0].get<int>(), 32);
    EXPECT_NE(table.find("LDR-FLIP"), std::string::npos);
    EXPECT_NEAR(j["methods"][1]["flip"].get<double>(), r.methods[1].flip, 1e-9);
    EXPECT_EQ(j["methods"][0]["frame_flip"].size(), 4u);
    EXPECT_EQ(j["metrics"]["flip_kind"], "LDR-FLIP");
    const std::string md =
        ev::report_markdown(r, {"Title", "swinup eval x", {{"stage", 1.5}}, {"a.png"}, {"note"}});
    EXPECT_NE(md.find("# Title"), std::string::npos);
    EXPECT_NE(md.find("| SSIM | LDR-FLIP | temporal error |"), std::string::npos) << md;
    EXPECT_NE(md.find("![a.png](a.png)"), std::string::npos);
}

namespace {

// still_sequence with masks: the left half of the render frame (x < 8) is reactive 1, and there
// the render samples are black while the truth is not, so every method errs inside the masked
// region (display x < 16, half of the pixels) far more than outside it.
ev::SequenceSource masked_sequence(int frames, bool with_masks) {
    return edited_still_sequence(
        frames, [with_masks](SequenceInfo& info) { info.has_masks = with_masks; },
        [with_masks](Frame& f) {
            for (int y = 0; y < 16; ++y)
                for (int x = 0; x < 8; ++x)
                    for (int c = 0; c < 3; ++c) f.color.at(x, y, c) = 0.0f;
            if (with_masks) {
                f.masks = Image(16, 16, 2, 0.0f);
                for (int y = 0; y < 16; ++y)
                    for (int x = 0; x < 8; ++x) f.masks.at(x, y, 0) = 1.0f;
            }
        },
        "masked test sequence");
}

}  // namespace

// The masked columns score the masked region alone, the unmasked PSNR the rest: with half of the
// pixels in each, the whole-frame MSE is the mean of the two regions' MSEs.
TEST(EvalMasks, MaskedRegionIsScoredApart) {
    ev::EvaluationOptions options;
    options.methods = {"bilinear", "taau"};
    const ev::EvaluationResult r = ev::evaluate_sequence(masked_sequence(6, true), options);
    EXPECT_TRUE(r.has_masks);
    EXPECT_TRUE(r.methods_got_masks);
    EXPECT_DOUBLE_EQ(r.masked_fraction, 0.5);
    for (const auto& m : r.methods) {
        EXPECT_LT(m.masked_psnr_db + 5.0, m.unmasked_psnr_db) << m.name;
        const double mse = std::pow(10.0, -m.psnr_db / 10.0);
        const double masked = std::pow(10.0, -m.masked_psnr_db / 10.0);
        const double unmasked = std::pow(10.0, -m.unmasked_psnr_db / 10.0);
        EXPECT_NEAR(mse, 0.5 * (masked + unmasked), 1e-9 * mse) << m.name;
        EXPECT_TRUE(std::isfinite(m.masked_temporal_error)) << m.name;
        EXPECT_GE(m.masked_temporal_error, 0.0);
    }
    const std::string table = ev::format_results_table(r);
    EXPECT_NE(table.find("mask PSNR"), std::string::npos) << table;
    EXPECT_NE(table.find("masked pixels 50.0%"), std::string::npos) << table;
    const auto j = nlohmann::json::parse(ev::results_json(r));
    EXPECT_NEAR(j["methods"][1]["masked_psnr_db"].get<double>(), r.methods[1].masked_psnr_db, 1e-9);
    EXPECT_NEAR(j["methods"][1]["masked_temporal_error"].get<double>(), r.methods[1].masked_temporal_error, 1e-12);
    EXPECT_NEAR(j["methods"][0]["unmasked_psnr_db"].get<double>(), r.methods[0].unmasked_psnr_db, 1e-9);
    EXPECT_DOUBLE_EQ(j["masked_pixel_fraction"].get<double>(), 0.5);
    const std::string md = ev::report_markdown(r, {"T", "", {}, {}, {}});
    EXPECT_NE(md.find("masked PSNR (dB) | masked temporal error |"), std::string::npos) << md;
}

// --no-masks: the methods run as on the same sequence without masks (the same scores to the last
// bit), while the masked region is still scored; with the masks the TAAU scores differ.
TEST(EvalMasks, NoMasksRunsTheMethodsWithoutThem) {
    ev::EvaluationOptions options;
    options.methods = {"taau"};
    const ev::EvaluationResult with = ev::evaluate_sequence(masked_sequence(6, true), options);
    const ev::EvaluationResult bare = ev::evaluate_sequence(masked_sequence(6, false), options);
    options.masks = false;
    const ev::EvaluationResult without = ev::evaluate_sequence(masked_sequence(6, true), options);
    EXPECT_FALSE(without.methods_got_masks);
    EXPECT_EQ(without.methods[0].frame_psnr_db, bare.methods[0].frame_psnr_db);
    EXPECT_EQ(without.methods[0].psnr_db, bare.methods[0].psnr_db);
    EXPECT_NE(with.methods[0].frame_psnr_db, bare.methods[0].frame_psnr_db);
    EXPECT_TRUE(std::isfinite(without.methods[0].masked_psnr_db));
    EXPECT_NE(ev::format_results_table(without).find("run without masks"), std::string::npos);
}

// NAME-nomasks scores a method without the masks next to the same method with them, in one run.
TEST(EvalMasks, NoMasksSuffixRunsOneMethodWithoutThem) {
    ev::EvaluationOptions options;
    options.methods = {"taau"};
    const ev::EvaluationResult bare = ev::evaluate_sequence(masked_sequence(6, false), options);
    const ev::EvaluationResult with = ev::evaluate_sequence(masked_sequence(6, true), options);
    options.methods = ev::parse_method_list("taau,taau-nomasks");
    const ev::EvaluationResult both = ev::evaluate_sequence(masked_sequence(6, true), options);
    ASSERT_EQ(both.methods.size(), 2u);
    EXPECT_EQ(both.methods[1].name, "taau-nomasks");
    EXPECT_EQ(both.methods[0].frame_psnr_db, with.methods[0].frame_psnr_db);
    EXPECT_EQ(both.methods[1].frame_psnr_db, bare.methods[0].frame_psnr_db);
    EXPECT_NE(ev::format_results_table(both).find("taau-nomasks"), std::string::npos);
    EXPECT_EQ(ev::parse_method_list("swinup-nomasks"), std::vector<std::string>{"swinup-nomasks"});
    EXPECT_THROW(ev::parse_method_list("magic-nomasks"), std::invalid_argument);
    EXPECT_THROW(ev::parse_method_list("-nomasks"), std::invalid_argument);
    EXPECT_THROW(ev::parse_method_list("taau-nomasks-nomasks"), std::invalid_argument);
}

// A sequence without masks has no masked region: the masked scores are not measured (n/a,
// null) and the text table keeps its columns of before.
TEST(EvalMasks, NoMasksNoMaskedColumns) {
    ev::EvaluationOptions options;
    options.methods = {"nearest"};
    const ev::EvaluationResult r = ev::evaluate_sequence(masked_sequence(3, false), options);
    EXPECT_FALSE(r.has_masks);
    EXPECT_EQ(r.masked_fraction, 0.0);
    EXPECT_TRUE(std::isnan(r.methods[0].masked_psnr_db));
    EXPECT_TRUE(std::isnan(r.methods[0].masked_temporal_error));
    EXPECT_NEAR(r.methods[0].unmasked_psnr_db, r.methods[0].psnr_db, 1e-9);
    EXPECT_EQ(ev::format_results_table(r).find("mask PSNR"), std::string::npos);
    EXPECT_EQ(ev::format_results_table(r).find("masked pixels"), std::string::npos);
    EXPECT_TRUE(nlohmann::json::parse(ev::results_json(r))["methods"][0]["masked_psnr_db"].is_null());
}

TEST(EvalPictures, CropsGoWhereTheDetailIs) {
    Image img(64, 48, 3, 0.5f);
    for (int y = 30; y < 46; ++y)
        for (int x = 40; x < 56; ++x)
            for (int c = 0; c < 3; ++c) img.at(x, y, c) = float((x + y) % 2);
    const auto crops = ev::pick_detail_crops(img, 16, 2);
    ASSERT_EQ(crops.size(), 2u);
    EXPECT_EQ(crops[0].size, 16);
    // The best crop covers most of the checkered square.
    EXPECT_NEAR(crops[0].x, 40, 2);
    EXPECT_NEAR(crops[0].y, 30, 2);
    // The second does not overlap the first.
    const bool overlap = crops[1].x < crops[0].x + 16 && crops[0].x < crops[1].x + 16 &&
                         crops[1].y < crops[0].y + 16 && crops[0].y < crops[1].y + 16;
    EXPECT_FALSE(overlap);
}

TEST(EvalPictures, PanelsAreLaidOutSideBySideWithLabels) {
    const Image a(20, 20, 3, 0.25f), b(20, 20, 3, 0.75f);
    const Image out = ev::compose_comparison({"A", "B"}, {&a, &b}, {2, 2, 10}, 3);
    // Two 30-pixel panels and three 6-pixel gaps; a label strip above.
    EXPECT_EQ(out.width, 2 * 30 + 3 * 6);
    EXPECT_GT(out.height, 30);
    const int top = out.height - 6 - 30;
    EXPECT_FLOAT_EQ(out.at(6 + 15, top + 15, 0), 0.25f);
    EXPECT_FLOAT_EQ(out.at(6 + 30 + 6 + 15, top + 15, 0), 0.75f);
    // The letter I of the 5x7 font has 11 ink pixels.
    Image canvas(10, 10, 3, 0.0f);
    ev::draw_text(canvas, 0, 0, "i", 1, 1.0f, 1.0f, 1.0f);
    int ink = 0;
    for (int i = 0; i < 100; ++i) ink += canvas.data[size_t(i) * 3] > 0.5f;
    EXPECT_EQ(ink, 11);
}

// --crop-at: pictures cut where asked (moved inside the frame when they would leave it), not where
// the detail is. Each picture's bytes depend only on the crop's place.
TEST(EvalPictures, GivenCropsAreCutWhereAsked) {
    ev::EvaluationOptions options;
    options.methods = {"nearest"};
    const ev::EvaluationResult r = ev::evaluate_sequence(still_sequence(2, true), options);
    const std::filesystem::path dir = swinup::test::fresh_test_dir("crops");
    auto picture = [&](const std::string& name, int x, int y) {
        const auto written = ev::write_comparison_pictures((dir / name).string(), r, {"nearest"}, 16, 2, 1,
                                                           {ev::CropRect{x, y, 16}});
        EXPECT_EQ(written.size(), 1u);
        return swinup::test::read_text(written.at(0));
    };
    const std::string corner = picture("corner", 0, 0), inside = picture("inside", 5, 3);
    const std::string far = picture("far", 1000, 1000), last = picture("last", 16, 16);
    EXPECT_NE(corner, inside);
    EXPECT_EQ(far, last);  // a 16-pixel crop of a 32-pixel frame ends at 16, 16 at the most
    EXPECT_EQ(picture("again", 5, 3), inside);
    std::filesystem::remove_all(dir);
}
