// The evaluation loop, the method registry, the report formats and the comparison pictures.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "eval/bitmap_font.h"
#include "eval/comparison_pictures.h"
#include "eval/evaluation.h"
#include "eval/report.h"
#include "sequence_fixture.h"

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

}  // namespace

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
    const std::string md =
        ev::report_markdown(r, {"Title", "swinup eval x", {{"stage", 1.5}}, {"a.png"}, {"note"}});
    EXPECT_NE(md.find("# Title"), std::string::npos);
    EXPECT_NE(md.find("![a.png](a.png)"), std::string::npos);
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
