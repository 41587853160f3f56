#include "vulkan/layers/gemm.h"

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "vulkan/layers/rms_norm.h"

namespace swinup::vulkan {

namespace {
// gemm_e4m3.comp's tiles (both variants): 64 outputs x 64 rows, or 32 outputs x 128 rows where
// 64-output tiles would compute outputs nobody reads (layers of 8, 16, 32 or 96 outputs).
constexpr int kTileElements = 4096;
// gemm_matrix.comp's: 64 rows x 64 or 32 outputs (the same choice).
constexpr int kMatrixTileRows = 64;
int tile_outputs(int n) { return n % 64 == 0 ? 64 : 32; }
}  // namespace

bool fused_norm(const LayerRecorder& recorder, bool exact) {
    // Off by default: measured on the H200 (2026-12-07, lite 720p -> 4K), the fused form made the
    // network slower, 34.6 ms against 27.4 (the GEMMs recompute each row's sum of squares once per
    // output tile, one invocation per row: docs/performance.md, "Vulkan backend").
    // SWINUP_VULKAN_FUSED=norms turns it on for measurements.
    return fused_norms_enabled() && !exact && recorder.fast_gemm_on_matrix_tiles();
}

namespace {
std::atomic<int> g_fused_norms{-1};  // -1: not read from the environment yet
}  // namespace

bool fused_norms_enabled() {
    int on = g_fused_norms.load();
    if (on < 0) {
        const char* env = std::getenv("SWINUP_VULKAN_FUSED");
        on = env != nullptr && std::string(env) == "norms" ? 1 : 0;
        g_fused_norms.store(on);
    }
    return on != 0;
}

void set_fused_norms(bool on) { g_fused_norms.store(on ? 1 : 0); }

void record_gemm(LayerRecorder& recorder, const GemmCall& given, bool exact) {
    GemmCall call = given;
    const bool with_norm = call.norm_gain.buffer != VK_NULL_HANDLE;
    const bool fuse = with_norm && fused_norm(recorder, exact);
    if (with_norm && !fuse) {
        // The norm kernel into the scratch rows, then the GEMM on them.
        const int k = call.layer->in;
        record_rms_norm(recorder, {call.a, call.norm_gain, call.norm_scratch, call.rows, k, false, 0, k / 4}, exact);
        recorder.barrier();
        call.a = call.norm_scratch;
        call.lda_words = k / 4;
        call.norm_gain = {};
    }
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
    p.norm = fuse ? 1 : 0;
    if (fuse) p.lda = l.in / 2;  // f16 rows
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
    const uint32_t groups_x = uint32_t((l.out + tile_n - 1) / tile_n);
    if (kernel == LayerKernel::gemm_matrix || kernel == LayerKernel::gemm_matrix_n32) {
        // Binding 6: the fused norm's gain (any buffer when there is none: not read).
        const BufferView gain = fuse ? call.norm_gain : l.scale;
        recorder.dispatch(kernel, {call.a, l.weight, l.scale, l.bias, call.out, skip, gain}, &p, sizeof p, groups_x,
                          rows.x, rows.y);
    } else {
        recorder.dispatch(kernel, {call.a, l.weight, l.scale, l.bias, call.out, skip}, &p, sizeof p, groups_x, rows.x,
                          rows.y);
    }
}

}  // namespace swinup::vulkan
