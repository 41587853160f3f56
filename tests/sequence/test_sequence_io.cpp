// Sequence I/O: round trips of sequence.json and the per-frame EXR files, the precision each file
// keeps, and that malformed input is rejected with a SequenceError naming the offending file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sequence/sequence.h"
#include "small_stack.h"
#include "test_dir.h"
#include "text_file.h"
#include "sequence_fixture.h"

namespace fs = std::filesystem;
using namespace swinup;

namespace {

constexpr int kRenderW = 16, kRenderH = 8, kDisplayW = 32, kDisplayH = 16, kFrames = 3;

// Every value here is a multiple of 1/8 below 64, so it is exactly representable in half.
float half_exact_value(int frame, int x, int y, int c) {
    return static_cast<float>((frame * 7 + x * 3 + y * 5 + c) % 256) / 8.0f;
}

SequenceInfo make_info() {
    SequenceInfo info = swinup::test::sequence_info(kRenderW, kRenderH, kDisplayW, kDisplayH, kFrames);
    info.jitter_x = {0.25f, -0.1f, 0.5f};
    info.jitter_y = {-0.5f, 0.3333f, 0.0f};
    info.exposure = {1.0f, 2.5f, 0.125f};
    info.reset = {1, 0, 0};
    info.camera_near = 0.05f;
    info.camera_far = 250.0f;
    info.camera_fov_y_deg = 47.5f;
    info.hdr = true;
    info.depth_inverted = true;
    info.mv_jittered = true;
    info.mv_sign = -1;  // files hold previous -> current; memory is always current -> previous
    info.has_mv_display = true;
    info.has_ground_truth = true;
    info.scene = "test scene";
    info.generator = "test_sequence_io";
    return info;
}

Image make_image(int w, int h, int channels, int frame, float scale) {
    Image image(w, h, channels);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < channels; ++c)
                image.at(x, y, c) = scale * half_exact_value(frame, x, y, c);
    return image;
}

Frame make_frame(int index) {
    Frame f;
    f.color = make_image(kRenderW, kRenderH, 4, index, 1.0f);
    f.depth = Image(kRenderW, kRenderH, 1);
    for (int y = 0; y < kRenderH; ++y)
        for (int x = 0; x < kRenderW; ++x)  // not representable in half: checks float storage
            f.depth.at(x, y, 0) = 1.0f / static_cast<float>(3 + x + 17 * y + index);
    f.mv = make_image(kRenderW, kRenderH, 2, index, -0.37f);  // float storage: any value
    f.mv_display = make_image(kDisplayW, kDisplayH, 2, index, 1.1f);
    f.gt = make_image(kDisplayW, kDisplayH, 4, index, 1.0f);
    return f;
}

void expect_same_pixels(const Image& expected, const Image& actual, const std::string& what) {
    ASSERT_EQ(expected.width, actual.width) << what;
    ASSERT_EQ(expected.height, actual.height) << what;
    ASSERT_EQ(expected.channels, actual.channels) << what;
    for (size_t i = 0; i < expected.data.size(); ++i) {
        ASSERT_EQ(expected.data[i], actual.data[i]) << what << " value " << i;
    }
}

using swinup::test::read_text;
using swinup::test::write_text;

// Asserts that `call` throws SequenceError whose message contains every one of `needles`.
template <typename Call>
void expect_sequence_error(Call call, std::initializer_list<std::string> needles) {
    try {
        call();
        FAIL() << "no SequenceError thrown";
    } catch (const SequenceError& e) {
        const std::string message = e.what();
        for (const std::string& needle : needles) {
            EXPECT_NE(message.find(needle), std::string::npos)
                << "message \"" << message << "\" lacks \"" << needle << "\"";
        }
    }
}

class SequenceIo : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = swinup::test::fresh_test_dir("seq");
    }
    void TearDown() override { fs::remove_all(dir_); }

    // A complete sequence on disk.
    void write_sequence() {
        sequence_write_info(dir_.string(), info_);
        for (int i = 0; i < kFrames; ++i) sequence_write_frame(dir_.string(), info_, i, make_frame(i));
    }
    // Reading frame `frame` of the sequence on disk fails with a message holding every needle.
    void expect_frame_error(int frame, std::initializer_list<std::string> needles) {
        const SequenceInfo info = sequence_read_info(dir_.string());
        expect_sequence_error([&] { sequence_read_frame(dir_.string(), info, frame); }, needles);
    }
    nlohmann::json info_json() const { return nlohmann::json::parse(read_text(dir_ / "sequence.json")); }
    void set_info_json(const nlohmann::json& j) const { write_text(dir_ / "sequence.json", j.dump()); }
    // Writes `text` into sequence.json just before its "exposure" key, as text: what a JSON
    // value cannot hold (a key twice, a number beyond a double) is written this way.
    void insert_before_exposure(const std::string& text) const {
        std::string json = read_text(dir_ / "sequence.json");
        const size_t at = json.find("\"exposure\"");
        ASSERT_NE(at, std::string::npos);
        json.insert(at, text);
        write_text(dir_ / "sequence.json", json);
    }

    fs::path dir_;
    SequenceInfo info_ = make_info();
};

TEST_F(SequenceIo, RoundTripKeepsInfoAndFrames) {
    write_sequence();
    const SequenceInfo info = sequence_read_info(dir_.string());
    EXPECT_EQ(info.render_width, kRenderW);
    EXPECT_EQ(info.render_height, kRenderH);
    EXPECT_EQ(info.display_width, kDisplayW);
    EXPECT_EQ(info.display_height, kDisplayH);
    EXPECT_EQ(info.frame_count, kFrames);
    EXPECT_EQ(info.jitter_x, info_.jitter_x);  // exact: floats survive the JSON text
    EXPECT_EQ(info.jitter_y, info_.jitter_y);
    EXPECT_EQ(info.exposure, info_.exposure);
    EXPECT_EQ(info.reset, info_.reset);
    EXPECT_EQ(info.camera_near, 0.05f);
    EXPECT_EQ(info.camera_far, 250.0f);
    EXPECT_EQ(info.camera_fov_y_deg, 47.5f);
    EXPECT_TRUE(info.hdr);
    EXPECT_TRUE(info.depth_inverted);
    EXPECT_TRUE(info.mv_jittered);
    EXPECT_EQ(info.mv_sign, -1);
    EXPECT_TRUE(info.has_mv_display);
    EXPECT_TRUE(info.has_ground_truth);
    EXPECT_EQ(info.scene, "test scene");
    EXPECT_EQ(info.generator, "test_sequence_io");

    for (int i = 0; i < kFrames; ++i) {
        const Frame expected = make_frame(i);
        const Frame frame = sequence_read_frame(dir_.string(), info, i);
        const std::string at = " of frame " + std::to_string(i);
        expect_same_pixels(expected.color, frame.color, "color" + at);  // half-exact values
        expect_same_pixels(expected.depth, frame.depth, "depth" + at);  // float storage
        expect_same_pixels(expected.mv, frame.mv, "mv" + at);
        expect_same_pixels(expected.mv_display, frame.mv_display, "mv_display" + at);
        expect_same_pixels(expected.gt, frame.gt, "gt" + at);
    }
}

TEST_F(SequenceIo, MotionFilesKeepTheSequenceSignConvention) {
    write_sequence();  // mv_sign = -1: the files store previous -> current, i.e. the negation
    const Frame expected = make_frame(1);
    const Image stored = exr_read((dir_ / frame_file("mv", 1)).string());
    ASSERT_EQ(stored.data.size(), expected.mv.data.size());
    for (size_t i = 0; i < stored.data.size(); ++i) ASSERT_EQ(stored.data[i], -expected.mv.data[i]);
}

TEST_F(SequenceIo, JsonOnDiskHasTheDocumentedFields) {
    write_sequence();
    const nlohmann::json j = info_json();
    EXPECT_EQ(j.at("format"), "swinup-sequence");
    EXPECT_EQ(j.at("version"), 1);
    EXPECT_EQ(j.at("render_size"), nlohmann::json({kRenderW, kRenderH}));
    EXPECT_EQ(j.at("display_size"), nlohmann::json({kDisplayW, kDisplayH}));
    EXPECT_EQ(j.at("frame_count"), kFrames);
    EXPECT_EQ(j.at("conventions").at("mv_sign"), -1);
    EXPECT_EQ(j.at("conventions").at("hdr"), true);
    EXPECT_EQ(j.at("files").at("ground_truth"), true);
    EXPECT_EQ(j.at("reset"), nlohmann::json({1, 0, 0}));
    // Floats are written in their shortest form: 0.1f appears as 0.1, not 0.10000000149...
    EXPECT_NE(read_text(dir_ / "sequence.json").find("-0.1,"), std::string::npos);
    EXPECT_DOUBLE_EQ(j.at("camera").at("fov_y_deg").get<double>(), 47.5);
}

TEST_F(SequenceIo, OptionalFieldsTakeDefaults) {
    fs::create_directories(dir_);
    set_info_json({{"format", "swinup-sequence"}, {"version", 1}, {"render_size", {4, 2}},
                   {"display_size", {8, 4}}, {"frame_count", 2}, {"jitter_x", {0.0, 0.1}},
                   {"jitter_y", {0.0, -0.1}}});
    const SequenceInfo info = sequence_info_from_json(read_text(dir_ / "sequence.json"), "x");
    EXPECT_EQ(info.exposure, std::vector<float>({1.0f, 1.0f}));
    EXPECT_EQ(info.reset, std::vector<int>({0, 0}));
    EXPECT_EQ(info.mv_sign, 1);
    EXPECT_FALSE(info.hdr);
    EXPECT_FALSE(info.has_ground_truth);
}

TEST(ExrIo, HalfStorageRoundsToNearestAndSaturates) {
    const fs::path path = fs::temp_directory_path() / ("swinup_half_" + std::to_string(getpid()) + ".exr");
    Image image(6, 1, 1);
    // Hand-computed binary16 neighbours: 0.1 -> 0x2E66 = 1638/16384; 1/3 -> 0x3555 = 1365/4096;
    // 2049 lies halfway between 2048 and 2050 and rounds to the even 2048; 2051 rounds to 2052.
    // Finite values beyond 65504 saturate instead of becoming Inf (a documented choice).
    image.data = {0.1f, 1.0f / 3.0f, 2049.0f, 2051.0f, 70000.0f, -1e9f};
    exr_write(path.string(), image, /*half_precision=*/true);
    const Image back = exr_read(path.string());
    fs::remove(path);
    ASSERT_EQ(back.channels, 1);
    EXPECT_EQ(back.data[0], 1638.0f / 16384.0f);
    EXPECT_EQ(back.data[1], 1365.0f / 4096.0f);
    EXPECT_EQ(back.data[2], 2048.0f);
    EXPECT_EQ(back.data[3], 2052.0f);
    EXPECT_EQ(back.data[4], 65504.0f);
    EXPECT_EQ(back.data[5], -65504.0f);
}

TEST(ExrIo, FloatStorageKeepsEveryBit) {
    const fs::path path = fs::temp_directory_path() / ("swinup_float_" + std::to_string(getpid()) + ".exr");
    Image image(3, 2, 2);
    image.data = {0.1f, -1e-40f /* subnormal */, 3.14159274f, 1e30f, -0.0f, 123456.789f,
                  std::numeric_limits<float>::infinity(), 7.0f, 1.0f / 3.0f, -2.5e-8f, 42.0f, 0.0f};
    exr_write(path.string(), image, /*half_precision=*/false);
    const Image back = exr_read(path.string());
    fs::remove(path);
    ASSERT_EQ(back.width, 3);
    ASSERT_EQ(back.height, 2);
    ASSERT_EQ(back.channels, 2);
    for (size_t i = 0; i < image.data.size(); ++i) {
        uint32_t a, b;
        std::memcpy(&a, &image.data[i], 4);
        std::memcpy(&b, &back.data[i], 4);
        EXPECT_EQ(a, b) << "value " << i;
    }
}

TEST(ExrIo, ReadingFromMemoryGivesWhatReadingTheFileGives) {
    // exr_read_memory shares exr_read's code: the same pixels, the same header check, and a cut
    // file refused with an error naming it instead of reading past its end.
    const fs::path path = fs::temp_directory_path() / ("swinup_memory_" + std::to_string(getpid()) + ".exr");
    Image image(5, 3, 4);
    for (size_t i = 0; i < image.data.size(); ++i) image.data[i] = static_cast<float>(i) / 8.0f;
    exr_write(path.string(), image, /*half_precision=*/true);
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const Image from_file = exr_read(path.string());
    fs::remove(path);

    int checked = 0;
    const Image from_memory = exr_read_memory(bytes.data(), bytes.size(), "frame.exr", [&](int w, int h, int c) {
        EXPECT_EQ(w * 100 + h * 10 + c, 534);
        ++checked;
    });
    EXPECT_EQ(checked, 1);
    ASSERT_EQ(from_memory.width, 5);
    ASSERT_EQ(from_memory.height, 3);
    ASSERT_EQ(from_memory.channels, 4);
    EXPECT_EQ(from_memory.data, from_file.data);
    EXPECT_EQ(from_memory.data, image.data);

    for (const size_t size : {size_t{0}, size_t{3}, size_t{40}, bytes.size() / 2, bytes.size() - 1}) {
        try {
            exr_read_memory(bytes.data(), size, "frame.exr");
            ADD_FAILURE() << "a file cut to " << size << " bytes was read";
        } catch (const SequenceError& e) {
            EXPECT_EQ(std::string(e.what()).rfind("frame.exr: ", 0), 0u) << e.what();
        }
    }
}

TEST(SequenceNames, FrameFileNames) {
    EXPECT_EQ(frame_file("color", 3), "color.0003.exr");
    EXPECT_EQ(frame_file("mv_display", 1234), "mv_display.1234.exr");
    EXPECT_EQ(frame_file("gt", 12345), "gt.12345.exr");
}

// ---- malformed input ----------------------------------------------------------------------

TEST_F(SequenceIo, MissingSequenceJsonIsNamed) {
    fs::create_directories(dir_);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {"sequence.json", "missing"});
}

TEST_F(SequenceIo, MissingFolderIsNamed) {
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {dir_.string()});
}

TEST_F(SequenceIo, BadJsonIsNamed) {
    write_sequence();
    write_text(dir_ / "sequence.json", "{\"format\": \"swinup-sequence\", ");
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {"sequence.json", "JSON"});
}

// Bytes that are not UTF-8 are named with their place in the file, not only "not valid JSON".
TEST_F(SequenceIo, NonUtf8JsonNamesWhereAndWhy) {
    write_sequence();
    std::string text = read_text(dir_ / "sequence.json");
    text.replace(text.find("test scene"), 4, "te\xff\xfe");
    write_text(dir_ / "sequence.json", text);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); },
                          {"sequence.json", "not valid JSON", "line", "UTF-8"});
}

// An integer beyond int64 is reported as too large, not wrapped to a negative value.
TEST_F(SequenceIo, HugeUnsignedIntegerIsNotWrapped) {
    write_sequence();
    std::string text = read_text(dir_ / "sequence.json");
    const std::string count = "\"frame_count\": 3";
    ASSERT_NE(text.find(count), std::string::npos);
    text.replace(text.find(count), count.size(), "\"frame_count\": 18446744073709551615");
    write_text(dir_ / "sequence.json", text);
    try {
        sequence_read_info(dir_.string());
        FAIL() << "no SequenceError thrown";
    } catch (const SequenceError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("'frame_count' must be a small integer"), std::string::npos)
            << message;
        EXPECT_EQ(message.find("-1"), std::string::npos) << message;
    }
}

TEST_F(SequenceIo, WrongVersionIsRejected) {
    write_sequence();
    nlohmann::json j = info_json();
    j["version"] = 2;
    set_info_json(j);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {"sequence.json", "version 2"});
}

TEST_F(SequenceIo, WrongFormatNameIsRejected) {
    write_sequence();
    nlohmann::json j = info_json();
    j["format"] = "something-else";
    set_info_json(j);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {"sequence.json", "something-else"});
}

TEST_F(SequenceIo, MissingFrameFileIsNamed) {
    write_sequence();
    fs::remove(dir_ / "depth.0001.exr");
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {"depth.0001.exr", "missing"});
}

TEST_F(SequenceIo, MissingGroundTruthFileIsNamed) {
    write_sequence();
    fs::remove(dir_ / "gt.0002.exr");
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {"gt.0002.exr"});
}

// A reader that needs no ground truth (an upscale) does not ask for its files; one that does
// (an evaluation, the default) still names the first one missing.
TEST_F(SequenceIo, GroundTruthFilesAreCheckedOnlyWhenNeeded) {
    write_sequence();
    for (int i = 0; i < kFrames; ++i) fs::remove(dir_ / frame_file("gt", i));
    const SequenceInfo info = sequence_read_info(dir_.string(), FilesNeeded{true, false});
    EXPECT_TRUE(info.has_ground_truth);  // the info still says what the sequence lists
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {"gt.0000.exr", "missing"});
}

TEST_F(SequenceIo, FolderInPlaceOfAFrameIsNamedAsAFolder) {
    write_sequence();
    fs::remove(dir_ / "depth.0001.exr");
    fs::create_directory(dir_ / "depth.0001.exr");
    expect_sequence_error([&] { sequence_read_info(dir_.string()); },
                          {"depth.0001.exr", "is a directory, not an EXR file"});
}

TEST_F(SequenceIo, FrameOfWrongSizeNamesFileAndBothSizes) {
    write_sequence();
    exr_write((dir_ / "color.0001.exr").string(), Image(8, 8, 4, 0.5f), true);
    expect_frame_error(1, {"color.0001.exr", "8x8", "16x8"});
}

TEST_F(SequenceIo, GroundTruthOfRenderSizeIsRejected) {
    write_sequence();
    exr_write((dir_ / "gt.0000.exr").string(), Image(kRenderW, kRenderH, 4, 0.5f), true);
    expect_frame_error(0, {"gt.0000.exr", "16x8", "32x16"});
}

TEST_F(SequenceIo, WrongChannelSetIsNamed) {
    write_sequence();
    exr_write((dir_ / "color.0000.exr").string(), Image(kRenderW, kRenderH, 1, 0.5f), false);
    expect_frame_error(0, {"color.0000.exr", "Z", "R,G,B,A"});
}

TEST_F(SequenceIo, ColourWithoutAlphaGetsOpaqueAlpha) {
    write_sequence();
    Image rgb(kRenderW, kRenderH, 3, 0.75f);
    exr_write((dir_ / "color.0002.exr").string(), rgb, true);
    const Frame frame = sequence_read_frame(dir_.string(), sequence_read_info(dir_.string()), 2);
    ASSERT_EQ(frame.color.channels, 4);
    EXPECT_EQ(frame.color.at(3, 2, 0), 0.75f);
    EXPECT_EQ(frame.color.at(3, 2, 3), 1.0f);
}

TEST_F(SequenceIo, TruncatedExrIsNamed) {
    write_sequence();
    const fs::path path = dir_ / "mv.0001.exr";
    const std::string bytes = read_text(path);
    write_text(path, bytes.substr(0, bytes.size() / 2));
    expect_frame_error(1, {"mv.0001.exr"});
}

// A header that claims the wrong size is rejected from the header alone, before the pixels are
// allocated or read: here the pixel data is cut short, so a reader that allocated and read first
// would fail on the data instead (and a hostile 32768x32768 header would cost it gigabytes).
TEST_F(SequenceIo, WrongSizeInHeaderIsRejectedBeforeThePixelsAreRead) {
    write_sequence();
    const fs::path path = dir_ / "depth.0001.exr";
    exr_write(path.string(), Image(kRenderW, 4096, 1, 0.5f), false);
    const std::string bytes = read_text(path);
    write_text(path, bytes.substr(0, bytes.size() / 2));
    expect_frame_error(1, {"depth.0001.exr", "16x4096", "16x8"});
}

TEST_F(SequenceIo, GarbageExrIsNamed) {
    write_sequence();
    write_text(dir_ / "depth.0000.exr", "this is not an EXR file");
    expect_frame_error(0, {"depth.0000.exr"});
}

TEST_F(SequenceIo, FrameIndexOutOfRangeIsRejected) {
    write_sequence();
    expect_frame_error(kFrames, {"frame 3"});
}

TEST_F(SequenceIo, NonFiniteJitterIsRejected) {
    write_sequence();
    nlohmann::json j = info_json();
    j["jitter_x"][1] = 1e39;  // finite as JSON, Inf as float
    set_info_json(j);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {"sequence.json", "jitter_x[1]"});
}

// An exposure that a float cannot hold is named with the file's value, not as the 0 it would
// round to; a subnormal one (every colour times 1e-45 is black) is rejected as well.
TEST_F(SequenceIo, VanishingExposureIsRejected) {
    write_sequence();
    nlohmann::json j = info_json();
    j["exposure"][1] = 1e-46;
    set_info_json(j);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); },
                          {"sequence.json", "'exposure[1]'", "rounds to 0"});
    j["exposure"][1] = 1e-45;
    set_info_json(j);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); },
                          {"exposure[1] = 1e-45", "smallest normal float"});
    j["exposure"][1] = 1.2e-38;  // the smallest normal float is 1.1754944e-38
    set_info_json(j);
    EXPECT_FLOAT_EQ(sequence_read_info(dir_.string()).exposure[1], 1.2e-38f);
}

// A number beyond a double (the parser's out_of_range, not a parse_error) is bad JSON too.
TEST_F(SequenceIo, NumberBeyondADoubleIsNamed) {
    write_sequence();
    ASSERT_NO_FATAL_FAILURE(insert_before_exposure("\"note\": 1e500,\n  "));
    expect_sequence_error([&] { sequence_read_info(dir_.string()); },
                          {"sequence.json", "not valid JSON", "number overflow parsing '1e500'"});
}

// A document nested 100,000 deep (200 KB) is refused while parsing, on a small stack, naming the
// depth (the top object and 100,000 arrays) and the limit; nothing walks it recursively.
TEST_F(SequenceIo, DeeplyNestedJsonIsRefused) {
    write_sequence();
    ASSERT_NO_FATAL_FAILURE(
        insert_before_exposure("\"note\": " + std::string(100000, '[') + std::string(100000, ']') + ",\n  "));
    swinup::test::run_on_small_stack([&] {
        expect_sequence_error([&] { sequence_read_info(dir_.string()); },
                              {"sequence.json", "nested 100001 levels deep, over the limit of 128"});
    });
}

// nlohmann::json alone would keep the second of two equal keys without a word.
TEST_F(SequenceIo, RepeatedKeyIsRejected) {
    write_sequence();
    ASSERT_NO_FATAL_FAILURE(insert_before_exposure("\"exposure\": [2, 2, 2],\n  "));
    expect_sequence_error([&] { sequence_read_info(dir_.string()); },
                          {"sequence.json", "key 'exposure' appears twice"});
    // Each object has keys of its own: "mv_display" in conventions as well as in files is not a
    // repeat (it is an unknown key of conventions, named as such).
    write_sequence();
    nlohmann::json j = info_json();
    j["conventions"]["mv_display"] = false;
    set_info_json(j);
    try {
        sequence_read_info(dir_.string());
        FAIL() << "no SequenceError thrown";
    } catch (const SequenceError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("unknown key 'conventions.mv_display'"), std::string::npos) << message;
        EXPECT_EQ(message.find("twice"), std::string::npos) << message;
    }
}

TEST_F(SequenceIo, JitterOutsideHalfPixelIsRejected) {
    write_sequence();
    nlohmann::json j = info_json();
    j["jitter_y"][2] = -0.51;
    set_info_json(j);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {"sequence.json", "jitter_y[2]"});
}

TEST_F(SequenceIo, UnknownMotionSignIsRejected) {
    write_sequence();
    nlohmann::json j = info_json();
    j["conventions"]["mv_sign"] = 2;
    set_info_json(j);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {"sequence.json", "mv_sign"});
}

TEST_F(SequenceIo, UnknownConventionIsRejected) {
    write_sequence();
    nlohmann::json j = info_json();
    j["conventions"]["mv_flipped_y"] = true;
    set_info_json(j);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); },
                          {"sequence.json", "conventions.mv_flipped_y"});
}

TEST_F(SequenceIo, WrongValueTypeIsNamed) {
    write_sequence();
    nlohmann::json j = info_json();
    j["conventions"]["hdr"] = "yes";
    set_info_json(j);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); },
                          {"sequence.json", "conventions.hdr", "true or false"});
    j["conventions"]["hdr"] = true;
    j["render_size"] = {16.5, 8};
    set_info_json(j);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); },
                          {"sequence.json", "render_size[0]", "integer"});
}

TEST_F(SequenceIo, FrameCountMustMatchArrays) {
    write_sequence();
    nlohmann::json j = info_json();
    j["exposure"] = {1.0, 1.0};
    set_info_json(j);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); },
                          {"sequence.json", "exposure has 2 values", "frame_count is 3"});
}

// ---- writes never leave a half-written file under the target's name ------------------------

bool any_file_named_like(const fs::path& dir, const std::string& name) {
    if (!fs::exists(dir)) return false;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().filename().string().rfind(name, 0) == 0) return true;
    }
    return false;
}

TEST_F(SequenceIo, InvalidInfoIsNotWritten) {
    info_.jitter_x[0] = std::numeric_limits<float>::quiet_NaN();
    expect_sequence_error([&] { sequence_write_info(dir_.string(), info_); }, {"sequence.json", "jitter_x[0]"});
    EXPECT_FALSE(any_file_named_like(dir_, "sequence.json"));
}

TEST_F(SequenceIo, FrameOfWrongSizeIsNotWritten) {
    Frame frame = make_frame(0);
    frame.depth = Image(kRenderW + 1, kRenderH, 1);
    expect_sequence_error([&] { sequence_write_frame(dir_.string(), info_, 0, frame); },
                          {"depth.0000.exr", "17x8", "16x8"});
    EXPECT_FALSE(any_file_named_like(dir_, "depth.0000.exr"));
}

TEST_F(SequenceIo, FailedRenameLeavesNoTemporaryFile) {
    // The target is an existing non-empty folder: the EXR is complete under its temporary name,
    // the rename fails, and the temporary file must be gone.
    const fs::path target = dir_ / "color.0000.exr";
    fs::create_directories(target / "occupied");
    expect_sequence_error([&] { exr_write(target.string(), Image(4, 4, 4, 1.0f), true); },
                          {"color.0000.exr"});
    EXPECT_TRUE(fs::is_directory(target));
    for (const auto& entry : fs::directory_iterator(dir_))
        EXPECT_EQ(entry.path().filename(), "color.0000.exr") << "left behind: " << entry.path();
}

TEST_F(SequenceIo, UnwritableFolderLeavesNothing) {
    const fs::path target = dir_ / "no" / "such" / "folder" / "picture.png";
    Image image(2, 2, 3, 0.5f);
    expect_sequence_error([&] { png_write(target.string(), image, true); }, {"picture.png"});
    expect_sequence_error([&] { exr_write((dir_ / "no" / "x.exr").string(), image, true); }, {"x.exr"});
    EXPECT_FALSE(fs::exists(dir_ / "no"));
}

TEST_F(SequenceIo, ImageWithWrongChannelCountIsNotWritten) {
    fs::create_directories(dir_);
    const fs::path target = dir_ / "five.exr";
    expect_sequence_error([&] { exr_write(target.string(), Image(2, 2, 5), true); }, {"five.exr", "5"});
    EXPECT_FALSE(any_file_named_like(dir_, "five.exr"));
}

TEST_F(SequenceIo, PngHasSignatureAndSize) {
    fs::create_directories(dir_);
    const fs::path path = dir_ / "picture.png";
    Image image(5, 3, 4, 0.25f);
    png_write(path.string(), image, /*encode_srgb=*/true);
    const std::string bytes = read_text(path);
    ASSERT_GT(bytes.size(), 24u);
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_EQ(bytes.substr(12, 4), "IHDR");
    auto be32 = [&](size_t at) {
        return (uint32_t(uint8_t(bytes[at])) << 24) | (uint32_t(uint8_t(bytes[at + 1])) << 16) |
               (uint32_t(uint8_t(bytes[at + 2])) << 8) | uint32_t(uint8_t(bytes[at + 3]));
    };
    EXPECT_EQ(be32(16), 5u);
    EXPECT_EQ(be32(20), 3u);
    EXPECT_EQ(uint8_t(bytes[24]), 8u);  // bit depth
    EXPECT_EQ(uint8_t(bytes[25]), 2u);  // colour type RGB
    for (const auto& entry : fs::directory_iterator(dir_))
        EXPECT_EQ(entry.path().filename(), "picture.png") << "left behind: " << entry.path();
}

// ---- masks.NNNN.exr: reactive (R) and transparency & composition (G) ------------------------

// Fractions k/8 in [0, 1]: exact in half, different per pixel, plane and frame.
Image make_masks(int frame) {
    Image m(kRenderW, kRenderH, 2);
    for (int y = 0; y < kRenderH; ++y)
        for (int x = 0; x < kRenderW; ++x)
            for (int c = 0; c < 2; ++c) m.at(x, y, c) = float((frame + 3 * x + 5 * y + 7 * c) % 9) / 8.0f;
    return m;
}

class SequenceMasks : public SequenceIo {
protected:
    void write_masked_sequence() {
        info_.has_masks = true;
        sequence_write_info(dir_.string(), info_);
        for (int i = 0; i < kFrames; ++i) {
            Frame f = make_frame(i);
            f.masks = make_masks(i);
            sequence_write_frame(dir_.string(), info_, i, f);
        }
    }
    // Replaces frame `index`'s mask file by `masks` as written by exr_write (half storage).
    void replace_masks(int index, const Image& masks) {
        exr_write((dir_ / frame_file("masks", index)).string(), masks, true);
    }
};

TEST_F(SequenceMasks, RoundTripKeepsEveryMaskValue) {
    write_masked_sequence();
    const SequenceInfo info = sequence_read_info(dir_.string());
    EXPECT_TRUE(info.has_masks);
    EXPECT_EQ(info_json().at("has_masks"), true);
    for (int i = 0; i < kFrames; ++i) {
        const Frame frame = sequence_read_frame(dir_.string(), info, i);
        expect_same_pixels(make_masks(i), frame.masks, "masks of frame " + std::to_string(i));
    }
    // Stored as half R,G (what the format document says).
    const Image stored = exr_read((dir_ / "masks.0001.exr").string());
    EXPECT_EQ(stored.channels, 2);
    EXPECT_EQ(stored.width, kRenderW);
}

// A sequence without masks keeps today's sequence.json (no has_masks key, so readers from before
// masks still read it) and reads as no mask planes, i.e. zero everywhere.
TEST_F(SequenceMasks, SequenceWithoutMasksReadsAsNoMasks) {
    write_sequence();
    EXPECT_FALSE(info_json().contains("has_masks"));
    const SequenceInfo info = sequence_read_info(dir_.string());
    EXPECT_FALSE(info.has_masks);
    EXPECT_TRUE(sequence_read_frame(dir_.string(), info, 0).masks.empty());
}

TEST_F(SequenceMasks, MissingMaskFileIsNamed) {
    write_masked_sequence();
    fs::remove(dir_ / "masks.0002.exr");
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {"masks.0002.exr", "missing"});
    // A reader that asks for no masks does not need the files.
    EXPECT_NO_THROW(sequence_read_info(dir_.string(), FilesNeeded{true, true, false}));
}

TEST_F(SequenceMasks, MaskOfDisplaySizeIsRejected) {
    write_masked_sequence();
    replace_masks(1, Image(kDisplayW, kDisplayH, 2, 0.5f));
    const SequenceInfo info = sequence_read_info(dir_.string());
    expect_sequence_error([&] { sequence_read_frame(dir_.string(), info, 1); },
                          {"masks.0001.exr", "32x16", "16x8"});
}

TEST_F(SequenceMasks, MaskWithOneChannelIsNamed) {
    write_masked_sequence();
    replace_masks(0, Image(kRenderW, kRenderH, 1, 0.5f));
    const SequenceInfo info = sequence_read_info(dir_.string());
    expect_sequence_error([&] { sequence_read_frame(dir_.string(), info, 0); },
                          {"masks.0000.exr", "Z", "R,G"});
}

TEST_F(SequenceMasks, MaskValueOutsideZeroOneIsNamedWithItsPixel) {
    write_masked_sequence();
    Image bad = make_masks(2);
    bad.at(5, 3, 1) = 1.5f;
    replace_masks(2, bad);
    const SequenceInfo info = sequence_read_info(dir_.string());
    expect_sequence_error([&] { sequence_read_frame(dir_.string(), info, 2); },
                          {"masks.0002.exr", "transparency", "1.5", "(5, 3)", "[0, 1]"});
    bad = make_masks(2);
    bad.at(0, 7, 0) = -0.25f;
    replace_masks(2, bad);
    expect_sequence_error([&] { sequence_read_frame(dir_.string(), info, 2); },
                          {"masks.0002.exr", "reactive", "-0.25", "(0, 7)"});
    bad.at(0, 7, 0) = std::numeric_limits<float>::quiet_NaN();
    replace_masks(2, bad);
    expect_sequence_error([&] { sequence_read_frame(dir_.string(), info, 2); },
                          {"masks.0002.exr", "reactive", "(0, 7)"});
}

TEST_F(SequenceMasks, MaskValueOutsideZeroOneIsNotWritten) {
    info_.has_masks = true;
    sequence_write_info(dir_.string(), info_);
    Frame f = make_frame(0);
    f.masks = make_masks(0);
    f.masks.at(2, 2, 0) = 2.0f;
    expect_sequence_error([&] { sequence_write_frame(dir_.string(), info_, 0, f); },
                          {"masks.0000.exr", "reactive", "(2, 2)"});
    EXPECT_FALSE(fs::exists(dir_ / "masks.0000.exr"));
}

TEST_F(SequenceMasks, MasksAreNotWrittenIntoASequenceWithoutThem) {
    sequence_write_info(dir_.string(), info_);  // has_masks false
    Frame f = make_frame(0);
    f.masks = make_masks(0);
    expect_sequence_error([&] { sequence_write_frame(dir_.string(), info_, 0, f); },
                          {"masks.0000.exr", "has_masks"});
    EXPECT_FALSE(fs::exists(dir_ / "masks.0000.exr"));
}

TEST_F(SequenceMasks, HasMasksMustBeABoolean) {
    write_masked_sequence();
    nlohmann::json j = info_json();
    j["has_masks"] = 1;
    set_info_json(j);
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {"sequence.json", "has_masks"});
}

// The motion masks (display resolution, 0 or 1 per plane): what `swinup eval` scores its
// disocclusion and moving-object columns over.
Image make_motion_masks(int frame) {
    Image m(kDisplayW, kDisplayH, 2);
    for (int y = 0; y < kDisplayH; ++y)
        for (int x = 0; x < kDisplayW; ++x)
            for (int c = 0; c < 2; ++c) m.at(x, y, c) = float((frame + x + 2 * y + c) % 3 == 0);
    return m;
}

class SequenceMotionMasks : public SequenceIo {
protected:
    void write_sequence_with_motion_masks() {
        info_.has_motion_masks = true;
        sequence_write_info(dir_.string(), info_);
        for (int i = 0; i < kFrames; ++i) {
            Frame f = make_frame(i);
            f.motion_masks = make_motion_masks(i);
            sequence_write_frame(dir_.string(), info_, i, f);
        }
    }
};

TEST_F(SequenceMotionMasks, RoundTripKeepsEveryValue) {
    write_sequence_with_motion_masks();
    EXPECT_EQ(info_json().at("has_motion_masks"), true);
    const SequenceInfo info = sequence_read_info(dir_.string());
    EXPECT_TRUE(info.has_motion_masks);
    for (int i = 0; i < kFrames; ++i) {
        expect_same_pixels(make_motion_masks(i), sequence_read_frame(dir_.string(), info, i).motion_masks,
                           "motion masks of frame " + std::to_string(i));
    }
    EXPECT_EQ(exr_read((dir_ / "motion_masks.0001.exr").string()).width, kDisplayW);
}

// Sequences written before the motion masks (no key) read as before: no motion masks.
TEST_F(SequenceMotionMasks, OldSequenceReadsWithoutThem) {
    write_sequence();
    EXPECT_FALSE(info_json().contains("has_motion_masks"));
    const SequenceInfo info = sequence_read_info(dir_.string());
    EXPECT_FALSE(info.has_motion_masks);
    EXPECT_TRUE(sequence_read_frame(dir_.string(), info, 0).motion_masks.empty());
}

TEST_F(SequenceMotionMasks, MissingFileAndBadValuesAreNamed) {
    write_sequence_with_motion_masks();
    Image bad = make_motion_masks(1);
    bad.at(4, 2, 1) = 1.5f;
    exr_write((dir_ / frame_file("motion_masks", 1)).string(), bad, true);
    const SequenceInfo info = sequence_read_info(dir_.string());
    expect_sequence_error([&] { sequence_read_frame(dir_.string(), info, 1); },
                          {"motion_masks.0001.exr", "moving object", "(4, 2)", "[0, 1]"});
    exr_write((dir_ / frame_file("motion_masks", 1)).string(), Image(kRenderW, kRenderH, 2), true);
    expect_sequence_error([&] { sequence_read_frame(dir_.string(), info, 1); },
                          {"motion_masks.0001.exr", "display size"});
    fs::remove(dir_ / "motion_masks.0002.exr");
    expect_sequence_error([&] { sequence_read_info(dir_.string()); }, {"motion_masks.0002.exr", "missing"});
    FilesNeeded no_motion_masks;
    no_motion_masks.motion_masks = false;
    EXPECT_NO_THROW(sequence_read_info(dir_.string(), no_motion_masks));
}

TEST_F(SequenceMotionMasks, NotWrittenIntoASequenceWithoutThem) {
    sequence_write_info(dir_.string(), info_);
    Frame f = make_frame(0);
    f.motion_masks = make_motion_masks(0);
    expect_sequence_error([&] { sequence_write_frame(dir_.string(), info_, 0, f); },
                          {"motion_masks.0000.exr", "has_motion_masks"});
    EXPECT_FALSE(fs::exists(dir_ / "motion_masks.0000.exr"));
}

}  // namespace
