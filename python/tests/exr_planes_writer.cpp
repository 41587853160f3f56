// Writes OpenEXR files with the real library (scanline, ZIP, as src/sequence/exr_io.cpp does) from
// raw float32 planes, so that python tests can make sequence folders (sequence_writer.py) that the
// pure-Python reader and the C++ reader both read.
// Usage: exr_planes_writer OUT.exr WIDTH HEIGHT half|float NAMES < planes
//   NAMES: comma-separated channel names (R,G,B or Z ...); stdin: the planes in that order, each
//   WIDTH * HEIGHT float32 values row-major.
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
        std::fprintf(stderr, "usage: %s OUT.exr WIDTH HEIGHT half|float NAMES < planes\n", argv[0]);
        return 2;
    }
    const int w = std::atoi(argv[2]), h = std::atoi(argv[3]);
    const bool as_half = std::strcmp(argv[4], "half") == 0;
    std::vector<std::string> names;
    std::stringstream list(argv[5]);
    for (std::string name; std::getline(list, name, ',');) names.push_back(name);
    const size_t n = size_t(w) * size_t(h);
    std::vector<std::vector<float>> planes(names.size(), std::vector<float>(n));
    for (auto& plane : planes) {
        if (std::fread(plane.data(), sizeof(float), n, stdin) != n) {
            std::fprintf(stderr, "%s: stdin holds fewer than %zu planes of %dx%d\n", argv[1], names.size(), w, h);
            return 1;
        }
    }
    Imf::Header header(w, h);
    header.compression() = Imf::ZIP_COMPRESSION;
    std::vector<std::vector<half>> halves(names.size());
    Imf::FrameBuffer fb;
    for (size_t c = 0; c < names.size(); ++c) {
        if (as_half) {
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
