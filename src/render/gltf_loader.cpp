// The one translation unit that compiles tinygltf and stb_image.
#include "render/gltf_loader.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

// nlohmann/json.hpp comes in here, as in every other file; tinygltf's own include of it
// (TINYGLTF_NO_INCLUDE_JSON turns it off) would give its classes hidden visibility in this file.
#include "text/json_repeated_key.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wunused-function"
// stb_image with the decoders of glTF's two image formats only: compiled with all of them, a PPM,
// BMP, GIF, TGA, PSD or HDR texture was decoded without a word, through decoders a file from
// anywhere did not need to reach. tinygltf's own image loader (all of stb_image, 16-bit PNG) is
// left out: load_image below is the one that decodes.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_NO_STDIO_WARNINGS
#include <stb_image.h>
#define TINYGLTF_IMPLEMENTATION
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_INCLUDE_STB_IMAGE
#define TINYGLTF_NO_INCLUDE_JSON
#include <tiny_gltf.h>
#pragma GCC diagnostic pop

#include "render/render_sequence.h"
#include "render/texture_build.h"

namespace swinup::render {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw RenderError("glTF " + path + ": " + what);
}

// A number from the file as people write it ("1e+300", "0.1"), not std::to_string's "%f".
std::string number_text(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", v);
    return text;
}

bool ends_with(const std::string& s, const std::string& suffix) {
    if (s.size() < suffix.size()) return false;
    return std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(),
                      [](char a, char b) { return std::tolower(a) == std::tolower(b); });
}

// A texture of 8192x8192 (2^26 pixels) becomes about 1.4 GB of float RGBA texels with its mips.
constexpr int64_t kMaxImagePixels = int64_t{1} << 26;

// "image[3]", with the image's file or name when it has one.
std::string image_label(const tinygltf::Image& image, int index) {
    std::string label = "image[" + std::to_string(index) + "]";
    const std::string& name = !image.uri.empty() ? image.uri : image.name;
    if (!name.empty()) label += " (\"" + name + "\")";
    return label;
}

bool starts_with_bytes(const unsigned char* bytes, int size, const char* magic, int magic_size) {
    return size >= magic_size && std::memcmp(bytes, magic, static_cast<size_t>(magic_size)) == 0;
}

bool is_png(const unsigned char* bytes, int size) { return starts_with_bytes(bytes, size, "\x89PNG\r\n\x1a\n", 8); }
bool is_jpeg(const unsigned char* bytes, int size) { return starts_with_bytes(bytes, size, "\xff\xd8\xff", 3); }

// What image bytes that are neither PNG nor JPEG look like, for the message.
std::string other_image_format(const unsigned char* bytes, int size) {
    if (starts_with_bytes(bytes, size, "RIFF", 4) && size >= 12 && std::memcmp(bytes + 8, "WEBP", 4) == 0) return "WebP";
    if (starts_with_bytes(bytes, size, "\xabKTX 20\xbb", 8)) return "KTX2";
    if (starts_with_bytes(bytes, size, "\xabKTX 11\xbb", 8)) return "KTX";
    if (starts_with_bytes(bytes, size, "DDS ", 4)) return "DDS";
    if (starts_with_bytes(bytes, size, "GIF8", 4)) return "GIF";
    if (starts_with_bytes(bytes, size, "BM", 2)) return "BMP";
    if (starts_with_bytes(bytes, size, "8BPS", 4)) return "PSD";
    if (starts_with_bytes(bytes, size, "#?", 2)) return "Radiance HDR";
    if (size >= 2 && bytes[0] == 'P' && bytes[1] >= '1' && bytes[1] <= '7') return "PNM (PPM/PGM/PBM)";
    return "of an unknown format";
}

// A PNG's bytes without its empty IDAT chunks; empty when it has none (decode the bytes as given).
// stb_image copies each IDAT chunk's data into a buffer it allocates at the first non-empty one,
// so an empty first IDAT has it memcpy 0 bytes to a null pointer: undefined behaviour (UBSan's
// nonnull-attribute, found by fuzz_gltf_binary). The chunks hold no data, so the image without them
// decodes to the same pixels (stb_image checks no CRC and no chunk order beyond IHDR first). A
// chunk whose length runs past the end stops the walk: the rest is copied as it is and
// stb_image reports the corrupt PNG.
std::vector<unsigned char> png_without_empty_idat(const unsigned char* bytes, int size) {
    std::vector<unsigned char> out;
    size_t at = 8;  // past the signature
    bool removed = false;
    while (at + 12 <= static_cast<size_t>(size)) {
        const uint32_t length = (uint32_t(bytes[at]) << 24) | (uint32_t(bytes[at + 1]) << 16) |
                                (uint32_t(bytes[at + 2]) << 8) | uint32_t(bytes[at + 3]);
        const size_t chunk = 12 + static_cast<size_t>(length);  // length, type, data, CRC
        if (chunk > static_cast<size_t>(size) - at) break;
        if (length == 0 && std::memcmp(bytes + at + 4, "IDAT", 4) == 0) {
            if (!removed) out.assign(bytes, bytes + at);
            removed = true;
        } else if (removed) {
            out.insert(out.end(), bytes + at, bytes + at + chunk);
        }
        at += chunk;
    }
    if (removed) out.insert(out.end(), bytes + at, bytes + size);
    return out;
}

constexpr const char* kImageFormats =
    "glTF textures are PNG or JPEG; extensions for other formats (KTX2, WebP) are not supported";

// Image callback: decode PNG/JPEG with stb_image into RGBA8; skip DDS (MSFT_texture_dds is
// ignored); refuse anything else (the load fails with *err); a PNG or JPEG that does not decode
// stays empty and becomes a flat colour later.
bool load_image(tinygltf::Image* image, const int index, std::string* err, std::string* warn, int, int,
                const unsigned char* bytes, int size, void*) {
    if (image->mimeType.find("dds") != std::string::npos || ends_with(image->uri, ".dds")) return true;
    // The mimeType is given for images in a buffer and data URIs; the bytes decide in any case.
    const std::string& mime = image->mimeType;
    std::string refused;
    if (!mime.empty() && mime != "image/png" && mime != "image/jpeg") {
        refused = "mimeType \"" + mime + "\"";
    } else if (!is_png(bytes, size) && !is_jpeg(bytes, size)) {
        refused = "the image is " + other_image_format(bytes, size) + ", not PNG or JPEG";
    }
    if (!refused.empty()) {
        if (err) *err += image_label(*image, index) + ": " + refused + " (" + kImageFormats + ")\n";
        return false;
    }
    int w = 0, h = 0, channels = 0;
    // The size comes from the image's header, before any pixel is decoded: a JPEG of a few hundred
    // bytes can claim 16000x16000, which stb_image would allocate (and this loader then widen to
    // float RGBA with mips, over 10 GB) before finding that the data is missing.
    if (stbi_info_from_memory(bytes, size, &w, &h, &channels) &&
        static_cast<int64_t>(w) * h > kMaxImagePixels) {
        if (warn) {
            *warn += image_label(*image, index) + ": " + std::to_string(w) + "x" +
                     std::to_string(h) + " is over the limit of " + std::to_string(kMaxImagePixels) + " pixels\n";
        }
        return true;
    }
    const std::vector<unsigned char> cleaned = is_png(bytes, size) ? png_without_empty_idat(bytes, size)
                                                                   : std::vector<unsigned char>();
    if (!cleaned.empty()) {
        bytes = cleaned.data();
        size = static_cast<int>(cleaned.size());
    }
    unsigned char* pixels = stbi_load_from_memory(bytes, size, &w, &h, &channels, 4);
    if (pixels == nullptr) {
        if (warn) *warn += image_label(*image, index) + ": cannot decode: " + stbi_failure_reason() + "\n";
        return true;
    }
    image->width = w;
    image->height = h;
    image->component = 4;
    image->bits = 8;
    image->pixel_type = TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE;
    image->image.assign(pixels, pixels + static_cast<size_t>(w) * h * 4);
    stbi_image_free(pixels);
    return true;
}

// Whether `count` elements of `element_size` bytes, `stride` apart, starting `accessor_offset`
// bytes into the buffer view, lie inside the view and the view inside the buffer. Offsets and
// counts come from the file and may be near 2^64, so nothing here may wrap around.
bool accessor_fits(const tinygltf::BufferView& view, size_t accessor_offset, size_t count, size_t element_size,
                   size_t stride, size_t buffer_size) {
    if (count == 0 || stride < element_size) return count == 0;
    if (view.byteOffset > buffer_size || view.byteLength > buffer_size - view.byteOffset) return false;
    if (accessor_offset > view.byteLength || element_size > view.byteLength - accessor_offset) return false;
    return count - 1 <= (view.byteLength - accessor_offset - element_size) / stride;
}

// Reads an accessor as floats (`components` per element), bounds-checked against its buffer.
std::vector<float> read_floats(const tinygltf::Model& model, int accessor_index, int components,
                               const std::string& path, const std::string& what) {
    if (accessor_index < 0 || accessor_index >= static_cast<int>(model.accessors.size())) {
        fail(path, what + ": accessor " + std::to_string(accessor_index) + " does not exist");
    }
    const tinygltf::Accessor& acc = model.accessors[static_cast<size_t>(accessor_index)];
    const std::string name = what + " (accessor " + std::to_string(accessor_index) + ")";
    if (acc.sparse.isSparse) fail(path, name + ": sparse accessors are not supported");
    if (tinygltf::GetNumComponentsInType(static_cast<uint32_t>(acc.type)) != components) {
        fail(path, name + ": expected " + std::to_string(components) + " components per element");
    }
    const int component_size = tinygltf::GetComponentSizeInBytes(static_cast<uint32_t>(acc.componentType));
    if (component_size <= 0) fail(path, name + ": unknown component type");
    if (acc.count == 0) return {};
    if (acc.bufferView < 0 || acc.bufferView >= static_cast<int>(model.bufferViews.size())) {
        fail(path, name + ": missing or invalid bufferView");
    }
    const tinygltf::BufferView& view = model.bufferViews[static_cast<size_t>(acc.bufferView)];
    if (view.buffer < 0 || view.buffer >= static_cast<int>(model.buffers.size())) fail(path, name + ": invalid buffer");
    const tinygltf::Buffer& buffer = model.buffers[static_cast<size_t>(view.buffer)];
    const size_t element_size = static_cast<size_t>(component_size) * static_cast<size_t>(components);
    const size_t stride = view.byteStride ? view.byteStride : element_size;
    if (!accessor_fits(view, acc.byteOffset, acc.count, element_size, stride, buffer.data.size())) {
        fail(path, name + ": data runs past the end of its buffer view or buffer");
    }
    // Allocated only now that the count is known to fit in the file's data.
    std::vector<float> out(acc.count * static_cast<size_t>(components), 0.0f);
    const size_t begin = view.byteOffset + acc.byteOffset;
    const unsigned char* base = buffer.data.data() + begin;
    for (size_t i = 0; i < acc.count; ++i) {
        const unsigned char* e = base + i * stride;
        for (int c = 0; c < components; ++c) {
            float v = 0.0f;
            switch (acc.componentType) {
                case TINYGLTF_COMPONENT_TYPE_FLOAT: std::memcpy(&v, e + 4 * c, 4); break;
                case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: v = static_cast<float>(e[c]) / (acc.normalized ? 255.0f : 1.0f); break;
                case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
                    uint16_t s;
                    std::memcpy(&s, e + 2 * c, 2);
                    v = static_cast<float>(s) / (acc.normalized ? 65535.0f : 1.0f);
                    break;
                }
                default: fail(path, name + ": unsupported component type for float data");
            }
            if (!std::isfinite(v)) fail(path, name + ": non-finite value at element " + std::to_string(i));
            out[i * static_cast<size_t>(components) + static_cast<size_t>(c)] = v;
        }
    }
    return out;
}

std::vector<uint32_t> read_indices(const tinygltf::Model& model, int accessor_index, size_t vertex_count,
                                   const std::string& path, const std::string& what) {
    if (accessor_index < 0) {  // non-indexed: 0, 1, 2, ...
        if (vertex_count % 3 != 0) {
            fail(path, what + ": " + std::to_string(vertex_count) + " vertices without indices, not a multiple of 3");
        }
        std::vector<uint32_t> out(vertex_count);
        for (size_t i = 0; i < vertex_count; ++i) out[i] = static_cast<uint32_t>(i);
        return out;
    }
    if (accessor_index >= static_cast<int>(model.accessors.size())) fail(path, what + ": indices accessor does not exist");
    const tinygltf::Accessor& acc = model.accessors[static_cast<size_t>(accessor_index)];
    const std::string name = what + " indices (accessor " + std::to_string(accessor_index) + ")";
    if (acc.type != TINYGLTF_TYPE_SCALAR) fail(path, name + ": must be SCALAR");
    const int size = tinygltf::GetComponentSizeInBytes(static_cast<uint32_t>(acc.componentType));
    if (acc.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
        acc.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
        acc.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT) {
        fail(path, name + ": must be unsigned byte, short or int");
    }
    if (acc.count % 3 != 0) fail(path, name + ": count " + std::to_string(acc.count) + " is not a multiple of 3");
    if (acc.count == 0) return {};
    if (acc.bufferView < 0 || acc.bufferView >= static_cast<int>(model.bufferViews.size())) fail(path, name + ": invalid bufferView");
    const tinygltf::BufferView& view = model.bufferViews[static_cast<size_t>(acc.bufferView)];
    if (view.buffer < 0 || view.buffer >= static_cast<int>(model.buffers.size())) fail(path, name + ": invalid buffer");
    const tinygltf::Buffer& buffer = model.buffers[static_cast<size_t>(view.buffer)];
    const size_t stride = view.byteStride ? view.byteStride : static_cast<size_t>(size);
    if (!accessor_fits(view, acc.byteOffset, acc.count, static_cast<size_t>(size), stride, buffer.data.size())) {
        fail(path, name + ": data runs past the end of its buffer view or buffer");
    }
    std::vector<uint32_t> out(acc.count);  // allocated once the count is known to fit in the data
    const size_t begin = view.byteOffset + acc.byteOffset;
    for (size_t i = 0; i < acc.count; ++i) {
        const unsigned char* e = buffer.data.data() + begin + i * stride;
        uint32_t v = 0;
        if (size == 1) v = e[0];
        else if (size == 2) { uint16_t s; std::memcpy(&s, e, 2); v = s; }
        else std::memcpy(&v, e, 4);
        if (v >= vertex_count) {
            fail(path, name + ": index " + std::to_string(v) + " at " + std::to_string(i) + " is out of range (" +
                           std::to_string(vertex_count) + " vertices)");
        }
        out[i] = v;
    }
    return out;
}

Affine node_local_transform(const tinygltf::Node& node, const std::string& path) {
    if (node.matrix.size() == 16) {
        // Column-major 4x4.
        Affine a;
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 4; ++c) a.m[r][c] = static_cast<float>(node.matrix[static_cast<size_t>(c * 4 + r)]);
        }
        return a;
    }
    if (!node.matrix.empty()) fail(path, "node \"" + node.name + "\": matrix must have 16 numbers");
    Vec3 t{0, 0, 0}, s{1, 1, 1};
    float q[4] = {0, 0, 0, 1};
    if (node.translation.size() == 3) t = {static_cast<float>(node.translation[0]), static_cast<float>(node.translation[1]), static_cast<float>(node.translation[2])};
    if (node.scale.size() == 3) s = {static_cast<float>(node.scale[0]), static_cast<float>(node.scale[1]), static_cast<float>(node.scale[2])};
    if (node.rotation.size() == 4) {
        float len = 0.0f;
        for (int i = 0; i < 4; ++i) {
            q[i] = static_cast<float>(node.rotation[static_cast<size_t>(i)]);
            len += q[i] * q[i];
        }
        len = std::sqrt(len);
        if (!(len > 0.0f)) fail(path, "node \"" + node.name + "\": zero rotation quaternion");
        for (float& v : q) v /= len;
    }
    return affine_from_trs(t, q, s);
}

float determinant3(const Affine& a) {
    return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
           a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
           a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}

class Loader {
public:
    Loader(const tinygltf::Model& model, const std::string& path, Scene& scene)
        : model_(model), path_(path), scene_(scene) {}

    void run() {
        // glTF 1.0 files differ throughout (techniques, named objects) and would fail somewhere
        // later with a message about a detail; say what is wrong instead.
        if (model_.asset.version.rfind("2.", 0) != 0) {
            fail(path_, "asset.version is \"" + model_.asset.version + "\": this reader reads glTF 2.x");
        }
        load_materials();
        int scene_index = model_.defaultScene >= 0 ? model_.defaultScene : 0;
        if (model_.scenes.empty()) {
            // No scene: every root node (a node nobody lists as a child).
            std::vector<bool> is_child(model_.nodes.size(), false);
            for (const auto& n : model_.nodes) {
                for (int c : n.children) if (c >= 0 && c < static_cast<int>(is_child.size())) is_child[static_cast<size_t>(c)] = true;
            }
            for (size_t i = 0; i < model_.nodes.size(); ++i) if (!is_child[i]) visit(static_cast<int>(i), Affine{}, 0);
        } else {
            if (scene_index >= static_cast<int>(model_.scenes.size())) fail(path_, "default scene " + std::to_string(scene_index) + " does not exist");
            for (int n : model_.scenes[static_cast<size_t>(scene_index)].nodes) visit(n, Affine{}, 0);
        }
        if (triangles_.empty()) fail(path_, "the scene has no triangles");
        scene_.add_instance(scene_.add_mesh(triangles_), Affine{});
    }

private:
    void load_materials() {
        std::map<std::pair<int, int>, int> texture_cache;  // (image, sampler) -> scene texture
        for (size_t i = 0; i < model_.materials.size(); ++i) {
            const tinygltf::Material& gm = model_.materials[i];
            Material m;
            const auto& pbr = gm.pbrMetallicRoughness;
            // glTF gives these factors in [0, 1] (alphaCutoff: >= 0). Outside that a shader computes
            // nonsense, and a number like 1e300 becomes Inf as a float and Inf or NaN pixels.
            auto factor = [&](double v, const std::string& field, double hi) {
                if (!(v >= 0.0 && v <= hi)) {
                    fail(path_, "material " + std::to_string(i) + " (\"" + gm.name + "\"): " + field + " = " +
                                    number_text(v) + " is outside [0, " + (hi > 1.0 ? "1e30" : "1") + "]");
                }
                return static_cast<float>(v);
            };
            if (pbr.baseColorFactor.size() == 4) {
                m.base_color = {factor(pbr.baseColorFactor[0], "baseColorFactor[0]", 1.0),
                                factor(pbr.baseColorFactor[1], "baseColorFactor[1]", 1.0),
                                factor(pbr.baseColorFactor[2], "baseColorFactor[2]", 1.0)};
                m.alpha = factor(pbr.baseColorFactor[3], "baseColorFactor[3]", 1.0);
            }
            m.metallic = factor(pbr.metallicFactor, "metallicFactor", 1.0);
            m.roughness = factor(pbr.roughnessFactor, "roughnessFactor", 1.0);
            m.double_sided = gm.doubleSided ? 1 : 0;
            m.alpha_cutoff = factor(gm.alphaCutoff, "alphaCutoff", 1e30);
            if (gm.alphaMode == "MASK") m.alpha_mode = alpha_mask;
            else if (gm.alphaMode == "BLEND") m.alpha_mode = alpha_blend;
            if (gm.emissiveFactor.size() == 3) {
                m.emissive = {factor(gm.emissiveFactor[0], "emissiveFactor[0]", 1.0),
                              factor(gm.emissiveFactor[1], "emissiveFactor[1]", 1.0),
                              factor(gm.emissiveFactor[2], "emissiveFactor[2]", 1.0)};
            }
            const auto ext = gm.extensions.find("KHR_materials_specular");
            if (ext != gm.extensions.end() && ext->second.Has("specularFactor")) {
                m.specular = factor(ext->second.Get("specularFactor").GetNumberAsDouble(),
                                    "KHR_materials_specular.specularFactor", 1.0);
            }
            const int texture_index = pbr.baseColorTexture.index;
            if (texture_index >= 0) {
                m.base_color_texture = texture_for(texture_index, texture_cache, gm.name);
                if (m.base_color_texture < 0) m.base_color = m.base_color * 0.5f;  // flat colour
            }
            scene_.add_material(m);
        }
        default_material_ = scene_.add_material(Material{Vec3{0.7f, 0.7f, 0.7f}});
    }

    int texture_for(int texture_index, std::map<std::pair<int, int>, int>& cache, const std::string& material) {
        if (texture_index >= static_cast<int>(model_.textures.size())) {
            fail(path_, "material \"" + material + "\": texture " + std::to_string(texture_index) + " does not exist");
        }
        const tinygltf::Texture& t = model_.textures[static_cast<size_t>(texture_index)];
        // -1 is "no sampler" (repeat, glTF's default); any other index must name one.
        if (t.sampler < -1 || t.sampler >= static_cast<int>(model_.samplers.size())) {
            fail(path_, "texture " + std::to_string(texture_index) + ": sampler " + std::to_string(t.sampler) +
                            " does not exist");
        }
        // t.source is the PNG/JPEG image; MSFT_texture_dds's own source is ignored.
        if (t.source < 0 || t.source >= static_cast<int>(model_.images.size())) {
            scene_.warnings.push_back("material \"" + material + "\": texture without a PNG/JPEG source; flat colour");
            return -1;
        }
        const auto key = std::make_pair(t.source, t.sampler);
        if (const auto it = cache.find(key); it != cache.end()) return it->second;
        const tinygltf::Image& img = model_.images[static_cast<size_t>(t.source)];
        if (img.image.empty() || img.width <= 0 || img.height <= 0) {
            scene_.warnings.push_back("material \"" + material + "\": image \"" + img.uri + "\" missing or unreadable; flat colour");
            cache[key] = -1;
            return -1;
        }
        Image rgba(img.width, img.height, 4);
        float lut[256];
        for (int v = 0; v < 256; ++v) lut[v] = srgb_to_linear(static_cast<float>(v) / 255.0f);
        for (size_t p = 0; p < static_cast<size_t>(img.width) * img.height; ++p) {
            for (size_t c = 0; c < 3; ++c) rgba.data[4 * p + c] = lut[img.image[4 * p + c]];
            rgba.data[4 * p + 3] = static_cast<float>(img.image[4 * p + 3]) / 255.0f;
        }
        int wrap_s = wrap_repeat, wrap_t = wrap_repeat;
        if (t.sampler >= 0 && t.sampler < static_cast<int>(model_.samplers.size())) {
            auto mode = [](int w) {
                return w == TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE ? wrap_clamp
                       : (w == TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT ? wrap_mirror : wrap_repeat);
            };
            wrap_s = mode(model_.samplers[static_cast<size_t>(t.sampler)].wrapS);
            wrap_t = mode(model_.samplers[static_cast<size_t>(t.sampler)].wrapT);
        }
        const int index = texture_add(scene_.textures, scene_.texels, rgba, wrap_s, wrap_t);
        cache[key] = index;
        return index;
    }

    void visit(int node_index, const Affine& parent, int depth) {
        if (node_index < 0 || node_index >= static_cast<int>(model_.nodes.size())) {
            fail(path_, "node " + std::to_string(node_index) + " does not exist");
        }
        if (depth > 256) fail(path_, "node hierarchy deeper than 256 (a cycle?)");
        // glTF nodes form trees: a node has at most one parent and appears once. Refusing a second
        // visit catches cycles at once and keeps a "tree" whose nodes list one child twice at each
        // level from being walked 2^depth times.
        if (visited_.empty()) visited_.assign(model_.nodes.size(), false);
        if (visited_[static_cast<size_t>(node_index)]) {
            fail(path_, "node " + std::to_string(node_index) +
                            " is reached twice (a cycle, or a node with two parents, which glTF forbids)");
        }
        visited_[static_cast<size_t>(node_index)] = true;
        const tinygltf::Node& node = model_.nodes[static_cast<size_t>(node_index)];
        const Affine world = affine_multiply(parent, node_local_transform(node, path_));
        for (const auto& row : world.m) {
            for (const float v : row) {
                if (!std::isfinite(v)) {
                    fail(path_, "node " + std::to_string(node_index) + " (\"" + node.name +
                                    "\"): its transform (with its parents') is not finite as float");
                }
            }
        }
        if (node.mesh >= 0) add_mesh(node.mesh, world);
        if (node.camera >= 0) add_camera(node.camera, world);
        for (int child : node.children) visit(child, world, depth + 1);
    }

    void add_camera(int camera_index, const Affine& world) {
        if (camera_index >= static_cast<int>(model_.cameras.size())) fail(path_, "camera " + std::to_string(camera_index) + " does not exist");
        const tinygltf::Camera& c = model_.cameras[static_cast<size_t>(camera_index)];
        if (c.type != "perspective") {
            scene_.warnings.push_back("camera \"" + c.name + "\" is not perspective; skipped");
            return;
        }
        CameraPose pose;
        pose.position = transform_point(world, {0, 0, 0});
        const Vec3 forward = normalize(transform_vector(world, {0, 0, -1}));
        pose.target = pose.position + forward;
        pose.up = normalize(transform_vector(world, {0, 1, 0}));
        const std::string name = "camera " + std::to_string(camera_index) + " (\"" + c.name + "\")";
        const double znear = c.perspective.znear, zfar = c.perspective.zfar;
        pose.fov_y_deg = static_cast<float>(c.perspective.yfov * 180.0 / 3.14159265358979);
        if (!(pose.fov_y_deg > 1.0f && pose.fov_y_deg < 170.0f)) {
            fail(path_, name + ": yfov = " + number_text(c.perspective.yfov) + " is outside 1..170 degrees");
        }
        // glTF requires znear > 0 and, when zfar is given, zfar > znear; zfar absent (0 here)
        // means an infinite far plane, which becomes one from the scene's bounds. Both as floats,
        // which the tracer uses: 1e-50 would become 0, 1e300 Inf.
        if (!(znear > 0.0) || !std::isnormal(static_cast<float>(znear))) {
            fail(path_, name + ": znear = " + number_text(znear) + " must be a positive number");
        }
        if (zfar != 0.0 && (!(zfar > znear) || !std::isfinite(static_cast<float>(zfar)))) {
            fail(path_, name + ": zfar = " + number_text(zfar) + " must be greater than znear = " +
                            number_text(znear) + " (or absent for an infinite far plane)");
        }
        // Without zfar the far plane is placed at least ten times beyond znear (gltf_load_scene),
        // which must still be a float.
        if (zfar == 0.0 && !std::isfinite(static_cast<float>(znear) * 10.0f)) {
            fail(path_, name + ": znear = " + number_text(znear) +
                            " leaves no room for a far plane beyond it (zfar is absent)");
        }
        pose.near = static_cast<float>(znear);
        pose.far = static_cast<float>(zfar);  // 0: set from bounds
        scene_.cameras.push_back(pose);
    }

    void add_mesh(int mesh_index, const Affine& world) {
        if (mesh_index >= static_cast<int>(model_.meshes.size())) fail(path_, "mesh " + std::to_string(mesh_index) + " does not exist");
        const tinygltf::Mesh& mesh = model_.meshes[static_cast<size_t>(mesh_index)];
        const Affine normal_inverse = affine_inverse(world);
        const bool mirrored = determinant3(world) < 0.0f;  // keep counter-clockwise fronts
        for (size_t p = 0; p < mesh.primitives.size(); ++p) {
            const tinygltf::Primitive& prim = mesh.primitives[p];
            const std::string what = "mesh \"" + mesh.name + "\" primitive " + std::to_string(p);
            if (prim.mode != TINYGLTF_MODE_TRIANGLES && prim.mode != -1) {
                scene_.warnings.push_back(what + ": not triangles; skipped");
                continue;
            }
            const auto pos_it = prim.attributes.find("POSITION");
            if (pos_it == prim.attributes.end()) fail(path_, what + ": no POSITION attribute");
            const std::vector<float> pos = read_floats(model_, pos_it->second, 3, path_, what + " POSITION");
            const size_t vertex_count = pos.size() / 3;
            std::vector<float> nrm, uv;
            if (const auto it = prim.attributes.find("NORMAL"); it != prim.attributes.end()) {
                nrm = read_floats(model_, it->second, 3, path_, what + " NORMAL");
                if (nrm.size() != pos.size()) fail(path_, what + ": NORMAL count differs from POSITION count");
            }
            if (const auto it = prim.attributes.find("TEXCOORD_0"); it != prim.attributes.end()) {
                uv = read_floats(model_, it->second, 2, path_, what + " TEXCOORD_0");
                if (uv.size() / 2 != vertex_count) fail(path_, what + ": TEXCOORD_0 count differs from POSITION count");
            }
            const std::vector<uint32_t> idx = read_indices(model_, prim.indices, vertex_count, path_, what);
            int material = prim.material;
            if (material >= static_cast<int>(model_.materials.size())) fail(path_, what + ": material " + std::to_string(material) + " does not exist");
            if (material < 0) material = default_material_;
            for (size_t t = 0; t + 2 < idx.size(); t += 3) {
                SourceTriangle tri;
                tri.material = material;
                for (int k = 0; k < 3; ++k) {
                    const size_t slot = mirrored ? static_cast<size_t>(2 - k) : static_cast<size_t>(k);
                    const uint32_t v = idx[t + slot];
                    tri.p[k] = transform_point(world, {pos[3 * v], pos[3 * v + 1], pos[3 * v + 2]});
                    if (!nrm.empty()) {
                        tri.n[k] = normalize(transform_normal_by_inverse(normal_inverse, {nrm[3 * v], nrm[3 * v + 1], nrm[3 * v + 2]}));
                    }
                    if (!uv.empty()) tri.uv[k] = {uv[2 * v], uv[2 * v + 1]};
                }
                triangles_.push_back(tri);
            }
        }
    }

    const tinygltf::Model& model_;
    const std::string& path_;
    Scene& scene_;
    std::vector<SourceTriangle> triangles_;
    std::vector<bool> visited_;  // nodes visited so far (by index)
    int default_material_ = 0;
};

// The whole file: tinygltf reads .gltf and .glb from memory here, after the nesting and
// buffer view checks.
std::vector<unsigned char> read_file(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) fail(path, "is a folder, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(path, std::string("cannot open the file: ") + std::strerror(errno));
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    in.seekg(0, std::ios::beg);
    if (size < 0) fail(path, "cannot determine the file's size");
    // tinygltf takes the size as a 32-bit unsigned int (and .glb's own lengths are 32-bit).
    if (static_cast<uint64_t>(size) > std::numeric_limits<unsigned int>::max()) {
        fail(path, std::to_string(size) + " bytes, over the 4 GiB that glTF can address");
    }
    if (size == 0) fail(path, "the file is empty");
    std::vector<unsigned char> bytes(static_cast<size_t>(size));
    if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) fail(path, "read error");
    return bytes;
}

// The JSON of a glTF: a .gltf is JSON throughout; a .glb holds it in its first chunk (12-byte
// header "glTF", version, length; then the chunk's length and type "JSON"). A .glb whose header is
// wrong gives no text here and is refused by tinygltf with its own message.
std::string_view json_text(const std::vector<unsigned char>& bytes, bool binary) {
    const auto* text = reinterpret_cast<const char*>(bytes.data());
    if (!binary) return {text, bytes.size()};
    auto u32 = [&](size_t at) {
        return uint32_t{bytes[at]} | uint32_t{bytes[at + 1]} << 8 | uint32_t{bytes[at + 2]} << 16 |
               uint32_t{bytes[at + 3]} << 24;
    };
    if (bytes.size() < 20 || std::memcmp(text, "glTF", 4) != 0 || std::memcmp(text + 16, "JSON", 4) != 0) return {};
    const uint32_t length = u32(12);
    if (length > bytes.size() - 20) return {};
    return {text + 20, length};
}

// How many bytes a .glb's BIN chunk really holds: the length it claims, cut to the bytes that
// follow its 8-byte chunk header within the GLB. tinygltf checks the claim against the GLB's
// length field from where the chunk header begins, so a chunk claiming every remaining byte, its
// own header's 8 included, gave a buffer that ended 8 bytes past the file. 0 when the file has
// no BIN chunk; nothing when its header is wrong (tinygltf refuses it with its own message).
std::optional<uint64_t> glb_bin_chunk_bytes(const std::vector<unsigned char>& bytes) {
    if (bytes.size() < 20 || std::memcmp(bytes.data(), "glTF", 4) != 0) return std::nullopt;
    auto u32 = [&](size_t at) {
        return uint32_t{bytes[at]} | uint32_t{bytes[at + 1]} << 8 | uint32_t{bytes[at + 2]} << 16 |
               uint32_t{bytes[at + 3]} << 24;
    };
    const uint64_t end = std::min<uint64_t>(u32(8), bytes.size());
    const uint64_t payload = 20 + uint64_t{u32(12)} + 8;  // after the JSON chunk and the BIN chunk's header
    if (payload > end) return 0;
    return std::min<uint64_t>(u32(static_cast<size_t>(payload - 8)), end - payload);
}

// A glTF value read as tinygltf reads it: an index is any JSON integer cast to int (2^32 is 0);
// a length or offset is a JSON unsigned integer (tinygltf refuses any other byteLength, and reads
// any other byteOffset as 0).
std::optional<int> gltf_index(const nlohmann::json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number_integer()) return std::nullopt;
    return static_cast<int>(it->get<int64_t>());
}
std::optional<uint64_t> gltf_unsigned(const nlohmann::json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number_unsigned()) return std::nullopt;
    return it->get<uint64_t>();
}
const nlohmann::json& gltf_array(const nlohmann::json& document, const char* key) {
    static const nlohmann::json empty = nlohmann::json::array();
    const auto it = document.find(key);
    return it != document.end() && it->is_array() ? *it : empty;
}

// Every buffer view inside its buffer, every image's buffer view one that exists, and in a .glb
// the buffers held by the BIN chunk no longer than it, checked before tinygltf reads the file.
// tinygltf (2.7) hands the bytes of an image in a buffer view to the decoder as
// &buffer.data[byteOffset] and byteLength without checking the view against its buffer: a view
// running past its buffer had stb_image read past the heap block
// (fuzz/corpus/gltf_binary/image_view_*.glb; from a .gltf with a data: URI buffer too). Each
// buffer tinygltf loads has exactly its declared byteLength (a .bin file, a data: URI or a BIN
// chunk of another size is refused), so the views are checked against that. What tinygltf
// refuses by itself (a missing byteLength, a value of the wrong type, malformed JSON) is left
// to it and its messages.
void check_buffer_views(const std::vector<unsigned char>& bytes, std::string_view json_text, bool binary,
                        const std::string& path) {
    const nlohmann::json document = nlohmann::json::parse(json_text.begin(), json_text.end(), nullptr, false);
    if (!document.is_object()) return;
    const nlohmann::json& buffers = gltf_array(document, "buffers");
    const nlohmann::json& views = gltf_array(document, "bufferViews");
    const nlohmann::json& images = gltf_array(document, "images");
    const std::optional<uint64_t> bin_chunk = binary ? glb_bin_chunk_bytes(bytes) : std::nullopt;
    const uint64_t bin_bytes = bin_chunk.value_or(0);

    // tinygltf reads a buffer of a .glb without a URI (a string, not empty) from the BIN chunk.
    for (size_t i = 0; i < buffers.size() && bin_chunk; ++i) {
        const auto uri = buffers[i].find("uri");
        if (uri != buffers[i].end() && uri->is_string() && !uri->get_ref<const std::string&>().empty()) continue;
        const std::optional<uint64_t> length = gltf_unsigned(buffers[i], "byteLength");
        if (length && *length > bin_bytes) {
            fail(path, "buffer[" + std::to_string(i) + "]: byteLength " + std::to_string(*length) +
                           " is more than the " + std::to_string(bin_bytes) + " bytes of the file's BIN chunk");
        }
    }
    std::map<size_t, size_t> image_of_view;  // the first image in each view, for the message
    for (size_t i = 0; i < images.size(); ++i) {
        const std::optional<int> view = gltf_index(images[i], "bufferView");
        if (!view) continue;
        if (*view < 0 || static_cast<size_t>(*view) >= views.size()) {
            fail(path, "image[" + std::to_string(i) + "]: bufferView " + std::to_string(*view) +
                           " does not exist (the file has " + std::to_string(views.size()) + ")");
        }
        image_of_view.emplace(static_cast<size_t>(*view), i);
    }
    for (size_t i = 0; i < views.size(); ++i) {
        std::string name = "bufferView[" + std::to_string(i) + "]";
        if (const auto image = image_of_view.find(i); image != image_of_view.end()) {
            name += " (the bytes of image[" + std::to_string(image->second) + "])";
        }
        const std::optional<int> buffer = gltf_index(views[i], "buffer");
        const std::optional<uint64_t> length = gltf_unsigned(views[i], "byteLength");
        if (!buffer || !length) continue;  // tinygltf refuses the view
        if (*buffer < 0 || static_cast<size_t>(*buffer) >= buffers.size()) {
            fail(path, name + ": buffer " + std::to_string(*buffer) + " does not exist (the file has " +
                           std::to_string(buffers.size()) + ")");
        }
        const std::optional<uint64_t> buffer_length = gltf_unsigned(buffers[static_cast<size_t>(*buffer)], "byteLength");
        if (!buffer_length) continue;  // tinygltf refuses the buffer
        const uint64_t offset = gltf_unsigned(views[i], "byteOffset").value_or(0);
        // Without wrap-around: both numbers come from the file and may be near 2^64.
        if (offset > *buffer_length || *length > *buffer_length - offset) {
            fail(path, name + ": byteOffset " + std::to_string(offset) + " + byteLength " + std::to_string(*length) +
                           " runs past the end of buffer[" + std::to_string(*buffer) + "], " +
                           std::to_string(*buffer_length) + " bytes long");
        }
    }
}

}  // namespace

std::unique_ptr<Scene> gltf_load_scene(const std::string& path) {
    const bool binary = ends_with(path, ".glb");
    const std::vector<unsigned char> bytes = read_file(path);
    // tinygltf converts the JSON (extras above all, which may hold anything) to its own values
    // recursively, one stack frame a level: a 42 KB .gltf nested 20,000 deep overflowed the stack.
    try {
        check_json_nesting(json_text(bytes, binary));
    } catch (const JsonNestingTooDeep& e) {
        fail(path, e.what());
    }
    check_buffer_views(bytes, json_text(bytes, binary), binary, path);
    tinygltf::TinyGLTF gltf;
    gltf.SetImageLoader(load_image, nullptr);
    tinygltf::Model model;
    std::string err, warn;
    // Buffers and images named by relative URIs are next to the file.
    const std::string base_dir = std::filesystem::path(path).parent_path().string();
    const auto size = static_cast<unsigned int>(bytes.size());  // read_file refuses 4 GiB and more
    bool ok = false;
    try {
        ok = binary ? gltf.LoadBinaryFromMemory(&model, &err, &warn, bytes.data(), size, base_dir)
                    : gltf.LoadASCIIFromString(&model, &err, &warn, reinterpret_cast<const char*>(bytes.data()),
                                               size, base_dir);
    } catch (const std::exception& e) {
        fail(path, std::string("cannot parse: ") + e.what());
    }
    if (!ok) {
        while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
        fail(path, err.empty() ? "cannot load" : err);
    }
    auto scene = std::make_unique<Scene>();
    scene->name = path;
    for (size_t start = 0; start < warn.size();) {
        const size_t end = warn.find('\n', start);
        const std::string line = warn.substr(start, end == std::string::npos ? std::string::npos : end - start);
        // A missing .dds file is no loss (MSFT_texture_dds is ignored, the PNG/JPEG source is
        // used): tinygltf's two lines about it would only be noise now that warnings are shown.
        bool dds = ends_with(line, ".dds");
        const std::string image_tag = "for image[";
        if (const size_t at = line.find(image_tag); at != std::string::npos) {
            const size_t index = std::strtoul(line.c_str() + at + image_tag.size(), nullptr, 10);
            dds |= index < model.images.size() && ends_with(model.images[index].uri, ".dds");
        }
        if (!line.empty() && !dds) scene->warnings.push_back(line);
        if (end == std::string::npos) break;
        start = end + 1;
    }
    Loader(model, path, *scene).run();

    // Scale, a default camera when the file has none, far planes from the bounds.
    scene->set_time(0.0f, 0.0f);
    const Aabb bounds = scene->world_bounds();
    const float diagonal = length(bounds.max - bounds.min);
    // Each coordinate may be finite and the extent still overflow float (vertices near +-3e38):
    // the scale, default camera and far planes below would become Inf or NaN.
    if (!std::isfinite(diagonal)) fail(path, "the scene's extent is not finite as float (coordinates too large)");
    scene->scale = std::max(diagonal * 0.25f, 1e-3f);
    for (CameraPose& c : scene->cameras) {
        if (c.far <= 0.0f) c.far = std::max(4.0f * diagonal, c.near * 10.0f);
        // Presets orbit around a point ahead of the camera at a quarter of the scene's size.
        c.target = c.position + normalize(c.target - c.position) * scene->scale;
        // Far from the origin, that point can round to the camera's own position.
        if (!(length(c.target - c.position) > 0.0f)) {
            fail(path, "a camera at (" + number_text(c.position.x) + ", " + number_text(c.position.y) + ", " +
                           number_text(c.position.z) + ") is too far from the origin for the scene's size (" +
                           number_text(diagonal) + "): a point ahead of it rounds to its own position");
        }
    }
    if (scene->cameras.empty()) {
        CameraPose c;
        c.target = bounds.center();
        c.position = bounds.center() + Vec3{0.0f, 0.3f, 1.0f} * diagonal * 0.8f;
        c.near = diagonal * 1e-4f;
        c.far = diagonal * 4.0f;
        // Triangles that all lie at one point (or span less than a float step at their distance
        // from the origin) leave no place for a camera apart from what it looks at: the render
        // would stop at its first frame with an error that names neither the file nor the cause.
        if (!(c.near > 0.0f) || !(length(c.target - c.position) > 0.0f)) {
            fail(path, "the scene's triangles span " + number_text(diagonal) + " around (" +
                           number_text(c.target.x) + ", " + number_text(c.target.y) + ", " +
                           number_text(c.target.z) + "): too little to place a camera (the file has none)");
        }
        scene->cameras.push_back(c);
    }
    scene->camera_base = scene->cameras.front();
    scene->description = "glTF " + path;
    scene->lighting.sun_direction = normalize(Vec3{0.35f, 0.8f, 0.45f});
    return scene;
}

}  // namespace swinup::render
