// Writes the seed corpora of the fuzz harnesses (fuzz/corpus/<harness>/) with the project's own
// writers and the shipped weights:  fuzz_make_seeds <repository root>
// Each seed is small (the whole set stays far under a megabyte) and valid, or for the weights
// file a valid start: fuzzing mutates what the readers accept, from there.
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfOutputFile.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gltf_quad_scene.h"
#include "sequence/sequence.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<uint8_t> read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const void* data, size_t size) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) throw std::runtime_error("cannot write " + path.string());
    std::printf("  %s (%zu bytes)\n", path.c_str(), size);
}

void write_text(const fs::path& path, const std::string& text) { write_bytes(path, text.data(), text.size()); }

fs::path folder(const fs::path& corpus, const char* harness) {
    const fs::path dir = corpus / harness;
    fs::create_directories(dir);
    return dir;
}

// Weights: the shipped files' headers (weights_header) and their starts (weights_file; a whole
// file is 1.4 MB, and scripts/fuzz.sh adds the shipped files themselves as seeds).
void weights_seeds(const fs::path& root, const fs::path& corpus) {
    for (const char* variant : {"lite", "full"}) {
        const std::vector<uint8_t> file = read_bytes(root / "weights" / (std::string(variant) + ".safetensors"));
        uint64_t n = 0;
        for (int i = 7; i >= 0; --i) n = (n << 8) | file[static_cast<size_t>(i)];
        write_bytes(folder(corpus, "weights_header") / (std::string(variant) + ".json"), file.data() + 8, n);
        const size_t start = std::min(file.size(), static_cast<size_t>(8 + n + 512));
        write_bytes(folder(corpus, "weights_file") / (std::string(variant) + "_start.safetensors"), file.data(), start);
    }
}

void sequence_seeds(const fs::path& corpus) {
    swinup::SequenceInfo info;
    info.render_width = 8;
    info.render_height = 6;
    info.display_width = 16;
    info.display_height = 12;
    info.frame_count = 3;
    info.jitter_x = {0.25f, -0.25f, 0.125f};
    info.jitter_y = {-0.125f, 0.375f, 0.0f};
    info.exposure = {1.0f, 0.5f, 2.0f};
    info.reset = {0, 1, 0};
    info.hdr = true;
    info.mv_jittered = true;
    info.mv_sign = -1;
    info.has_mv_display = true;
    info.has_ground_truth = true;
    info.scene = "quad";
    info.generator = "fuzz_make_seeds";
    write_text(folder(corpus, "sequence_json") / "three_frames.json", swinup::sequence_info_to_json(info));
    swinup::SequenceInfo one;
    one.render_width = one.display_width = 4;
    one.render_height = one.display_height = 4;
    one.frame_count = 1;
    one.jitter_x = one.jitter_y = {0.0f};
    one.exposure = {1.0f};
    one.reset = {0};
    write_text(folder(corpus, "sequence_json") / "one_frame.json", swinup::sequence_info_to_json(one));
}

void camera_path_seeds(const fs::path& corpus) {
    const json three = {{"fov_y_deg", 50}, {"near", 0.05}, {"far", 200},
                        {"keys", {{{"time", 0.0}, {"position", {0, 1, 5}}, {"target", {0, 0, 0}}},
                                  {{"time", 1.5}, {"position", {2, 1, 4}}, {"target", {0, 0.5, 0}}},
                                  {{"time", 3.0}, {"position", {4, 2, 0}}, {"target", {0, 0, -1}}}}}};
    write_text(folder(corpus, "camera_path") / "three_keys.json", three.dump(1));
    const json one = {{"keys", {{{"time", 0.0}, {"position", {1, 2, 3}}, {"target", {0, 0, 0}}}}}};
    write_text(folder(corpus, "camera_path") / "one_key.json", one.dump());
}

swinup::Image ramp(int width, int height, int channels) {
    swinup::Image image(width, height, channels);
    for (size_t i = 0; i < image.data.size(); ++i) image.data[i] = static_cast<float>(i % 17) * 0.25f - 1.0f;
    return image;
}

// A sequence's frame files as the sequence writer stores them (ZIP), and two other
// compressions written through OpenEXR directly (other renderers' files).
void exr_seeds(const fs::path& corpus) {
    const fs::path dir = folder(corpus, "exr_frame");
    swinup::exr_write((dir / "color_rgba_half.exr").string(), ramp(4, 3, 4), true);
    swinup::exr_write((dir / "color_rgb_half.exr").string(), ramp(3, 2, 3), true);
    swinup::exr_write((dir / "depth_z_float.exr").string(), ramp(4, 3, 1), false);
    swinup::exr_write((dir / "mv_rg_float.exr").string(), ramp(4, 3, 2), false);
    for (const auto& [name, compression] : {std::pair{"color_rgba_none.exr", Imf::NO_COMPRESSION},
                                            std::pair{"color_rgba_piz.exr", Imf::PIZ_COMPRESSION}}) {
        const swinup::Image image = ramp(4, 3, 4);
        Imf::Header header(image.width, image.height);
        header.compression() = compression;
        const char* channels[] = {"R", "G", "B", "A"};
        Imf::FrameBuffer buffer;
        for (int c = 0; c < 4; ++c) {
            header.channels().insert(channels[c], Imf::Channel(Imf::FLOAT));
            buffer.insert(channels[c], Imf::Slice(Imf::FLOAT, const_cast<char*>(reinterpret_cast<const char*>(image.data.data() + c)),
                                                  4 * sizeof(float), 4 * sizeof(float) * static_cast<size_t>(image.width)));
        }
        const std::string path = (dir / name).string();
        Imf::OutputFile file(path.c_str(), header);
        file.setFrameBuffer(buffer);
        file.writePixels(image.height);
        std::printf("  %s\n", path.c_str());
    }
}

std::string base64(const std::vector<uint8_t>& bytes) {
    static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (size_t i = 0; i < bytes.size(); i += 3) {
        const uint32_t a = bytes[i], b = i + 1 < bytes.size() ? bytes[i + 1] : 0u, c = i + 2 < bytes.size() ? bytes[i + 2] : 0u;
        const uint32_t triple = (a << 16) | (b << 8) | c;
        out += digits[(triple >> 18) & 63];
        out += digits[(triple >> 12) & 63];
        out += i + 1 < bytes.size() ? digits[(triple >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? digits[triple & 63] : '=';
    }
    return out;
}

template <typename T>
void append(std::vector<uint8_t>& bytes, const T* values, size_t count) {
    const auto* p = reinterpret_cast<const uint8_t*>(values);
    bytes.insert(bytes.end(), p, p + count * sizeof(T));
}

// The glTF loader test's scene (tests/support/gltf_quad_scene.h) with a sampler, a specular
// extension, an emissive factor, a rotated group and a primitive without uvs; here
// self-contained: the buffer and a 2x2 PNG texture (png_write's) inside the file, as data: URIs
// (.gltf) or the binary chunk (.glb).
void gltf_seeds(const fs::path& corpus) {
    const std::vector<uint8_t> buffer = swinup::test::gltf_quad_buffer();

    const fs::path png_path = fs::temp_directory_path() / "swinup_fuzz_seed_texture.png";
    swinup::Image texture(2, 2, 3, 0.5f);
    texture.at(0, 0, 0) = 1.0f;
    swinup::png_write(png_path.string(), texture, false);
    const std::vector<uint8_t> png = read_bytes(png_path);
    fs::remove(png_path);

    json doc = swinup::test::gltf_quad_document();
    doc["extensionsUsed"] = json::array({"KHR_materials_specular"});
    doc["samplers"] = R"([{"wrapS": 33071, "wrapT": 33648}])"_json;
    doc["textures"] = R"([{"source": 0, "sampler": 0}])"_json;
    doc["materials"][0]["extensions"] = R"({"KHR_materials_specular": {"specularFactor": 0.5}})"_json;
    doc["materials"][1]["emissiveFactor"] = {0.1, 0, 0};
    doc["meshes"][1]["primitives"][0]["attributes"].erase("TEXCOORD_0");
    doc["nodes"][1]["rotation"] = {0, 0.38268343, 0, 0.92387953};

    json text = doc;
    text["buffers"] = {{{"byteLength", buffer.size()}, {"uri", "data:application/octet-stream;base64," + base64(buffer)}}};
    text["images"] = {{{"uri", "data:image/png;base64," + base64(png)}}};
    write_text(folder(corpus, "gltf_text") / "textured_quad.gltf", text.dump(1));

    // .glb: the PNG follows the geometry in the one buffer, through a third buffer view.
    json binary = doc;
    std::vector<uint8_t> bin = buffer;
    bin.resize((bin.size() + 3) / 4 * 4, 0);
    const size_t png_offset = bin.size();
    bin.insert(bin.end(), png.begin(), png.end());
    bin.resize((bin.size() + 3) / 4 * 4, 0);
    binary["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", png_offset}, {"byteLength", png.size()}});
    binary["buffers"] = {{{"byteLength", bin.size()}}};
    binary["images"] = {{{"bufferView", 2}, {"mimeType", "image/png"}}};
    std::string json_chunk = binary.dump();
    json_chunk.resize((json_chunk.size() + 3) / 4 * 4, ' ');
    std::vector<uint8_t> glb;
    const auto u32 = [&](uint32_t v) { append(glb, &v, 1); };
    u32(0x46546C67);  // "glTF"
    u32(2);
    u32(static_cast<uint32_t>(12 + 8 + json_chunk.size() + 8 + bin.size()));
    u32(static_cast<uint32_t>(json_chunk.size()));
    u32(0x4E4F534A);  // "JSON"
    glb.insert(glb.end(), json_chunk.begin(), json_chunk.end());
    u32(static_cast<uint32_t>(bin.size()));
    u32(0x004E4942);  // "BIN"
    glb.insert(glb.end(), bin.begin(), bin.end());
    write_bytes(folder(corpus, "gltf_binary") / "textured_quad.glb", glb.data(), glb.size());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <repository root>  (writes fuzz/corpus/<harness>/)\n", argv[0]);
        return 2;
    }
    const fs::path root = argv[1];
    const fs::path corpus = root / "fuzz" / "corpus";
    try {
        weights_seeds(root, corpus);
        sequence_seeds(corpus);
        camera_path_seeds(corpus);
        exr_seeds(corpus);
        gltf_seeds(corpus);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_make_seeds: %s\n", e.what());
        return 1;
    }
    return 0;
}
