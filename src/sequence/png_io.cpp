// 8-bit RGB PNG pictures for people to look at (side-by-side crops, reports), through libpng.
// Input is a float image of 1 (grey), 3 or 4 (alpha ignored) channels: linear (encode_srgb =
// true: the sRGB transfer function is applied here) or already display-encoded in [0,1].
#include <png.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <system_error>
#include <vector>

#include "sequence/atomic_write.h"
#include "sequence/sequence.h"

namespace swinup {
namespace {

// IEC 61966-2-1 encoding of a linear value in [0,1].
float srgb_encode(float linear) {
    return linear <= 0.0031308f ? 12.92f * linear
                                : 1.055f * std::pow(linear, 1.0f / 2.4f) - 0.055f;
}

uint8_t to_byte(float v, bool encode_srgb) {
    if (!(v > 0.0f)) return 0;  // also NaN
    v = std::min(v, 1.0f);
    if (encode_srgb) v = srgb_encode(v);
    return static_cast<uint8_t>(std::lround(v * 255.0f));
}

struct PngErrorState {
    char message[256] = "";
};

void on_png_error(png_structp png, png_const_charp message) {
    auto* state = static_cast<PngErrorState*>(png_get_error_ptr(png));
    std::snprintf(state->message, sizeof(state->message), "%s", message);
    png_longjmp(png, 1);
}

void on_png_warning(png_structp, png_const_charp) {}

// libpng reports errors by longjmp, so this function holds only trivially destructible locals
// and returns false with the message in *state instead of throwing across C frames.
bool encode_png(std::FILE* file, int width, int height, const uint8_t* rgb, PngErrorState* state) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, state, on_png_error,
                                              on_png_warning);
    if (png == nullptr) {
        std::snprintf(state->message, sizeof(state->message), "png_create_write_struct failed");
        return false;
    }
    png_infop info = png_create_info_struct(png);
    if (info == nullptr || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        if (state->message[0] == '\0') {
            std::snprintf(state->message, sizeof(state->message), "png_create_info_struct failed");
        }
        return false;
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_write_info(png, info);
    for (int y = 0; y < height; ++y) {
        png_write_row(png, rgb + static_cast<size_t>(y) * static_cast<size_t>(width) * 3);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return true;
}

}  // namespace

void png_write(const std::string& path, const Image& image, bool encode_srgb) {
    const int channels = image.channels;
    if (channels != 1 && channels != 3 && channels != 4) {
        throw SequenceError(path + ": cannot write a PNG from " + std::to_string(channels) +
                            " channels (1, 3 or 4 supported)");
    }
    if (image.width <= 0 || image.height <= 0 ||
        image.data.size() != size_t(image.width) * size_t(image.height) * size_t(channels)) {
        throw SequenceError(path + ": cannot write a PNG of size " + std::to_string(image.width) +
                            "x" + std::to_string(image.height));
    }
    std::vector<uint8_t> rgb(size_t(image.width) * size_t(image.height) * 3);
    for (size_t i = 0, n = size_t(image.width) * size_t(image.height); i < n; ++i) {
        const float* p = image.data.data() + i * size_t(channels);
        for (size_t c = 0; c < 3; ++c) {
            rgb[i * 3 + c] = to_byte(p[channels == 1 ? 0 : c], encode_srgb);
        }
    }
    write_file_atomically(path, [&](int fd) {
        // libpng writes to a FILE*; fclose closes the FILE's own copy of the descriptor, and the
        // atomic writer closes `fd`.
        const int own = ::dup(fd);
        std::FILE* file = own >= 0 ? ::fdopen(own, "wb") : nullptr;
        if (file == nullptr) {
            const std::string reason = std::generic_category().message(errno);
            if (own >= 0) ::close(own);
            throw SequenceError(path + ": cannot open the file for writing: " + reason);
        }
        PngErrorState state;
        const bool encoded = encode_png(file, image.width, image.height, rgb.data(), &state);
        const bool closed = std::fclose(file) == 0;
        if (!encoded) throw SequenceError(path + ": PNG encoding failed: " + state.message);
        if (!closed) throw SequenceError(path + ": writing failed");
    });
}

}  // namespace swinup
