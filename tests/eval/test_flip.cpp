// LDR-FLIP and HDR-FLIP (src/eval/flip.h, hdr_flip.h) against values of NVIDIA's reference
// implementation: tests/data/flip/ holds image pairs and what flip-evaluator 1.7 computed for them
// (python/scripts/make_flip_fixture.py, whose header has the command).
//
// Tolerances: the reference computes in float32 with its own rounding of the colour matrices and
// its own order of summation. Written from the paper in float, these files agree with it within
// 4e-6 on the means and 7e-5 on any pixel (2026-12-04: ldr 4.0e-6 / 6.8e-5, ldr_small 2.0e-6 /
// 2.8e-5, hdr 2.4e-6 / 2.5e-5). The tests allow 2e-5 on means and 5e-4 per pixel, 5-7 times that:
// room for another compiler's rounding. Checked to fail: zero borders instead of clamped ones
// (means off by 7e-4 to 4e-3), a CSF radius one pixel too wide (a pixel off by 1e-3; the means
// stay within 2e-5), the lower median in the exposure range (stop off by 2e-4).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/flip.h"
#include "eval/hdr_flip.h"
#include "text_file.h"

using swinup::Image;
namespace ev = swinup::eval;

namespace {

constexpr double kMeanTolerance = 2e-5;
constexpr double kPixelTolerance = 5e-4;

const std::filesystem::path kFixture = std::filesystem::path(SWINUP_TEST_DATA_DIR) / "flip";

std::vector<float> read_floats(const std::string& name, size_t count) {
    const std::string bytes = swinup::test::read_text(kFixture / name);
    if (bytes.size() != count * sizeof(float)) {
        ADD_FAILURE() << name << ": " << bytes.size() << " bytes, expected " << count * sizeof(float);
        return std::vector<float>(count, 0.0f);
    }
    std::vector<float> values(count);
    std::memcpy(values.data(), bytes.data(), bytes.size());  // little-endian, like this machine
    return values;
}

Image read_image(const std::string& name, int width, int height) {
    Image image(width, height, 3);
    image.data = read_floats(name, size_t(width) * height * 3);
    return image;
}

nlohmann::json expected() {
    return nlohmann::json::parse(swinup::test::read_text(kFixture / "expected.json"));
}

struct Case {
    nlohmann::json json;
    Image reference, test;
    bool hdr = false;
};

std::vector<Case> cases() {
    std::vector<Case> out;
    const nlohmann::json all = expected();
    for (const auto& c : all["cases"]) {
        const int w = c["width"], h = c["height"];
        out.push_back({c, read_image(c["reference"], w, h), read_image(c["test"], w, h),
                       c["dynamic_range"] == "HDR"});
    }
    // Every test below loops over the cases: none would make them pass having checked nothing.
    if (out.size() != 5) ADD_FAILURE() << "expected.json has " << out.size() << " cases, not 5";
    return out;
}

std::vector<float> our_map(const Case& c) {
    return c.hdr ? ev::hdr_flip_error_map(c.reference, c.test)
                 : ev::ldr_flip_error_map(c.reference, c.test);
}

}  // namespace

TEST(Flip, DefaultViewingConditionIsTheReferences) {
    // 0.7 m * (3840 px / 0.7 m) * pi / 180: 67.0206 pixels per degree.
    EXPECT_NEAR(ev::flip_default_pixels_per_degree(), 3840.0 * M_PI / 180.0, 1e-12);
    EXPECT_NEAR(ev::flip_default_pixels_per_degree(), expected()["pixels_per_degree"].get<double>(),
                1e-5);
}

TEST(Flip, MeansMatchTheReferenceImplementation) {
    for (const Case& c : cases()) {
        const double mean = ev::mean_flip(our_map(c));
        EXPECT_NEAR(mean, c.json["mean_flip"].get<double>(), kMeanTolerance) << c.json["name"];
    }
}

TEST(Flip, ErrorMapsMatchTheReferenceImplementation) {
    for (const Case& c : cases()) {
        if (!c.json.contains("error_map")) continue;
        const std::vector<float> ours = our_map(c);
        const std::vector<float> theirs = read_floats(c.json["error_map"], ours.size());
        double worst = 0.0;
        size_t worst_at = 0;
        for (size_t i = 0; i < ours.size(); ++i) {
            const double d = std::abs(double(ours[i]) - double(theirs[i]));
            if (d > worst) worst = d, worst_at = i;
        }
        EXPECT_LT(worst, kPixelTolerance)
            << c.json["name"] << ": pixel " << worst_at % size_t(c.reference.width) << ","
            << worst_at / size_t(c.reference.width) << " is " << ours[worst_at] << ", reference "
            << theirs[worst_at];
    }
}

TEST(Flip, IdenticalImagesScoreZero) {
    for (const Case& c : cases()) {
        const std::vector<float> map = c.hdr ? ev::hdr_flip_error_map(c.reference, c.reference)
                                             : ev::ldr_flip_error_map(c.reference, c.reference);
        EXPECT_EQ(ev::mean_flip(map), 0.0) << c.json["name"];
    }
}

TEST(Flip, HdrExposureRangeMatchesTheReferenceImplementation) {
    for (const Case& c : cases()) {
        if (!c.hdr) continue;
        const ev::FlipExposures e = ev::hdr_flip_exposures(c.reference);
        EXPECT_NEAR(e.start, c.json["exposures"]["start"].get<double>(), 1e-5);
        EXPECT_NEAR(e.stop, c.json["exposures"]["stop"].get<double>(), 1e-5);
        EXPECT_EQ(e.count, c.json["exposures"]["count"].get<int>());
    }
}

// A reference whose median luminance is 0 (most of it black) gets the stop exposure of
// FLT_EPSILON; an all-black one the same for its start, not an infinite or NaN exposure.
TEST(Flip, HdrExposuresOfDarkReferencesAreFinite) {
    Image mostly_black(8, 8, 3, 0.0f);
    mostly_black.at(1, 1, 0) = 4.0f;
    const ev::FlipExposures e = ev::hdr_flip_exposures(mostly_black);
    EXPECT_TRUE(std::isfinite(e.start));
    EXPECT_NEAR(e.stop - e.start, std::log2(4.0 * 0.2126 / 1.1920929e-7), 1e-4);
    const Image black(8, 8, 3, 0.0f);
    const ev::FlipExposures b = ev::hdr_flip_exposures(black);
    EXPECT_EQ(b.start, b.stop);
    EXPECT_EQ(b.count, 2);
    Image grey(8, 8, 3, 0.01f);
    EXPECT_GT(ev::mean_flip(ev::hdr_flip_error_map(black, grey)), 0.5);
}

TEST(Flip, ReferenceSharedByManyTestsGivesEachTheirOwnMap) {
    const std::vector<Case> all = cases();
    ASSERT_EQ(all.size(), 5u);
    const Case& hdr = all[3];
    ASSERT_TRUE(hdr.hdr);
    const auto maps = ev::hdr_flip_error_maps(hdr.reference, {&hdr.test, &hdr.reference, &hdr.test});
    ASSERT_EQ(maps.size(), 3u);
    EXPECT_EQ(maps[0], ev::hdr_flip_error_map(hdr.reference, hdr.test));
    EXPECT_EQ(ev::mean_flip(maps[1]), 0.0);
    EXPECT_EQ(maps[2], maps[0]);
}

TEST(Flip, RejectsImagesThatCannotBeCompared) {
    const Image a(16, 16, 3, 0.5f), b(16, 15, 3, 0.5f), grey(16, 16, 1, 0.5f);
    EXPECT_THROW(ev::ldr_flip_error_map(a, b), std::invalid_argument);
    EXPECT_THROW(ev::ldr_flip_error_map(a, grey), std::invalid_argument);
    EXPECT_THROW(ev::ldr_flip_error_map(Image(), a), std::invalid_argument);
    EXPECT_THROW(ev::hdr_flip_error_map(a, b), std::invalid_argument);
    EXPECT_THROW(ev::hdr_flip_error_map(grey, a), std::invalid_argument);
    EXPECT_THROW(ev::LdrFlipReference(a, 0.0), std::invalid_argument);
    try {
        ev::ldr_flip_error_map(a, b);
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("16x16"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("16x15"), std::string::npos) << e.what();
    }
}

// NaN and negative values (a broken method's output) count as black, as in the display encoding,
// so the score stays a number.
TEST(Flip, NonFiniteValuesScoreAsBlack) {
    Image a(16, 16, 3, 0.5f), nan = a, black(16, 16, 3, 0.0f);
    for (float& v : nan.data) v = std::nanf("");
    EXPECT_EQ(ev::ldr_flip_error_map(a, nan), ev::ldr_flip_error_map(a, black));
    EXPECT_EQ(ev::hdr_flip_error_map(a, nan), ev::hdr_flip_error_map(a, black));
}
