// Single OpenEXR images through OpenEXR's C++ API. Channel sets are fixed by the number of
// channels: 4 = R,G,B,A (colour), 3 = R,G,B, 2 = R,G (motion), 1 = Z (depth). The pixels are read
// as float whatever the file stores (OpenEXR converts HALF exactly); they are written as HALF or
// FLOAT, half rounding to nearest even through numeric/half.h so that every writer rounds alike.
// Writes go through write_file_atomically: OpenEXR writes to the file descriptor it hands over
// (DescriptorStream below), never to a path of its own.
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfInputFile.h>
#include <ImfOutputFile.h>
#include <ImfStdIO.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "numeric/half.h"
#include "sequence/atomic_write.h"
#include "sequence/sequence.h"

namespace swinup {
namespace {

// Channel names in interleaving order for each supported channel count (index = count).
const std::vector<std::vector<std::string>>& channel_sets() {
    static const std::vector<std::vector<std::string>> sets = {
        {}, {"Z"}, {"R", "G"}, {"R", "G", "B"}, {"R", "G", "B", "A"}};
    return sets;
}

std::string join(const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : ",") + n;
    return s.empty() ? "(none)" : s;
}

// The supported channel set that the file's channel names form, or an empty list.
std::vector<std::string> match_channel_set(const std::set<std::string>& present) {
    for (const std::vector<std::string>& set : channel_sets()) {
        if (!set.empty() && std::set<std::string>(set.begin(), set.end()) == present) return set;
    }
    return {};
}

// Finite values beyond the half range saturate to +-65504 instead of becoming Inf, so a finite
// image stays finite on disk; NaN and Inf are stored as they are.
uint16_t to_half_saturating(float v) {
    constexpr float kHalfMax = 65504.0f;
    if (std::isfinite(v)) v = std::clamp(v, -kHalfMax, kHalfMax);
    return f32_to_f16_bits(v);
}

// OpenEXR's output stream over a file descriptor that write_file_atomically created and owns.
// ~OutputFile writes the line offset table and swallows any error doing so, so the stream keeps
// its first error for the writer to report once the file object is gone.
class DescriptorStream final : public Imf::OStream {
public:
    DescriptorStream(int fd, const std::string& path) : Imf::OStream(path.c_str()), fd_(fd), path_(path) {}

    void write(const char c[], int n) override {
        try {
            write_all(fd_, c, static_cast<size_t>(n), path_);
        } catch (const SequenceError& e) {
            if (error_.empty()) error_ = e.what();
            throw;
        }
        position_ += static_cast<uint64_t>(n);
    }
    uint64_t tellp() override { return position_; }
    void seekp(uint64_t position) override {
        if (::lseek(fd_, static_cast<off_t>(position), SEEK_SET) < 0) {
            const std::string message = path_ + ": seeking failed: " + std::generic_category().message(errno);
            if (error_.empty()) error_ = message;
            throw SequenceError(message);
        }
        position_ = position;
    }
    // The first write or seek error, or "".
    const std::string& error() const { return error_; }

private:
    int fd_;
    std::string path_;
    uint64_t position_ = 0;
    std::string error_;
};

// An EXR file held in memory; reading past its end throws, as a short file does. It says it is
// memory-mapped, so OpenEXR reads a chunk in place instead of first allocating the size the
// chunk's header claims (up to 2 GB, checked against the file only by the read that follows).
class MemoryStream : public Imf::IStream {
public:
    MemoryStream(const std::string& name, const void* data, size_t size)
        : Imf::IStream(name.c_str()), data_(static_cast<const char*>(data)), size_(size) {}

    bool isMemoryMapped() const override { return true; }
    char* readMemoryMapped(int n) override {
        const char* at = take(n);
        // OpenEXR only reads through this pointer (its decompressors take const char*).
        return const_cast<char*>(at);
    }
    bool read(char c[], int n) override {
        const char* at = take(n);
        if (n > 0) std::memcpy(c, at, static_cast<size_t>(n));
        return position_ < size_;
    }
    uint64_t tellg() override { return position_; }
    void seekg(uint64_t position) override { position_ = position; }  // checked by read()

private:
    // The next n bytes, or an exception when the file has fewer.
    const char* take(int n) {
        if (n < 0 || position_ > size_ || static_cast<uint64_t>(n) > size_ - position_) {
            throw std::runtime_error("unexpected end of file: " + std::to_string(n) + " bytes wanted at offset " +
                                     std::to_string(position_) + " of " + std::to_string(size_));
        }
        const char* at = data_ + position_;
        position_ += static_cast<uint64_t>(n);
        return at;
    }

    const char* data_;
    size_t size_;
    uint64_t position_ = 0;
};

// exr_read's body for any stream; `name` (the path) names the file in errors.
Image read_exr_stream(Imf::IStream& stream, const std::string& name,
                      const std::function<void(int width, int height, int channels)>& check_header) {
    try {
        Imf::InputFile file(stream);
        const Imf::Header& header = file.header();
        if (!file.isComplete()) {
            throw SequenceError(name + ": EXR file is incomplete (truncated?)");
        }
        std::set<std::string> present;
        for (auto it = header.channels().begin(); it != header.channels().end(); ++it) {
            if (it.channel().xSampling != 1 || it.channel().ySampling != 1) {
                throw SequenceError(name + ": channel " + it.name() +
                                    " is subsampled; only full-resolution channels are supported");
            }
            if (it.channel().type == Imf::UINT) {
                throw SequenceError(name + ": channel " + it.name() +
                                    " is UINT; expected HALF or FLOAT");
            }
            present.insert(it.name());
        }
        const std::vector<std::string> names = match_channel_set(present);
        if (names.empty()) {
            throw SequenceError(name + ": unsupported channel set " +
                                join(std::vector<std::string>(present.begin(), present.end())) +
                                "; expected R,G,B,A or R,G,B or R,G or Z");
        }
        const Imath::Box2i window = header.dataWindow();
        const int width = window.max.x - window.min.x + 1;
        const int height = window.max.y - window.min.y + 1;
        if (width <= 0 || height <= 0) throw SequenceError(name + ": empty data window");
        // A corrupt or hostile header must not make us allocate gigabytes.
        constexpr int kMaxSide = 32768;
        if (width > kMaxSide || height > kMaxSide) {
            throw SequenceError(name + ": data window " + std::to_string(width) + "x" +
                                std::to_string(height) + " is larger than " +
                                std::to_string(kMaxSide) + " per side");
        }
        const int channels = static_cast<int>(names.size());
        if (check_header) check_header(width, height, channels);
        Image image(width, height, channels);

        Imf::FrameBuffer frame_buffer;
        const size_t x_stride = sizeof(float) * static_cast<size_t>(channels);
        const size_t y_stride = x_stride * static_cast<size_t>(width);
        for (int c = 0; c < channels; ++c) {
            frame_buffer.insert(names[c], Imf::Slice::Make(Imf::FLOAT, image.data.data() + c,
                                                           window, x_stride, y_stride));
        }
        file.setFrameBuffer(frame_buffer);
        file.readPixels(window.min.y, window.max.y);
        return image;
    } catch (const SequenceError&) {
        throw;
    } catch (const std::exception& e) {
        throw SequenceError(name + ": cannot read EXR: " + e.what());
    }
}

}  // namespace

Image exr_read(const std::string& path,
               const std::function<void(int width, int height, int channels)>& check_header) {
    if (!std::filesystem::exists(path)) throw SequenceError(path + ": file not found");
    std::unique_ptr<Imf::StdIFStream> stream;
    try {
        stream = std::make_unique<Imf::StdIFStream>(path.c_str());
    } catch (const std::exception& e) {
        throw SequenceError(path + ": cannot read EXR: " + e.what());
    }
    return read_exr_stream(*stream, path, check_header);
}

Image exr_read_memory(const void* data, size_t size, const std::string& name,
                      const std::function<void(int width, int height, int channels)>& check_header) {
    MemoryStream stream(name, data, size);
    return read_exr_stream(stream, name, check_header);
}

void exr_write(const std::string& path, const Image& image, bool half_precision) {
    const int channels = image.channels;
    if (channels < 1 || channels > 4) {
        throw SequenceError(path + ": cannot write an image of " + std::to_string(channels) +
                            " channels (1 to 4 supported)");
    }
    if (image.width <= 0 || image.height <= 0 ||
        image.data.size() != size_t(image.width) * size_t(image.height) * size_t(channels)) {
        throw SequenceError(path + ": cannot write an image of size " +
                            std::to_string(image.width) + "x" + std::to_string(image.height) +
                            " holding " + std::to_string(image.data.size()) + " values");
    }
    const std::vector<std::string>& names = channel_sets()[static_cast<size_t>(channels)];
    const Imf::PixelType type = half_precision ? Imf::HALF : Imf::FLOAT;

    // Half pixels are converted here (not by OpenEXR) so the rounding is numeric/half.h's.
    std::vector<uint16_t> halves;
    if (half_precision) {
        halves.resize(image.data.size());
        std::transform(image.data.begin(), image.data.end(), halves.begin(), to_half_saturating);
    }
    write_file_atomically(path, [&](int fd) {
        Imf::Header header(image.width, image.height);
        header.compression() = Imf::ZIP_COMPRESSION;  // lossless
        for (const std::string& name : names) header.channels().insert(name, Imf::Channel(type));
        const size_t element = half_precision ? sizeof(uint16_t) : sizeof(float);
        const size_t x_stride = element * static_cast<size_t>(channels);
        const size_t y_stride = x_stride * static_cast<size_t>(image.width);
        char* base = half_precision ? reinterpret_cast<char*>(halves.data())
                                    : reinterpret_cast<char*>(const_cast<float*>(image.data.data()));
        Imf::FrameBuffer frame_buffer;
        for (int c = 0; c < channels; ++c) {
            frame_buffer.insert(names[c],
                                Imf::Slice(type, base + element * static_cast<size_t>(c),
                                           x_stride, y_stride));
        }
        DescriptorStream stream(fd, path);
        {
            // The line offsets are written when `file` goes out of scope, before the rename.
            Imf::OutputFile file(stream, header);
            file.setFrameBuffer(frame_buffer);
            file.writePixels(image.height);
        }
        if (!stream.error().empty()) throw SequenceError(stream.error());
    });
}

}  // namespace swinup
