#include "vulkan/layers/gemm.h"

#include <stdexcept>

namespace swinup::vulkan {

namespace {
// gemm_e4m3.comp's tiles (both variants): 64 outputs x 64 rows, or 32 outputs x 128 rows where
// 64-output tiles would compute outputs nobody reads (layers of 8, 16, 32 or 96 outputs).
constexpr int kTileElements = 4096;
// gemm_matrix.comp's: 64 rows x 64 or 32 outputs (the same choice).
constexpr int kMatrixTileRows = 64;
int tile_outputs(int n) { return n % 64 == 0 ? 64 : 32; }
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
    p.m = call.rows;
    const BufferView skip = call.skip.buffer != VK_NULL_HANDLE ? call.skip : call.out;
    const int tile_n = tile_outputs(l.out);
    const bool wide = tile_n == 64;
    // Exact mode: the CPU's k order. Fast mode: the matrix units, or the portable kernels.
    LayerKernel kernel = wide ? LayerKernel::gemm_e4m3 : LayerKernel::gemm_e4m3_n32;
    uint32_t rows_per_group = uint32_t(kTileElements / tile_n);
    if (!exact && recorder.fast_gemm_on_matrix_tiles()) {
        kernel = wide ? LayerKernel::gemm_matrix : LayerKernel::gemm_matrix_n32;
        rows_per_group = kMatrixTileRows;
    } else if (!exact) {
        kernel = wide ? LayerKernel::gemm_portable : LayerKernel::gemm_portable_n32;
    }
    const Groups2d rows = groups_1d(uint64_t(call.rows), rows_per_group);
    recorder.dispatch(kernel, {call.a, l.weight, l.scale, l.bias, call.out, skip}, &p, sizeof p,
                      uint32_t((l.out + tile_n - 1) / tile_n), rows.x, rows.y);
}

}  // namespace swinup::vulkan
