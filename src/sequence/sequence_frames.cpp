// One frame of a sequence: its EXR files, checked against sequence.json on the way in and out.
// Storage: colour and ground truth as half RGBA (what renderers and engines produce), depth and
// motion vectors as float (half would quantise a 100-pixel motion to 1/16 pixel); the masks as
// half RG (fractions in [0, 1], which half holds to 1/2048 or better), the motion masks too.
#include <filesystem>
#include <string>

#include "sequence/sequence.h"
#include "text/number_text.h"

namespace swinup {
namespace {

struct FileKind {
    const char* kind;       // file name prefix
    const char* channels;   // expected channel set, for messages
    int channel_count;      // channels in memory
    bool display_size;      // display (else render) resolution
    bool half_precision;    // how the writer stores it
};

constexpr FileKind kColor = {"color", "R,G,B,A", 4, false, true};
constexpr FileKind kDepth = {"depth", "Z", 1, false, false};
constexpr FileKind kMotion = {"mv", "R,G", 2, false, false};
constexpr FileKind kMotionDisplay = {"mv_display", "R,G", 2, true, false};
constexpr FileKind kGroundTruth = {"gt", "R,G,B,A", 4, true, true};
constexpr FileKind kMasks = {"masks", "R,G", 2, false, true};
constexpr FileKind kMotionMasks = {"motion_masks", "R,G", 2, true, true};

std::string size_text(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

void expected_size(const FileKind& k, const SequenceInfo& info, int* w, int* h) {
    *w = k.display_size ? info.display_width : info.render_width;
    *h = k.display_size ? info.display_height : info.render_height;
}

const char* size_name(const FileKind& k) { return k.display_size ? "display" : "render"; }

void check_index(const std::string& dir, const SequenceInfo& info, int index) {
    if (index < 0 || index >= info.frame_count) {
        throw SequenceError(dir + ": frame " + std::to_string(index) + " is outside 0 .. " +
                            std::to_string(info.frame_count - 1));
    }
}

// Colour without alpha (R,G,B) is accepted and given alpha 1.
Image add_opaque_alpha(const Image& rgb) {
    Image rgba(rgb.width, rgb.height, 4, 1.0f);
    for (size_t i = 0, n = size_t(rgb.width) * size_t(rgb.height); i < n; ++i) {
        for (size_t c = 0; c < 3; ++c) rgba.data[i * 4 + c] = rgb.data[i * 3 + c];
    }
    return rgba;
}

void negate(Image* image) {
    for (float& v : image->data) v = -v;
}

Image read_checked(const std::string& dir, const SequenceInfo& info, int index, const FileKind& k) {
    const std::string path = (std::filesystem::path(dir) / frame_file(k.kind, index)).string();
    // Channels and size are checked from the header, before the pixels are allocated and read:
    // a header claiming 32768x32768 must not cost gigabytes before it is rejected.
    const auto check_header = [&](int width, int height, int channels) {
        const bool rgb_for_rgba = k.channel_count == 4 && channels == 3;
        if (channels != k.channel_count && !rgb_for_rgba) {
            static const char* kStoredSets[] = {"", "Z", "R,G", "R,G,B", "R,G,B,A"};
            throw SequenceError(path + ": has channels " + kStoredSets[channels] + ", expected " +
                                k.channels);
        }
        int w = 0, h = 0;
        expected_size(k, info, &w, &h);
        if (width != w || height != h) {
            throw SequenceError(path + ": size " + size_text(width, height) +
                                " does not match the " + size_name(k) + " size " +
                                size_text(w, h) + " in sequence.json");
        }
    };
    Image image = exr_read(path, check_header);
    if (k.channel_count == 4 && image.channels == 3) image = add_opaque_alpha(image);
    return image;
}

// A mask value is a fraction: anything else (negative, above 1, NaN, Inf) is named with its
// pixel and plane, for a reader and for a writer alike.
void check_mask_values(const std::string& path, const Image& masks, bool motion_masks = false) {
    static const char* kPlane[] = {"reactive (R)", "transparency & composition (G)"};
    static const char* kMotionPlane[] = {"disocclusion (R)", "moving object (G)"};
    for (int y = 0; y < masks.height; ++y) {
        for (int x = 0; x < masks.width; ++x) {
            for (int c = 0; c < 2; ++c) {
                const float v = masks.at(x, y, c);
                if (!(v >= 0.0f && v <= 1.0f)) {
                    throw SequenceError(path + ": " + (motion_masks ? kMotionPlane : kPlane)[c] +
                                        " value " + shortest_text(v) +
                                        " at pixel (" + std::to_string(x) + ", " +
                                        std::to_string(y) + ") is outside [0, 1]");
                }
            }
        }
    }
}

void write_checked(const std::string& dir, const SequenceInfo& info, int index, const FileKind& k,
                   const Image& image) {
    const std::string path = (std::filesystem::path(dir) / frame_file(k.kind, index)).string();
    int w = 0, h = 0;
    expected_size(k, info, &w, &h);
    if (image.width != w || image.height != h || image.channels != k.channel_count) {
        throw SequenceError(path + ": refusing to write a " + size_text(image.width, image.height) +
                            " image with " + std::to_string(image.channels) +
                            " channel(s); expected the " + size_name(k) + " size " +
                            size_text(w, h) + " with channels " + k.channels);
    }
    exr_write(path, image, k.half_precision);
}

}  // namespace

Frame sequence_read_frame(const std::string& dir, const SequenceInfo& info, int index) {
    check_index(dir, info, index);
    Frame frame;
    frame.color = read_checked(dir, info, index, kColor);
    frame.depth = read_checked(dir, info, index, kDepth);
    frame.mv = read_checked(dir, info, index, kMotion);
    if (info.has_mv_display) frame.mv_display = read_checked(dir, info, index, kMotionDisplay);
    if (info.has_ground_truth) frame.gt = read_checked(dir, info, index, kGroundTruth);
    if (info.has_masks) {
        frame.masks = read_checked(dir, info, index, kMasks);
        check_mask_values((std::filesystem::path(dir) / frame_file(kMasks.kind, index)).string(),
                          frame.masks);
    }
    if (info.has_motion_masks) {
        frame.motion_masks = read_checked(dir, info, index, kMotionMasks);
        check_mask_values((std::filesystem::path(dir) / frame_file(kMotionMasks.kind, index)).string(),
                          frame.motion_masks, true);
    }
    if (info.mv_sign == -1) {
        negate(&frame.mv);
        negate(&frame.mv_display);
    }
    return frame;
}

void sequence_write_frame(const std::string& dir, const SequenceInfo& info, int index,
                          const Frame& frame) {
    check_index(dir, info, index);
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) throw SequenceError(dir + ": cannot create directory: " + error.message());
    auto write_motion = [&](const FileKind& k, const Image& mv) {
        if (info.mv_sign == 1) return write_checked(dir, info, index, k, mv);
        Image stored = mv;  // the files keep the sequence's own sign convention
        negate(&stored);
        write_checked(dir, info, index, k, stored);
    };
    if (!frame.color.empty()) write_checked(dir, info, index, kColor, frame.color);
    if (!frame.depth.empty()) write_checked(dir, info, index, kDepth, frame.depth);
    if (!frame.mv.empty()) write_motion(kMotion, frame.mv);
    if (!frame.mv_display.empty()) write_motion(kMotionDisplay, frame.mv_display);
    if (!frame.gt.empty()) write_checked(dir, info, index, kGroundTruth, frame.gt);
    if (!frame.masks.empty()) {
        const std::string path = (std::filesystem::path(dir) / frame_file(kMasks.kind, index)).string();
        if (!info.has_masks) {
            throw SequenceError(path + ": refusing to write masks into a sequence whose info "
                                       "says it has none (has_masks false)");
        }
        if (frame.masks.channels == kMasks.channel_count) check_mask_values(path, frame.masks);
        write_checked(dir, info, index, kMasks, frame.masks);
    }
    if (!frame.motion_masks.empty()) {
        const std::string path =
            (std::filesystem::path(dir) / frame_file(kMotionMasks.kind, index)).string();
        if (!info.has_motion_masks) {
            throw SequenceError(path + ": refusing to write motion masks into a sequence whose "
                                       "info says it has none (has_motion_masks false)");
        }
        if (frame.motion_masks.channels == kMotionMasks.channel_count) {
            check_mask_values(path, frame.motion_masks, true);
        }
        write_checked(dir, info, index, kMotionMasks, frame.motion_masks);
    }
}

}  // namespace swinup
