// Fuzzes the sequence frames' EXR reader (exr_read, here from memory through exr_read_memory,
// which shares its code): the colour, depth and motion files of a sequence folder.
// The header check stands in for the one sequence_read_frame passes, which refuses any size but
// sequence.json's: here anything over 256x256 pixels, so that a hostile data window is refused
// before allocation, as there.
// Promises checked: the reader returns or throws SequenceError naming the file; an image it
// returns has the size and channels its header check was shown.
// OpenEXR itself is Debian's build, without coverage or ASan: the fuzzer sees our side only.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sequence/sequence.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    constexpr long kMaxPixels = 256 * 256;
    int checked_width = 0, checked_height = 0, checked_channels = 0;
    const auto check_header = [&](int width, int height, int channels) {
        FUZZ_CHECK(width > 0 && height > 0 && channels >= 1 && channels <= 4,
                   "header check shown " + std::to_string(width) + "x" + std::to_string(height) + "x" +
                       std::to_string(channels));
        if (static_cast<long>(width) * height > kMaxPixels)
            throw swinup::SequenceError("frame.exr: larger than the sequence's frames");
        checked_width = width;
        checked_height = height;
        checked_channels = channels;
    };
    swinup::Image image;
    try {
        image = swinup::exr_read_memory(data, size, "frame.exr", check_header);
    } catch (const swinup::SequenceError& e) {
        FUZZ_CHECK(std::string(e.what()).rfind("frame.exr: ", 0) == 0,
                   std::string("the error does not name the file: ") + e.what());
        return 0;
    }
    FUZZ_CHECK(checked_width > 0, "an image read without its header being checked");
    FUZZ_CHECK(image.width == checked_width && image.height == checked_height &&
                   image.channels == checked_channels &&
                   image.data.size() == static_cast<size_t>(image.width) * static_cast<size_t>(image.height) *
                                            static_cast<size_t>(image.channels),
               "the image is not what its header said");
    return 0;
}
