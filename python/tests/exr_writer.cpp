// Writes OpenEXR files with the real library (as src/sequence/exr_io.cpp does: scanline, given
// compression) so that test_reference.py can check the pure-Python reader against them.
// Usage: exr_writer OUT.exr COMPRESSION(none|zips|zip) ; pixel values are a fixed formula.
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfOutputFile.h>
#include <half.h>

#include <cstring>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    const int w = 21, h = 37;
    Imf::Header header(w, h);
    header.compression() = std::strcmp(argv[2], "none") == 0   ? Imf::NO_COMPRESSION
                           : std::strcmp(argv[2], "zips") == 0 ? Imf::ZIPS_COMPRESSION
                                                               : Imf::ZIP_COMPRESSION;
    header.channels().insert("R", Imf::Channel(Imf::HALF));
    header.channels().insert("G", Imf::Channel(Imf::HALF));
    header.channels().insert("Z", Imf::Channel(Imf::FLOAT));
    std::vector<half> r(w * h), g(w * h);
    std::vector<float> z(w * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            r[y * w + x] = half(float(x) * 0.25f - float(y));
            g[y * w + x] = half(float(x * y) / 7.0f);
            z[y * w + x] = float(x) / 3.0f + float(y) * 1000.0f;
        }
    Imf::FrameBuffer fb;
    fb.insert("R", Imf::Slice(Imf::HALF, (char*)r.data(), sizeof(half), sizeof(half) * w));
    fb.insert("G", Imf::Slice(Imf::HALF, (char*)g.data(), sizeof(half), sizeof(half) * w));
    fb.insert("Z", Imf::Slice(Imf::FLOAT, (char*)z.data(), sizeof(float), sizeof(float) * w));
    Imf::OutputFile file(argv[1], header);
    file.setFrameBuffer(fb);
    file.writePixels(h);
    return 0;
}
