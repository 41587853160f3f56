// Writes OpenEXR files with the real library (scanline, as src/sequence/exr_io.cpp does) from raw
// float32 planes, so that python tests can make files and sequence folders (sequence_writer.py)
// that the pure-Python reader and the C++ reader both read.
// Usage: exr_planes_writer OUT.exr WIDTH HEIGHT COMPRESSION CHANNELS < planes
//   COMPRESSION: none, zips or zip. CHANNELS: comma-separated NAME:TYPE, TYPE half or float
//   (R:half,G:half,Z:float ...); stdin: the planes in that order, each WIDTH * HEIGHT float32
//   values row-major.
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfOutputFile.h>
#include <half.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s OUT.exr WIDTH HEIGHT none|zips|zip NAME:half|float,... < planes\n", argv[0]);
        return 2;
    }
    const int w = std::atoi(argv[2]), h = std::atoi(argv[3]);
    std::vector<std::string> names;
    std::vector<bool> as_half;
    std::stringstream list(argv[5]);
    for (std::string channel; std::getline(list, channel, ',');) {
        const size_t colon = channel.find(':');
        const std::string type = colon == std::string::npos ? "" : channel.substr(colon + 1);
        if (type != "half" && type != "float") {
            std::fprintf(stderr, "%s: channel '%s' is not NAME:half or NAME:float\n", argv[1], channel.c_str());
            return 2;
        }
        names.push_back(channel.substr(0, colon));
        as_half.push_back(type == "half");
    }
    const size_t n = size_t(w) * size_t(h);
    std::vector<std::vector<float>> planes(names.size(), std::vector<float>(n));
    for (auto& plane : planes) {
        if (std::fread(plane.data(), sizeof(float), n, stdin) != n) {
            std::fprintf(stderr, "%s: stdin holds fewer than %zu planes of %dx%d\n", argv[1], names.size(), w, h);
            return 1;
        }
    }
    Imf::Header header(w, h);
    header.compression() = std::strcmp(argv[4], "none") == 0   ? Imf::NO_COMPRESSION
                           : std::strcmp(argv[4], "zips") == 0 ? Imf::ZIPS_COMPRESSION
                                                               : Imf::ZIP_COMPRESSION;
    std::vector<std::vector<half>> halves(names.size());
    Imf::FrameBuffer fb;
    for (size_t c = 0; c < names.size(); ++c) {
        if (as_half[c]) {
            header.channels().insert(names[c], Imf::Channel(Imf::HALF));
            halves[c].assign(planes[c].begin(), planes[c].end());
            fb.insert(names[c], Imf::Slice(Imf::HALF, reinterpret_cast<char*>(halves[c].data()), sizeof(half),
                                           sizeof(half) * w));
        } else {
            header.channels().insert(names[c], Imf::Channel(Imf::FLOAT));
            fb.insert(names[c], Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(planes[c].data()), sizeof(float),
                                           sizeof(float) * w));
        }
    }
    Imf::OutputFile file(argv[1], header);
    file.setFrameBuffer(fb);
    file.writePixels(h);
    return 0;
}
