#include "vulkan/layers/gemm.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace swinup::vulkan {

namespace {
constexpr int kTile = 64;        // gemm_e4m3.comp: outputs and rows per workgroup
constexpr int kMaxGroups = 65535;  // maxComputeWorkGroupCount's guaranteed minimum
}  // namespace

void record_gemm(LayerRecorder& recorder, const GemmCall& call, bool exact) {
    const DeviceLinear& l = *call.layer;
    const bool expand =
        call.epilogue == GemmEpilogue::expand_f16_skip || call.epilogue == GemmEpilogue::expand_f32_skip;
    GemmParams p{};
    p.n = l.out;
    p.k = l.in;
    p.lda = call.lda_words;
    p.a_offset = call.a_offset_words;
    p.ldo = call.ldo;
    p.out_offset = call.out_offset;
    p.epilogue = int32_t(call.epilogue);
    p.coarse_w = call.coarse_w;
    p.expand_c = expand ? l.out / 4 : 0;
    p.exact = exact ? 1 : 0;
    if (expand && (l.out % 16 != 0)) throw std::logic_error("gemm: an expand needs 4 C' with C' % 4 == 0");
    const BufferView skip = call.skip.buffer != VK_NULL_HANDLE ? call.skip : call.out;
    const uint32_t groups_n = uint32_t((l.out + kTile - 1) / kTile);
    // Rows beyond the dispatch limit go in further dispatches over consecutive row ranges (the
    // expand addresses rows by coarse token, so it is kept in one: its grids are 4x smaller).
    const int rows_per_dispatch = expand ? call.rows : kMaxGroups * kTile;
    for (int first = 0; first < call.rows; first += rows_per_dispatch) {
        const int rows = std::min(rows_per_dispatch, call.rows - first);
        if ((rows + kTile - 1) / kTile > kMaxGroups) {
            throw std::invalid_argument("gemm: " + std::to_string(call.rows) + " rows exceed one dispatch");
        }
        GemmParams q = p;
        q.m = rows;
        q.a_offset = p.a_offset + first * p.lda;
        q.out_offset = p.out_offset + first * p.ldo;
        recorder.dispatch(LayerKernel::gemm_e4m3, {call.a, l.weight, l.scale, l.bias, call.out, skip}, &q, sizeof q,
                          groups_n, uint32_t((rows + kTile - 1) / kTile), 1);
    }
}

}  // namespace swinup::vulkan
