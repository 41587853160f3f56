// glTF loading: a small scene the test writes itself (buffers, a PNG texture, node transforms,
// a camera, materials, the MSFT_texture_dds extension, a missing image), malformed files with
// clear errors, and the two real scenes in ../shared/scenes (skipped with a message if absent).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "render/frame_renderer.h"
#include "render/gltf_loader.h"
#include "render/render_sequence.h"
#include "sequence/sequence.h"
#include "gltf_quad_scene.h"
#include "small_stack.h"
#include "test_dir.h"

using namespace swinup;
using namespace swinup::render;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

class GltfTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = swinup::test::fresh_test_dir("gltf");
        fs::create_directories(dir_);
        write_buffer();
        // A 2x2 texture of one grey: byte 128 (sRGB) everywhere.
        Image tex(2, 2, 3, 128.0f / 255.0f);
        png_write((dir_ / "grey.png").string(), tex, false);
    }
    void TearDown() override { fs::remove_all(dir_); }

    // The quad's buffer (gltf_quad_scene.h) as quad.bin.
    void write_buffer() {
        const std::vector<uint8_t> bytes = swinup::test::gltf_quad_buffer();
        std::ofstream(dir_ / "quad.bin", std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }

    // The quad scene with quad.bin and grey.png, and grey.dds through MSFT_texture_dds.
    json base_document() const {
        json doc = swinup::test::gltf_quad_document();
        doc["extensionsUsed"] = json::array({"MSFT_texture_dds"});
        doc["buffers"] = R"([{"uri": "quad.bin", "byteLength": 140}])"_json;
        doc["images"] = R"([{"uri": "grey.png"}, {"uri": "grey.dds", "mimeType": "image/vnd-ms.dds"}])"_json;
        doc["textures"] = R"([{"source": 0, "extensions": {"MSFT_texture_dds": {"source": 1}}}])"_json;
        return doc;
    }

    std::string write(const json& doc, const std::string& name = "scene.gltf") const {
        const std::string path = (dir_ / name).string();
        std::ofstream(path) << doc.dump(1);
        return path;
    }

    // The base document's texture as the image file `name` holding `bytes`, whose header claims
    // `size` ("WxH"): refused from its header, with a warning, and a flat colour.
    void expect_image_too_large(const std::string& name, const uint8_t* bytes, size_t count, const std::string& size) {
        std::ofstream(dir_ / name, std::ios::binary).write(reinterpret_cast<const char*>(bytes), std::streamsize(count));
        json doc = base_document();
        doc["images"][0]["uri"] = name;
        const auto scene = gltf_load_scene(write(doc));
        EXPECT_EQ(scene->materials[0].base_color_texture, -1);
        bool warned = false;
        for (const auto& w : scene->warnings) warned |= w.find(size + " is over the limit") != std::string::npos;
        EXPECT_TRUE(warned) << size;
    }

    // `doc` as a .glb: the 12-byte header, then one JSON chunk padded with spaces (its buffers
    // stay external files), and a BIN chunk holding `bin` when that is not empty, whose length
    // field claims `bin_claim` bytes (bin.size() when 0).
    std::string write_glb(const std::string& json_text, const std::string& name, const std::string& bin = {},
                          uint32_t bin_claim = 0) const {
        std::string chunk = json_text;
        chunk.append((4 - chunk.size() % 4) % 4, ' ');
        std::string glb = "glTF";
        auto u32 = [&glb](uint32_t v) {
            for (int i = 0; i < 4; ++i) glb.push_back(static_cast<char>(v >> (8 * i)));
        };
        u32(2);
        u32(static_cast<uint32_t>(20 + chunk.size() + (bin.empty() ? 0 : 8 + bin.size())));
        u32(static_cast<uint32_t>(chunk.size()));
        glb += "JSON" + chunk;
        if (!bin.empty()) {
            u32(bin_claim != 0 ? bin_claim : static_cast<uint32_t>(bin.size()));
            glb += std::string("BIN\0", 4) + bin;
        }
        const std::string path = (dir_ / name).string();
        std::ofstream(path, std::ios::binary) << glb;
        return path;
    }

    // The base document as text with "extras": `extras_text` at its top level.
    std::string with_extras(const std::string& extras_text) const {
        json doc = base_document();
        doc["extras"] = "EXTRAS";
        std::string text = doc.dump();
        text.replace(text.find("\"EXTRAS\""), 8, extras_text);
        return text;
    }

    std::string load_error(const std::string& path) const {
        try {
            gltf_load_scene(path);
        } catch (const RenderError& e) {
            return e.what();
        }
        return "";
    }

    fs::path dir_;
};

double srgb_to_linear_reference(double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); }

}  // namespace

TEST_F(GltfTest, LoadsGeometryTransformsCameraMaterialsAndTexture) {
    const auto scene = gltf_load_scene(write(base_document()));
    ASSERT_EQ(scene->triangles.size(), 4u);  // two quads
    scene->set_time(0, 0);
    const Aabb b = scene->world_bounds();
    // front: scale 2 at z=-5 -> [-2,2]^2; side: inside group (x+3) with matrix (z-7) -> [2,4]x[-1,1].
    EXPECT_NEAR(b.min.x, -2.0f, 1e-5f);
    EXPECT_NEAR(b.max.x, 4.0f, 1e-5f);
    EXPECT_NEAR(b.min.y, -2.0f, 1e-5f);
    EXPECT_NEAR(b.max.y, 2.0f, 1e-5f);
    EXPECT_NEAR(b.min.z, -7.0f, 1e-5f);
    EXPECT_NEAR(b.max.z, -5.0f, 1e-5f);

    ASSERT_EQ(scene->cameras.size(), 1u);
    const CameraPose& cam = scene->cameras[0];
    EXPECT_NEAR(cam.position.z, 1.0f, 1e-6f);
    EXPECT_LT(cam.target.z, cam.position.z);  // looks down -z
    EXPECT_NEAR(cam.fov_y_deg, 0.9 * 180.0 / M_PI, 1e-3);
    EXPECT_NEAR(cam.near, 0.1f, 1e-7f);
    EXPECT_NEAR(cam.far, 50.0f, 1e-5f);

    // Two file materials plus the default one for primitives without a material.
    ASSERT_GE(scene->materials.size(), 2u);
    const Material& textured = scene->materials[0];
    const Material& mask = scene->materials[1];
    EXPECT_EQ(textured.base_color_texture, 0);
    EXPECT_NEAR(textured.roughness, 0.9f, 1e-6f);
    EXPECT_EQ(mask.alpha_mode, alpha_mask);
    EXPECT_NEAR(mask.alpha_cutoff, 0.3f, 1e-6f);
    EXPECT_EQ(mask.double_sided, 1);
    EXPECT_NEAR(mask.base_color.y, 0.4f, 1e-6f);
    EXPECT_EQ(mask.base_color_texture, -1);

    // The PNG source was used (the DDS one ignored): 2x2 with its mip chain, linear values.
    ASSERT_EQ(scene->textures.size(), 1u);
    EXPECT_EQ(scene->textures[0].width, 2);
    EXPECT_EQ(scene->textures[0].levels, 2);
    EXPECT_NEAR(scene->texels[0].r, srgb_to_linear_reference(128.0 / 255.0), 1e-5);
    for (const auto& w : scene->warnings) EXPECT_EQ(w.find("grey.png"), std::string::npos) << w;
}

TEST_F(GltfTest, RendersFromTheFileCamera) {
    const std::string path = write(base_document());
    RenderSettings s;
    s.scene = path;
    s.camera = "static";
    s.frames = 1;
    s.render_width = s.display_width = 32;
    s.render_height = s.display_height = 32;
    s.ground_truth = false;
    const RenderedSequence seq = render_sequence(s);
    const Frame& f = seq.frames[0];
    // The centre pixel sees the front quad, 6 units along the view axis from the camera.
    const double n = 0.1, fa = 50.0, z = 6.0;
    EXPECT_NEAR(f.depth.at(16, 16, 0), fa * (z - n) / (z * (fa - n)), 1e-4);
    EXPECT_EQ(seq.info.camera_near, 0.1f);
    EXPECT_EQ(seq.info.camera_far, 50.0f);
    // A corner pixel sees the sky.
    EXPECT_EQ(f.depth.at(0, 0, 0), 1.0f);
}

TEST_F(GltfTest, MissingImageBecomesFlatColourWithWarning) {
    json doc = base_document();
    doc["images"][0]["uri"] = "absent.png";
    const auto scene = gltf_load_scene(write(doc));
    EXPECT_EQ(scene->materials[0].base_color_texture, -1);
    EXPECT_NEAR(scene->materials[0].base_color.x, 0.5f, 1e-6f);
    bool warned = false;
    for (const auto& w : scene->warnings) warned |= w.find("absent.png") != std::string::npos;
    EXPECT_TRUE(warned);
}

TEST_F(GltfTest, MalformedFilesGiveClearErrors) {
    {
        std::ofstream(dir_ / "broken.gltf") << "{ \"asset\": ";
        const std::string e = load_error((dir_ / "broken.gltf").string());
        EXPECT_NE(e.find("broken.gltf"), std::string::npos) << e;
    }
    {
        json doc = base_document();
        doc["accessors"][3]["count"] = 60;  // indices past the buffer view
        const std::string e = load_error(write(doc, "long.gltf"));
        EXPECT_NE(e.find("runs past"), std::string::npos) << e;
    }
    {
        // An index pointing at vertex 9 of 4: rewrite the index buffer.
        std::fstream f(dir_ / "quad.bin", std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(128 + 2);
        const uint16_t bad = 9;
        f.write(reinterpret_cast<const char*>(&bad), 2);
        f.close();
        const std::string e = load_error(write(base_document(), "badindex.gltf"));
        EXPECT_NE(e.find("out of range"), std::string::npos) << e;
        write_buffer();
    }
    {
        json doc = base_document();
        doc["meshes"][0]["primitives"][0]["material"] = 12;
        const std::string e = load_error(write(doc, "badmaterial.gltf"));
        EXPECT_NE(e.find("material 12"), std::string::npos) << e;
    }
    {
        json doc = base_document();
        doc["accessors"][0]["type"] = "VEC2";
        const std::string e = load_error(write(doc, "badtype.gltf"));
        EXPECT_NE(e.find("POSITION"), std::string::npos) << e;
    }
    {
        json doc = base_document();
        doc["scenes"][0]["nodes"] = json::array({3});  // only the camera
        const std::string e = load_error(write(doc, "empty.gltf"));
        EXPECT_NE(e.find("no triangles"), std::string::npos) << e;
    }
    {
        const std::string e = load_error((dir_ / "nothere.gltf").string());
        EXPECT_NE(e.find("nothere.gltf"), std::string::npos) << e;
    }
    {
        // A sampler index that names no sampler was read as "repeat" without a word.
        json doc = base_document();
        doc["textures"][0]["sampler"] = 9;
        const std::string e = load_error(write(doc, "badsampler.gltf"));
        EXPECT_NE(e.find("texture 0: sampler 9 does not exist"), std::string::npos) << e;
    }
    {
        json doc = base_document();
        doc["asset"]["version"] = "1.0";
        const std::string e = load_error(write(doc, "old.gltf"));
        EXPECT_NE(e.find("asset.version is \"1.0\""), std::string::npos) << e;
    }
}

// A 42 KB .gltf whose "extras" nest 20,000 arrays deep overflowed the stack in tinygltf, which
// converts JSON to its own values one stack frame a level: refused before tinygltf sees it (on a
// 256 KiB stack here), naming the depth (the document and 20,000 arrays) and the limit. The same
// for the JSON chunk of a .glb.
TEST_F(GltfTest, DeeplyNestedJsonIsRefusedBeforeTinygltfReadsIt) {
    const std::string deep = with_extras(std::string(20000, '[') + std::string(20000, ']'));
    const std::string gltf = (dir_ / "deep.gltf").string();
    std::ofstream(gltf) << deep;
    const std::string glb = write_glb(deep, "deep.glb");
    swinup::test::run_on_small_stack([&] {
        for (const std::string& path : {gltf, glb}) {
            const std::string e = load_error(path);
            EXPECT_NE(e.find(path), std::string::npos) << e;
            EXPECT_NE(e.find("nested 20001 levels deep, over the limit of 128"), std::string::npos) << e;
        }
    });
    // Within the limit both load, with the buffer and texture found next to the file.
    const std::string shallow = with_extras(std::string(20, '[') + std::string(20, ']'));
    std::ofstream(dir_ / "shallow.gltf") << shallow;
    for (const std::string& path : {(dir_ / "shallow.gltf").string(), write_glb(shallow, "shallow.glb")}) {
        const auto scene = gltf_load_scene(path);
        EXPECT_GE(scene->materials.at(0).base_color_texture, 0) << path;
    }
}

TEST_F(GltfTest, AccessorsThatWrapAroundOrOutgrowTheBufferAreRejectedBeforeAllocating) {
    {
        // 2^62 positions: was a std::length_error (no file named); 10^9 allocated 12 GB first.
        json doc = base_document();
        doc["accessors"][0]["count"] = uint64_t{1} << 62;
        const std::string e = load_error(write(doc, "count.gltf"));
        EXPECT_NE(e.find("count.gltf"), std::string::npos) << e;
        EXPECT_NE(e.find("runs past"), std::string::npos) << e;
    }
    {
        // byteOffset 2^64 - 8 wrapped the end check around and read 8 bytes before the buffer.
        json doc = base_document();
        doc["accessors"][0]["byteOffset"] = ~uint64_t{0} - 7;
        const std::string e = load_error(write(doc, "offset.gltf"));
        EXPECT_NE(e.find("runs past"), std::string::npos) << e;
    }
    {
        // 5 indices: the last two were dropped without a word.
        json doc = base_document();
        doc["accessors"][3]["count"] = 5;
        const std::string e = load_error(write(doc, "five.gltf"));
        EXPECT_NE(e.find("not a multiple of 3"), std::string::npos) << e;
    }
}

namespace {

std::string file_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string base64(const std::string& bytes) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string text;
    for (size_t i = 0; i < bytes.size(); i += 3) {
        uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
        if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
        if (i + 2 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 2]);
        for (size_t k = 0; k < 4; ++k) text += i + k <= bytes.size() ? digits[(v >> (18 - 6 * k)) & 63] : '=';
    }
    return text;
}

}  // namespace

// A PNG whose first IDAT chunk is empty (legal: the chunks' data are concatenated) had stb_image
// memcpy 0 bytes to a null pointer, undefined behaviour that UBSan reports (fuzz_gltf_binary,
// fuzz/corpus/gltf_binary/empty_first_idat.glb). The loader now drops empty IDAT chunks before
// decoding: the texture is grey.png's, and scripts/sanitize.sh runs this test under UBSan.
TEST_F(GltfTest, APngWithAnEmptyFirstIdatChunkDecodesToItsPixels) {
    std::string png = file_bytes(dir_ / "grey.png");
    const size_t idat = png.find("IDAT");
    ASSERT_NE(idat, std::string::npos);
    ASSERT_GE(idat, 4u);
    // length 0, "IDAT", no data, the CRC of "IDAT" (stb_image does not check it; a real one anyway)
    const std::string empty_idat("\0\0\0\0IDAT\x35\xaf\x06\x1e", 12);
    png.insert(idat - 4, empty_idat);
    std::ofstream(dir_ / "grey.png", std::ios::binary | std::ios::trunc).write(png.data(), std::streamsize(png.size()));
    const auto scene = gltf_load_scene(write(base_document()));
    ASSERT_EQ(scene->textures.size(), 1u);
    EXPECT_EQ(scene->textures[0].width, 2);
    EXPECT_NEAR(scene->texels[0].r, srgb_to_linear_reference(128.0 / 255.0), 1e-5);
    for (const auto& w : scene->warnings) EXPECT_EQ(w.find("grey.png"), std::string::npos) << w;
}

// tinygltf hands an image in a buffer view to the decoder as &buffer.data[byteOffset] with
// byteLength, without checking the view against its buffer: stb_image read past the heap block
// (ASan, fuzz_gltf_binary), or from anywhere when the view began past the buffer or wrapped
// around 2^64. Every view is now checked against its buffer before tinygltf reads the file, and
// refused naming it (and the image it holds). Here the PNG is in a data: URI buffer of a .gltf.
TEST_F(GltfTest, BufferViewsOutsideTheirBufferAreRefusedBeforeTinygltfReadsThem) {
    const std::string png = file_bytes(dir_ / "grey.png");
    auto with_image_view = [&](uint64_t offset, uint64_t length) {
        json doc = base_document();
        doc["buffers"].push_back({{"uri", "data:application/octet-stream;base64," + base64(png)},
                                  {"byteLength", png.size()}});
        doc["bufferViews"].push_back({{"buffer", 1}, {"byteOffset", offset}, {"byteLength", length}});
        doc["images"][0] = {{"bufferView", 2}, {"mimeType", "image/png"}};
        return doc;
    };
    // Exactly the PNG: loads, with the texture.
    EXPECT_GE(gltf_load_scene(write(with_image_view(0, png.size()), "fits.gltf"))->materials.at(0).base_color_texture, 0);
    const std::string size = std::to_string(png.size());
    const struct {
        uint64_t offset, length;
        std::string what;
    } cases[] = {
        {0, png.size() + 64, "byteOffset 0 + byteLength " + std::to_string(png.size() + 64)},  // runs past
        {png.size() + 8, 16, "byteOffset " + std::to_string(png.size() + 8) + " + byteLength 16"},  // begins past
        {~uint64_t{0} - 7, 16, "byteOffset 18446744073709551608 + byteLength 16"},  // wraps around
    };
    for (const auto& c : cases) {
        const std::string path = write(with_image_view(c.offset, c.length), "past.gltf");
        const std::string e = load_error(path);
        EXPECT_NE(e.find(path), std::string::npos) << e;
        EXPECT_NE(e.find("bufferView[2] (the bytes of image[0]): " + c.what + " runs past the end of buffer[1], " +
                         size + " bytes long"),
                  std::string::npos)
            << e;
    }
    // A view no accessor or image uses is held to its buffer too, and must name one that exists;
    // an image must name a view that exists.
    json doc = base_document();
    doc["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", 100}, {"byteLength", 41}});
    std::string e = load_error(write(doc, "unused.gltf"));
    EXPECT_NE(e.find("bufferView[2]: byteOffset 100 + byteLength 41 runs past the end of buffer[0], 140 bytes long"),
              std::string::npos)
        << e;
    doc = base_document();
    doc["bufferViews"].push_back({{"buffer", 3}, {"byteLength", 4}});
    e = load_error(write(doc, "nobuffer.gltf"));
    EXPECT_NE(e.find("bufferView[2]: buffer 3 does not exist (the file has 1)"), std::string::npos) << e;
    doc = base_document();
    doc["images"][0] = {{"bufferView", 7}, {"mimeType", "image/png"}};
    e = load_error(write(doc, "noview.gltf"));
    EXPECT_NE(e.find("image[0]: bufferView 7 does not exist (the file has 2)"), std::string::npos) << e;
}

// tinygltf checks a .glb's BIN chunk length against the GLB's length counted from the chunk's
// header, not from its data: a chunk claiming 8 bytes more than it holds gave a buffer whose
// last 8 bytes were read from past the end of the file. Refused, naming the buffer.
TEST_F(GltfTest, AGlbBufferLongerThanItsBinChunkIsRefused) {
    const std::string bin = file_bytes(dir_ / "quad.bin");  // 140 bytes
    json doc = base_document();
    doc["buffers"][0] = {{"byteLength", bin.size()}};
    // The whole chunk: loads.
    EXPECT_EQ(gltf_load_scene(write_glb(doc.dump(), "bin.glb", bin))->triangles.size(), 4u);
    doc["buffers"][0]["byteLength"] = bin.size() + 8;
    const std::string path = write_glb(doc.dump(), "short_bin.glb", bin, static_cast<uint32_t>(bin.size() + 8));
    const std::string e = load_error(path);
    EXPECT_NE(e.find(path), std::string::npos) << e;
    EXPECT_NE(e.find("buffer[0]: byteLength 148 is more than the 140 bytes of the file's BIN chunk"), std::string::npos)
        << e;
}

// The inputs with which fuzz_gltf_binary found the buffer views above (fuzz/corpus/gltf_binary/,
// where the fuzz runs start from them too): refused, naming the file and the view.
TEST(GltfFuzzInputs, ImageBufferViewsPastTheirBufferAreRefused) {
    const fs::path corpus = fs::path(SWINUP_FUZZ_CORPUS_DIR) / "gltf_binary";
    const std::pair<const char*, const char*> inputs[] = {
        {"image_view_past_buffer.glb", "bufferView[0]: byteOffset 0 + byteLength 128 runs past the end of buffer[0], 116 bytes long"},
        {"image_view_runs_past_buffer.glb",
         "bufferView[2] (the bytes of image[0]): byteOffset 140 + byteLength 92 runs past the end of buffer[0], 222 bytes long"},
    };
    for (const auto& [name, what] : inputs) {
        const std::string path = (corpus / name).string();
        ASSERT_TRUE(fs::exists(path)) << path;
        try {
            gltf_load_scene(path);
            ADD_FAILURE() << path << " loaded";
        } catch (const RenderError& e) {
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        }
    }
}

TEST_F(GltfTest, ANodeReachedTwiceIsRejected) {
    // Node 1 lists node 2 twice: loaded with the quad doubled; the same at each of 40 levels
    // walked the tree 2^40 times (a hang). A self-cycle was only caught 256 levels deep.
    json doc = base_document();
    doc["nodes"][1]["children"] = json::array({2, 2});
    std::string e = load_error(write(doc, "twice.gltf"));
    EXPECT_NE(e.find("node 2 is reached twice"), std::string::npos) << e;
    doc = base_document();
    doc["nodes"][0]["children"] = json::array({0, 0});
    e = load_error(write(doc, "cycle.gltf"));
    EXPECT_NE(e.find("node 0 is reached twice"), std::string::npos) << e;
}

TEST_F(GltfTest, NonFiniteTransformsAndExtentsAreNamed) {
    // 1e300 is Inf as a float: the message was "camera: position and target coincide".
    json doc = base_document();
    doc["nodes"][0]["scale"] = json::array({1e300, 1, 1});
    std::string e = load_error(write(doc, "scale.gltf"));
    EXPECT_NE(e.find("node 0 (\"front\")"), std::string::npos) << e;
    EXPECT_NE(e.find("not finite"), std::string::npos) << e;
    // Finite vertices at +-3e38: the extent overflows (was the same camera message).
    doc = base_document();
    doc["nodes"][0]["scale"] = json::array({3e38, 1, 1});
    e = load_error(write(doc, "extent.gltf"));
    EXPECT_NE(e.find("extent.gltf"), std::string::npos) << e;
    EXPECT_NE(e.find("extent is not finite"), std::string::npos) << e;
}

TEST_F(GltfTest, InvalidCameraPlanesAreRejected) {
    // znear <= 0 silently became 0.01 and a zfar below znear silently came from the bounds.
    const std::vector<std::pair<json, std::string>> cases = {
        {{{"yfov", 0.9}, {"znear", 0.0}}, "znear = 0 must be"},
        {{{"yfov", 0.9}, {"znear", -1.0}, {"zfar", 10.0}}, "znear = -1 must be"},
        {{{"yfov", 0.9}, {"znear", 10.0}, {"zfar", 1.0}}, "zfar = 1 must be greater"},
        {{{"yfov", 0.9}, {"znear", 0.1}, {"zfar", -5.0}}, "zfar = -5 must be greater"},
        // No zfar: the far plane goes ten times beyond znear, Inf as a float here (the scene
        // loaded with an infinite far plane).
        {{{"yfov", 0.9}, {"znear", 3e38}}, "znear = 3e+38 leaves no room for a far plane"},
    };
    for (const auto& [perspective, fragment] : cases) {
        json doc = base_document();
        doc["cameras"][0]["perspective"] = perspective;
        const std::string e = load_error(write(doc, "camera.gltf"));
        EXPECT_NE(e.find("camera 0"), std::string::npos) << e;
        EXPECT_NE(e.find(fragment), std::string::npos) << "expected '" << fragment << "' in: " << e;
    }
}

TEST_F(GltfTest, ACameraThatCannotBePlacedIsNamed) {
    // Without a camera in the file one is placed from the triangles' bounds. Triangles at one
    // point (scale 0), or spanning less than a float step where they are, left it at what it
    // looks at: the scene loaded and rendering stopped at "camera: position and target coincide",
    // naming neither the file nor the cause (found by fuzz_gltf_text).
    for (const json& node : {json{{"mesh", 0}, {"scale", {0, 0, 0}}},
                             json{{"mesh", 0}, {"scale", {1e-6, 1e-6, 1e-6}}, {"translation", {1e7, 1e7, 1e7}}}}) {
        json doc = base_document();
        doc["nodes"] = json::array({node});
        doc["scenes"][0]["nodes"] = json::array({0});
        const std::string e = load_error(write(doc, "point.gltf"));
        EXPECT_NE(e.find("point.gltf"), std::string::npos) << e;
        EXPECT_NE(e.find("too little to place a camera"), std::string::npos) << e;
    }
    // A camera of the file far from the origin: the point ahead of it that presets orbit
    // rounded to its own position.
    json far = base_document();
    far["nodes"][3]["translation"] = json::array({0, 0, 1e30});
    const std::string e = load_error(write(far, "far.gltf"));
    EXPECT_NE(e.find("far.gltf"), std::string::npos) << e;
    EXPECT_NE(e.find("too far from the origin"), std::string::npos) << e;
    // A small scene near the origin still gets its camera.
    json doc = base_document();
    doc["nodes"] = json::array({json{{"mesh", 0}, {"scale", {1e-3, 1e-3, 1e-3}}}});
    doc["scenes"][0]["nodes"] = json::array({0});
    const auto scene = gltf_load_scene(write(doc, "small.gltf"));
    ASSERT_EQ(scene->cameras.size(), 1u);
    EXPECT_GT(length(scene->cameras[0].target - scene->cameras[0].position), 0.0f);
    EXPECT_GT(scene->cameras[0].near, 0.0f);
}

TEST_F(GltfTest, MaterialFactorsOutsideTheirRangeAreRejected) {
    // An emissive factor of 1e300 (Inf as a float) gave Inf pixels in HDR; roughness -5 and
    // metallic 7 were used as they were.
    json doc = base_document();
    doc["materials"][1]["emissiveFactor"] = json::array({1e300, 0, 0});
    std::string e = load_error(write(doc, "emissive.gltf"));
    EXPECT_NE(e.find("material 1 (\"mask\"): emissiveFactor[0] = 1e+300 is outside [0, 1]"), std::string::npos) << e;
    doc = base_document();
    doc["materials"][0]["pbrMetallicRoughness"]["roughnessFactor"] = -5;
    e = load_error(write(doc, "rough.gltf"));
    EXPECT_NE(e.find("roughnessFactor = -5"), std::string::npos) << e;
}

TEST_F(GltfTest, AnImageClaimingAHugeSizeIsNotDecoded) {
    // A PNG header claiming 10000x10000 (a JPEG's of 16000x16000 with a few hundred bytes took
    // 97 s and 15 GB): refused from its header, with a warning, and a flat colour.
    const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R',
                           0, 0, 0x27, 0x10, 0, 0, 0x27, 0x10, 8, 2, 0, 0, 0, 0, 0, 0, 0};
    expect_image_too_large("huge.png", png, sizeof png, "10000x10000");
}

// stb_image was compiled with every decoder, so a texture in PPM (or BMP, GIF, TGA, PSD, HDR),
// which glTF does not allow, loaded without a word. Now an image is PNG or JPEG by its bytes, and
// by its mimeType where one is given, or the load fails naming the image.
TEST_F(GltfTest, ImagesThatAreNotPngOrJpegAreRefused) {
    auto refused = [&](const json& doc, const std::string& name) {
        const std::string path = write(doc, name);
        const std::string e = load_error(path);
        EXPECT_NE(e.find(path), std::string::npos) << e;
        EXPECT_NE(e.find("glTF textures are PNG or JPEG"), std::string::npos) << e;
        return e;
    };
    // A 1x1 PPM.
    std::ofstream(dir_ / "tex.ppm", std::ios::binary) << "P6\n1 1\n255\n" << std::string("\x80\x80\x80", 3);
    json doc = base_document();
    doc["images"][0]["uri"] = "tex.ppm";
    std::string e = refused(doc, "ppm.gltf");
    EXPECT_NE(e.find("image[0] (\"tex.ppm\"): the image is PNM (PPM/PGM/PBM), not PNG or JPEG"), std::string::npos) << e;
    // Named .png, still a PPM.
    fs::copy_file(dir_ / "tex.ppm", dir_ / "disguised.png");
    doc["images"][0]["uri"] = "disguised.png";
    e = refused(doc, "disguised.gltf");
    EXPECT_NE(e.find("image[0] (\"disguised.png\"): the image is PNM"), std::string::npos) << e;
    // WebP bytes (EXT_texture_webp's format).
    std::ofstream(dir_ / "tex.webp", std::ios::binary) << std::string("RIFF\x1a\0\0\0WEBPVP8L", 16) << std::string(14, '\0');
    doc["images"][0]["uri"] = "tex.webp";
    e = refused(doc, "webp.gltf");
    EXPECT_NE(e.find("image[0] (\"tex.webp\"): the image is WebP, not PNG or JPEG"), std::string::npos) << e;
    // An image in a buffer says what it is by its mimeType (KHR_texture_basisu's KTX2 here).
    doc = base_document();
    doc["images"][0] = {{"name", "basis"}, {"bufferView", 1}, {"mimeType", "image/ktx2"}};
    e = refused(doc, "ktx2.gltf");
    EXPECT_NE(e.find("image[0] (\"basis\"): mimeType \"image/ktx2\""), std::string::npos) << e;
    // And a data URI by its media type: a BMP, which stb_image would also have decoded.
    doc = base_document();
    doc["images"][0] = {{"uri", "data:image/bmp;base64,Qk0="}};
    e = refused(doc, "bmp.gltf");
    EXPECT_NE(e.find("image[0]: mimeType \"image/bmp\""), std::string::npos) << e;
}

// The JPEG decoder is still there: a JPEG header claiming 16000x16000 is read (and refused for
// its size, like the PNG above) rather than failing as an unknown format.
TEST_F(GltfTest, JpegImagesAreStillRead) {
    const uint8_t jpeg[] = {0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x3e, 0x80, 0x3e, 0x80, 0x03,
                            0x01, 0x11, 0x00, 0x02, 0x11, 0x00, 0x03, 0x11, 0x00};
    expect_image_too_large("huge.jpg", jpeg, sizeof jpeg, "16000x16000");
}

TEST_F(GltfTest, LoaderWarningsReachTheRenderSettings) {
    // Scene::warnings was never shown: a missing texture was only visible as a flat colour.
    json doc = base_document();
    doc["images"][0]["uri"] = "absent.png";
    RenderSettings s;
    s.scene = write(doc);
    s.camera = "static";
    s.frames = 1;
    s.render_width = s.display_width = 8;
    s.render_height = s.display_height = 8;
    s.ground_truth = false;
    std::vector<std::string> warnings;
    s.on_warning = [&](const std::string& w) { warnings.push_back(w); };
    render_sequence(s);
    bool named = false;
    for (const auto& w : warnings) named |= w.find(s.scene) != std::string::npos && w.find("absent.png") != std::string::npos;
    EXPECT_TRUE(named);
    // The absent grey.dds (image 1, ignored in favour of the PNG) is no loss and not reported.
    for (const auto& w : warnings) {
        EXPECT_EQ(w.find("grey.dds"), std::string::npos) << w;
        EXPECT_EQ(w.find("image[1]"), std::string::npos) << w;
    }
}

namespace {

void check_shared_scene(const std::string& file, size_t triangles, size_t cameras, size_t textures) {
    const std::string path = std::string(SWINUP_SHARED_DIR) + "/scenes/" + file;
    if (!fs::exists(path)) GTEST_SKIP() << path << " is absent: the shared scenes are not in this checkout";
    const auto scene = gltf_load_scene(path);
    EXPECT_EQ(scene->triangles.size(), triangles);
    EXPECT_EQ(scene->cameras.size(), cameras);
    EXPECT_EQ(scene->textures.size(), textures);
    // A small frame from the first camera: mostly geometry, no NaN.
    scene->set_time(0, 0);
    FrameRequest r;
    r.params.camera = camera_from_pose(scene->cameras[0], 16.0f / 9.0f);
    r.params.previous_camera = r.params.camera;
    r.params.render_width = r.params.display_width = 48;
    r.params.render_height = r.params.display_height = 27;
    r.ground_truth = false;
    const Frame f = render_frame_cpu(scene->view(), r);
    int geometry = 0;
    for (float d : f.depth.data) geometry += d < 1.0f;
    EXPECT_GT(geometry, 48 * 27 * 8 / 10);
    for (float c : f.color.data) ASSERT_TRUE(std::isfinite(c));
}

}  // namespace

TEST(GltfSharedScenes, BreakfastRoom) { check_shared_scene("breakfast_room/BreakfastRoom.gltf", 262687, 3, 3); }
TEST(GltfSharedScenes, GasStation) { check_shared_scene("gas_station/GasStation.gltf", 99002, 2, 0); }
