// Evaluates the C++ definitions the Python reference must match bit for bit (src/numeric/e4m3.h,
// half.h, exact_math.h) on float32 inputs read from a file; check_against_cpp.py compares.
// Usage: cpp_reference IN.f32 OUT.f32 (OUT holds 9 outputs per input, function-major).
#include <cstdio>
#include <vector>

#include "numeric/e4m3.h"
#include "numeric/exact_math.h"
#include "numeric/half.h"

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s IN.f32 OUT.f32\n", argv[0]);
        return 2;
    }
    std::FILE* in = std::fopen(argv[1], "rb");
    if (!in) {
        std::fprintf(stderr, "cannot open %s\n", argv[1]);
        return 1;
    }
    std::vector<float> x;
    float v;
    while (std::fread(&v, sizeof v, 1, in) == 1) x.push_back(v);
    std::fclose(in);
    using namespace swinup;
    float (*const fns[])(float) = {
        [](float f) { return round_to_e4m3(f); },
        [](float f) { return round_to_f16(f); },
        [](float f) { return exact::exp2(f); },
        [](float f) { return exact::log2(f); },
        [](float f) { return exact::tanh(f); },
        [](float f) { return exact::sigmoid(f); },
        [](float f) { return exact::gelu(f); },
        [](float f) { return exact::tonemap_t(f); },
        [](float f) { return exact::tonemap_t_inverse(f); },
    };
    std::vector<float> out;
    out.reserve(x.size() * 9);
    for (auto* fn : fns)
        for (float f : x) out.push_back(fn(f));
    std::FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(out.data(), sizeof(float), out.size(), o) != out.size()) {
        std::fprintf(stderr, "cannot write %s\n", argv[2]);
        return 1;
    }
    std::fclose(o);
    return 0;
}
