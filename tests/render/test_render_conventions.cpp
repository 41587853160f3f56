// Renderer conventions checked against independent computations: Halton(2,3) jitter and its
// phase count, that samples really sit at pixel + 0.5 + jitter (+y down), device depth (normal and
// reverse-Z, sky), the BVH against brute force, camera path files and settings errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include "render/camera_path.h"
#include "render/frame_renderer.h"
#include "render/geometry.h"
#include "render/render_sequence.h"
#include "render/scene.h"
#include "render_test_settings.h"
#include "sequence/sequence.h"
#include "small_stack.h"
#include "test_dir.h"

using namespace swinup;
using namespace swinup::render;

namespace {

// Settings of a small test render: `scene`, `frames` frames at 16x9 -> 32x18, no ground truth.
RenderSettings small_render(const char* scene, int frames) {
    RenderSettings s = test::render_settings(scene, frames, 16, 9, 32, 18);
    s.ground_truth = false;
    return s;
}

// Radical inverse from the digits, in double: independent of jitter.h's loop.
double radical_inverse(unsigned index, unsigned base) {
    std::vector<unsigned> digits;
    for (unsigned i = index; i > 0; i /= base) digits.push_back(i % base);
    double value = 0.0, weight = 1.0 / base;
    for (unsigned d : digits) {
        value += d * weight;
        weight /= base;
    }
    return value;
}

// Camera at the origin looking down -z, 90 degree vertical field of view, square image.
Camera square_camera() {
    return test::camera_down_minus_z(90.0f, 0.5f, 50.0f, 1.0f);
}

// A wall at z = -5 covering x in [-10, 0.25] and y in [-0.25, 10]: on an 8x8 image its right
// edge projects to x = 4.2 and its bottom edge to y = 4.2 (pixel space, +y down).
std::unique_ptr<Scene> wall_scene() {
    auto scene = std::make_unique<Scene>();
    Material m;
    m.base_color = {0.5f, 0.5f, 0.5f};
    const int mat = scene->add_material(m);
    TriangleList tris;
    add_quad(tris, {-10, -0.25f, -5}, {10.25f, 0, 0}, {0, 10.25f, 0}, mat);
    scene->add_instance(scene->add_mesh(tris), Affine{});
    scene->set_time(0, 0);
    return scene;
}

FrameRequest request_for(const Camera& camera, int w, int h, float jx, float jy) {
    FrameRequest r;
    r.params.camera = camera;
    r.params.previous_camera = camera;
    r.params.render_width = r.params.display_width = w;
    r.params.render_height = r.params.display_height = h;
    r.params.jitter_x = jx;
    r.params.jitter_y = jy;
    r.ground_truth = false;
    return r;
}

double expected_depth(double z, double n, double f) { return f * (z - n) / (z * (f - n)); }

}  // namespace

TEST(RenderJitter, PhaseCountIsCeilEightScaleSquared) {
    for (float s : {1.0f, 1.3f, 1.5f, 1.7f, 2.0f, 3.0f}) {
        const double expected = std::ceil(8.0 * double(s) * double(s) - 1e-6);
        EXPECT_EQ(jitter_phase_count(s), static_cast<uint32_t>(expected)) << "scale " << s;
    }
    EXPECT_EQ(jitter_phase_count(2.0f), 32u);
    EXPECT_EQ(jitter_phase_count(1.5f), 18u);
}

TEST(RenderJitter, HaltonTwoThreeFromIndexOneMinusHalf) {
    const uint32_t count = jitter_phase_count(2.0f);
    for (uint32_t frame = 0; frame < 80; ++frame) {
        float jx = 0, jy = 0;
        jitter_offset(frame, count, jx, jy);
        const unsigned index = frame % count + 1;
        EXPECT_NEAR(jx, radical_inverse(index, 2) - 0.5, 1e-6) << frame;
        EXPECT_NEAR(jy, radical_inverse(index, 3) - 0.5, 1e-6) << frame;
        EXPECT_GE(jx, -0.5f);
        EXPECT_LT(jx, 0.5f);
        EXPECT_GE(jy, -0.5f);
        EXPECT_LT(jy, 0.5f);
    }
}

TEST(RenderJitter, SequenceInfoCarriesTheJitter) {
    RenderSettings s = test::render_settings("spinner", 3, 32, 18, 48, 27);
    s.ground_truth = false;
    const RenderedSequence seq = render_sequence(s);
    ASSERT_EQ(seq.info.jitter_x.size(), 3u);
    const uint32_t count = static_cast<uint32_t>(std::ceil(8.0 * 1.5 * 1.5 - 1e-6));
    for (unsigned i = 0; i < 3; ++i) {
        EXPECT_NEAR(seq.info.jitter_x[i], radical_inverse(i % count + 1, 2) - 0.5, 1e-6);
        EXPECT_NEAR(seq.info.jitter_y[i], radical_inverse(i % count + 1, 3) - 0.5, 1e-6);
    }
    EXPECT_EQ(seq.info.reset[0], 1);
    EXPECT_EQ(seq.info.reset[1], 0);
    EXPECT_FALSE(seq.info.mv_jittered);
    EXPECT_EQ(seq.info.mv_sign, 1);
}

TEST(RenderJitter, SamplesSitAtPixelCentrePlusJitter) {
    // Pixel (4, 3) sees the wall iff its sample x = 4.5 + jx lies left of the edge at 4.2,
    // pixel (3, 4) iff its sample y = 4.5 + jy lies above the edge at 4.2.
    auto scene = wall_scene();
    const Camera cam = square_camera();
    const float values[] = {-0.45f, -0.35f, -0.25f, 0.0f, 0.3f};
    for (float jx : values) {
        for (float jy : values) {
            const Frame f = render_frame_cpu(scene->view(), request_for(cam, 8, 8, jx, jy));
            const bool wall_x = f.depth.at(4, 3, 0) < 1.0f;
            const bool wall_y = f.depth.at(3, 4, 0) < 1.0f;
            EXPECT_EQ(wall_x, 4.5f + jx < 4.2f) << "jx " << jx;
            EXPECT_EQ(wall_y, 4.5f + jy < 4.2f) << "jy " << jy;
        }
    }
}

TEST(RenderDepth, DeviceDepthNormalAndInverted) {
    auto scene = wall_scene();
    const Camera cam = square_camera();
    FrameRequest r = request_for(cam, 8, 8, 0.0f, 0.0f);
    const Frame normal = render_frame_cpu(scene->view(), r);
    r.params.depth_inverted = true;
    const Frame inverted = render_frame_cpu(scene->view(), r);
    // Every wall pixel is at view z = 5 whatever its ray's angle (depth is along the view axis).
    const double d = expected_depth(5.0, 0.5, 50.0);
    for (int y = 0; y < 4; ++y) {
        for (int x = 0; x < 4; ++x) {
            EXPECT_NEAR(normal.depth.at(x, y, 0), d, 1e-5) << x << "," << y;
            EXPECT_NEAR(inverted.depth.at(x, y, 0), 1.0 - d, 1e-5) << x << "," << y;
        }
    }
    // The sky: far (1), or 0 reversed.
    EXPECT_EQ(normal.depth.at(7, 7, 0), 1.0f);
    EXPECT_EQ(inverted.depth.at(7, 7, 0), 0.0f);
    // Static camera and scene: no motion anywhere.
    for (float v : normal.mv.data) EXPECT_EQ(v, 0.0f);
}

TEST(RenderBvh, ClosestHitMatchesBruteForce) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> pos(-5.0f, 5.0f), small(-0.6f, 0.6f);
    Scene scene;
    Material m;
    m.double_sided = 1;
    const int mat = scene.add_material(m);
    TriangleList tris;
    for (int i = 0; i < 600; ++i) {
        const Vec3 c{pos(rng), pos(rng), pos(rng)};
        SourceTriangle t;
        t.p[0] = c + Vec3{small(rng), small(rng), small(rng)};
        t.p[1] = c + Vec3{small(rng), small(rng), small(rng)};
        t.p[2] = c + Vec3{small(rng), small(rng), small(rng)};
        t.material = mat;
        tris.push_back(t);
    }
    // Two instances of the mesh, the second shifted and rotated.
    const int mesh = scene.add_mesh(tris);
    scene.add_instance(mesh, Affine{});
    const Affine moved = affine_multiply(affine_translation({1.5f, 0, 0}), affine_rotation({0, 1, 0}, 0.7f));
    scene.add_instance(mesh, moved);
    scene.set_time(0, 0);
    const SceneView view = scene.view();
    int hits = 0;
    for (int k = 0; k < 400; ++k) {
        const Vec3 origin{pos(rng) * 2, pos(rng) * 2, pos(rng) * 2};
        const Vec3 dir = normalize(Vec3{pos(rng), pos(rng), pos(rng)});
        float best = 3e38f;
        for (const Affine& xf : {Affine{}, moved}) {
            for (const SourceTriangle& t : tris) {
                const Triangle w{transform_point(xf, t.p[0]), transform_point(xf, t.p[1]) - transform_point(xf, t.p[0]),
                                 transform_point(xf, t.p[2]) - transform_point(xf, t.p[0])};
                float tt, u, v;
                bool front;
                if (ray_hits_triangle(origin, dir, w, best, tt, u, v, front)) best = tt;
            }
        }
        TraceHit hit;
        const bool found = trace_ray(view, origin, dir, TraceOptions{}, hit);
        EXPECT_EQ(found, best < 3e38f) << k;
        if (found && best < 3e38f) {
            ++hits;
            EXPECT_NEAR(hit.t, best, 1e-3f * (1.0f + best)) << k;
        }
    }
    EXPECT_GT(hits, 50);  // the rays really test something
}

TEST(RenderCameraPath, ValidFileInterpolatesLinearly) {
    const std::string text = R"({"fov_y_deg": 40, "keys": [
        {"time": 0, "position": [0, 1, 0], "target": [0, 1, -1]},
        {"time": 2, "position": [4, 1, 0], "target": [4, 1, -1]}]})";
    const CameraMotion motion = camera_path_parse(text, CameraPose{}, "inline");
    const CameraPose mid = motion(0.5f);
    EXPECT_NEAR(mid.position.x, 1.0f, 1e-6f);
    EXPECT_NEAR(mid.target.z, -1.0f, 1e-6f);
    EXPECT_EQ(mid.fov_y_deg, 40.0f);
    EXPECT_NEAR(motion(10.0f).position.x, 4.0f, 1e-6f);  // holds after the last key
}

namespace {

// Parsing `text` as a camera path must fail with a message that names the file and contains
// `fragment`.
void expect_camera_path_error(const std::string& text, const std::string& fragment) {
    try {
        camera_path_parse(text, CameraPose{}, "cam.json");
        ADD_FAILURE() << "no error for: " << text;
    } catch (const RenderError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("cam.json"), std::string::npos) << what;
        EXPECT_NE(what.find(fragment), std::string::npos) << "expected '" << fragment << "' in: " << what;
    }
}

}  // namespace

TEST(RenderCameraPath, MalformedFilesGiveClearErrors) {
    expect_camera_path_error("{ not json", "not valid JSON");
    expect_camera_path_error(R"({"fov_y_deg": 1e500, "keys": []})", "not valid JSON");  // out_of_range
    expect_camera_path_error("[1, 2]", "JSON object");
    expect_camera_path_error("{}", "missing \"keys\"");
    expect_camera_path_error(R"({"keys": []})", "non-empty array");
    expect_camera_path_error(R"({"keys": [{"time": 0, "position": [0, 0, 0]}]})", "missing \"target\"");
    expect_camera_path_error(R"({"keys": [{"time": 0, "position": [0, 0], "target": [0, 0, 1]}]})", "keys[0].position");
    expect_camera_path_error(R"({"keys": [{"time": 0, "position": [0, 0, 0], "target": [0, 0, 0]}]})", "coincide");
    expect_camera_path_error(R"({"keys": [{"time": 1, "position": [0, 0, 0], "target": [0, 0, 1]},
                              {"time": 1, "position": [0, 0, 0], "target": [0, 0, 1]}]})", "greater than the previous");
    expect_camera_path_error(R"({"fov_y_deg": 500, "keys": [{"time": 0, "position": [0, 0, 0], "target": [0, 0, 1]}]})", "fov_y_deg");
    EXPECT_THROW(camera_path_load("/nonexistent/cam.json", CameraPose{}), RenderError);
    EXPECT_THROW(camera_preset("zoom", CameraPose{}, 1.0f, 1), RenderError);
}

TEST(RenderCameraPath, AKeyGivenTwiceIsRejected) {
    // The parser kept the last "keys" without a word, so a path pasted twice rendered half a path.
    const std::string key = R"({"time": 0, "position": [0, 0, 3], "target": [0, 0, 0]})";
    expect_camera_path_error("{\"keys\": [" + key + "], \"keys\": [" + key + "]}",
                             "the key \"keys\" appears twice");
    expect_camera_path_error(R"({"keys": [{"time": 0, "time": 1, "position": [0, 0, 3], "target": [0, 0, 0]}]})",
                             "the key \"time\" appears twice");
}

// A position nested 100,000 arrays deep (200 KB) is refused while parsing, on a small stack,
// naming the depth (top object, keys, key, 100,000 arrays) and the limit.
TEST(RenderCameraPath, DeeplyNestedJsonIsRefused) {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    swinup::test::run_on_small_stack([&] {
        expect_camera_path_error(R"({"keys": [{"time": 0, "target": [0, 0, 0], "position": )" + deep + "}]}",
                                 "nested 100003 levels deep, over the limit of 128");
    });
}

// Position 3e38 and target -3e38 are finite floats, target - position is not: the camera's axes
// became NaN and the render wrote frames of sky, exit status 0, no warning. Refused now, naming the
// key; so is a view whose length overflows (it squares coordinates over about 1.8e19), and two
// keys too far apart to interpolate between (in time, position or target).
TEST(RenderCameraPath, OverflowingViewsAndStepsAreRejected) {
    expect_camera_path_error(R"({"keys": [{"time": 0, "position": [3e38, 0, 0], "target": [-3e38, 0, 0]}]})",
                             "keys[0]: position [3e+38, 0, 0] and target [-3e+38, 0, 0] are too far apart");
    expect_camera_path_error(R"({"keys": [{"time": 0, "position": [0, 0, 3], "target": [0, 0, 0]},
                                         {"time": 1, "position": [0, 0, 0], "target": [1e20, 0, 0]}]})",
                             "keys[1]: position [0, 0, 0] and target [1e+20, 0, 0] are too far apart");
    expect_camera_path_error(R"({"keys": [{"time": 0, "position": [3e38, 0, 0], "target": [3e38, 0, -1]},
                                         {"time": 1, "position": [-3e38, 0, 0], "target": [-3e38, 0, -1]}]})",
                             "keys[1].position minus keys[0].position is not finite as float");
    expect_camera_path_error(R"({"keys": [{"time": 0, "position": [0, 0, 0], "target": [3e38, 0, 0]},
                                         {"time": 1, "position": [0, 0, 0], "target": [-3e38, 0, 0]}]})",
                             "keys[0]: position [0, 0, 0] and target [3e+38, 0, 0] are too far apart");
    expect_camera_path_error(R"({"keys": [{"time": -3e38, "position": [0, 0, 3], "target": [0, 0, 0]},
                                         {"time": 3e38, "position": [0, 0, 3], "target": [0, 0, 0]}]})",
                             "keys[1].time minus keys[0].time is not finite as float");
    // Far from the origin but near each other is fine: the view and the steps are small.
    const CameraMotion far = camera_path_parse(R"({"keys": [{"time": 0, "position": [1e30, 0, 0], "target": [1e30, 0, -1]},
        {"time": 1, "position": [2e30, 0, 0], "target": [2e30, 0, -1]}]})", CameraPose{}, "far.json");
    EXPECT_NO_THROW(camera_from_pose(far(0.5f), 1.0f));
}

// The camera itself refuses a pose whose view overflows (a preset or a path between its keys);
// the renderer names the frame.
TEST(RenderCameraPath, TheCameraRefusesAnOverflowingViewAndTheRenderNamesTheFrame) {
    CameraPose pose;
    pose.position = {3e38f, 0, 0};
    pose.target = {-3e38f, 0, 0};
    try {
        camera_from_pose(pose, 1.0f);
        ADD_FAILURE() << "no error";
    } catch (const RenderError& e) {
        EXPECT_NE(std::string(e.what()).find("position [3e+38, 0, 0] and target [-3e+38, 0, 0]: the view direction"),
                  std::string::npos) << e.what();
    }
    pose.position = {0, 0, 0};
    pose.target = {0, 0, -1};
    pose.up = {0, std::numeric_limits<float>::infinity(), 0};
    EXPECT_THROW(camera_from_pose(pose, 1.0f), RenderError);

    // Two keys that swap position and target: half-way between them the two coincide.
    const std::filesystem::path dir = swinup::test::fresh_test_dir("render");
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "swap.json") << R"({"keys": [{"time": 0, "position": [0, 0, 3], "target": [0, 0, -3]},
                                                      {"time": 0.2, "position": [0, 0, -3], "target": [0, 0, 3]}]})";
    RenderSettings s = small_render("spinner", 4);
    s.frame_time_s = 0.05f;
    s.camera = (dir / "swap.json").string();
    try {
        render_sequence(s);
        ADD_FAILURE() << "no error";
    } catch (const RenderError& e) {
        EXPECT_NE(std::string(e.what()).find("frame 2 (time 0.1 s): camera: position and target coincide"),
                  std::string::npos) << e.what();
    }
    std::filesystem::remove_all(dir);
}

TEST(RenderCameraPath, UnknownKeysAndFoldersAreNamed) {
    // A misspelt optional field was ignored without a word (the scene's fov was used instead).
    expect_camera_path_error(R"({"fov": 20, "keys": [{"time": 0, "position": [0, 0, 3], "target": [0, 0, 0]}]})",
                 "unknown key \"fov\"");
    expect_camera_path_error(R"({"keys": [{"time": 0, "position": [0, 0, 3], "target": [0, 0, 0], "up": [1, 0, 0]}]})",
                 "keys[0] has the unknown key \"up\"");
    // A folder read as an empty stream ("not valid JSON").
    const std::string dir = ::testing::TempDir() + "/camera_path_folder.json";
    std::filesystem::create_directories(dir);
    try {
        camera_path_load(dir, CameraPose{});
        ADD_FAILURE() << "no error for a folder";
    } catch (const RenderError& e) {
        EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
    }
    std::filesystem::remove(dir);
}

// Each bad setting is a RenderSettingsError (the command line reports it as a bad value, exit 2),
// raised before any frame is rendered, naming the field.
TEST(RenderSettingsCheck, BadSettingsNameTheField) {
    auto message = [](RenderSettings s) -> std::string {
        try {
            render_sequence(s);
        } catch (const RenderSettingsError& e) {
            return e.what();
        } catch (const RenderError&) {
            return "a RenderError that is not a RenderSettingsError";  // matches none of the checks
        }
        return "";
    };
    const RenderSettings s = small_render("spinner", 1);
    RenderSettings bad = s;
    bad.scene = "nosuchscene";
    EXPECT_NE(message(bad).find("unknown scene"), std::string::npos);
    bad = s;
    bad.display_width = 8;
    EXPECT_NE(message(bad).find("display size"), std::string::npos);
    bad = s;
    bad.display_height = 30;
    EXPECT_NE(message(bad).find("aspect"), std::string::npos);
    bad = s;
    bad.ground_truth = true;
    bad.gt_spp = 4;
    EXPECT_NE(message(bad).find("gt_spp"), std::string::npos);
    bad = s;
    bad.camera = "/nonexistent/path.json";
    EXPECT_EQ(message(bad), "camera path file /nonexistent/path.json does not exist");
    bad = s;
    bad.camera = "nosuchpreset";
    EXPECT_EQ(message(bad).rfind("unknown camera preset \"nosuchpreset\"", 0), 0u) << message(bad);
    bad = s;
    bad.scene = "/nonexistent/scene.gltf";
    EXPECT_NE(message(bad).find("does not exist"), std::string::npos);
}

// Rendering over an existing sequence folder that fails part-way (here: frame 1's colour cannot
// be written) must not leave the old sequence.json describing new frame 0 and old frame 1 as one
// complete sequence.
TEST(RenderSequenceToDir, FailedRenderOverASequenceDoesNotReadAsComplete) {
    const std::filesystem::path dir = swinup::test::fresh_test_dir("render");
    RenderSettings s = small_render("spinner", 2);
    render_sequence_to_dir(s, dir.string(), {});
    EXPECT_NO_THROW(sequence_read_info(dir.string()));
    // A non-empty folder in place of frame 1's colour makes its write (the rename) fail.
    std::filesystem::remove(dir / "color.0001.exr");
    std::filesystem::create_directories(dir / "color.0001.exr" / "blocker");
    s.camera = "orbit";
    EXPECT_THROW(render_sequence_to_dir(s, dir.string(), {}), SequenceError);
    EXPECT_THROW(sequence_read_info(dir.string()), SequenceError);
    std::filesystem::remove_all(dir);
}

TEST(RenderDeterminism, SameSeedSameBytes) {
    RenderSettings s = small_render("fence", 2);
    s.ground_truth = true;  // its samples depend on the seed
    s.seed = 7;
    const RenderedSequence a = render_sequence(s), b = render_sequence(s);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(a.frames[i].color.data, b.frames[i].color.data);
        EXPECT_EQ(a.frames[i].gt.data, b.frames[i].gt.data);
        EXPECT_EQ(a.frames[i].mv.data, b.frames[i].mv.data);
    }
    s.seed = 8;  // another seed moves the ground truth's sample positions
    const RenderedSequence c = render_sequence(s);
    EXPECT_NE(a.frames[0].gt.data, c.frames[0].gt.data);
    EXPECT_EQ(a.frames[0].color.data, c.frames[0].color.data);
}
