// Index maps of the network's token grids (docs/model-spec.md), one definition for the CPU and
// CUDA backends: the 4x4 windows, Swin's cyclic shift and its attention mask, and the 2x2 sub-token
// ("quadrant") map that patch merge (space-to-depth) and patch expand (depth-to-space) share.
//
// A grid is w x h tokens, row-major (y, x). Windows are numbered row-major over the (w/4) x (h/4)
// window grid; a window's 16 tokens are numbered row-major in the 4x4 window (the order of the
// relative-position bias table). Grids are multiples of 4 in each direction (the padded render grid
// is a multiple of 32, level 3 is render/8).
#pragma once

#include <cstdint>

#include "numeric/host_device.h"
#include "model/model_spec.h"

namespace swinup {

struct TokenCoord {
    int x;
    int y;
};

SWINUP_HD int window_count(int grid_w, int grid_h) {
    return (grid_w / kWindow) * (grid_h / kWindow);
}

// Position of token `token` of window `window` in the grid the windows tile: the grid itself when
// unshifted, the rolled grid when shifted.
SWINUP_HD TokenCoord window_token_rolled(int window, int token, int grid_w) {
    const int windows_x = grid_w / kWindow;
    return {(window % windows_x) * kWindow + token % kWindow,
            (window / windows_x) * kWindow + token / kWindow};
}

// The grid token that token `token` of window `window` reads and writes. A shifted block attends
// in the rolled grid, whose token (y, x) is the grid's ((y + 2) mod h, (x + 2) mod w); mapping
// through this function is the roll and the roll back at once.
SWINUP_HD TokenCoord window_token(int window, int token, int grid_w, int grid_h, bool shifted) {
    TokenCoord c = window_token_rolled(window, token, grid_w);
    if (shifted) {
        c.x = (c.x + kShift) % grid_w;
        c.y = (c.y + kShift) % grid_h;
    }
    return c;
}

// Row-major index of window_token(...) in the grid.
SWINUP_HD int window_token_index(int window, int token, int grid_w, int grid_h, bool shifted) {
    const TokenCoord c = window_token(window, token, grid_w, grid_h, shifted);
    return c.y * grid_w + c.x;
}

// Inverse of window_token: the (window, token) that holds grid token (x, y).
SWINUP_HD void token_window(int x, int y, int grid_w, int grid_h, bool shifted, int* window,
                            int* token) {
    if (shifted) {  // back into the rolled grid
        x = (x - kShift + grid_w) % grid_w;
        y = (y - kShift + grid_h) % grid_h;
    }
    *window = (y / kWindow) * (grid_w / kWindow) + x / kWindow;
    *token = (y % kWindow) * kWindow + x % kWindow;
}

// Swin's mask regions along one axis of n tokens of the rolled grid: [0, n-4), [n-4, n-2),
// [n-2, n). Only the last window of an axis straddles two regions (the tokens that wrapped).
SWINUP_HD int shift_region(int rolled, int n) {
    return rolled < n - kWindow ? 0 : (rolled < n - kShift ? 1 : 2);
}

// Bit j of the result is set when query token `query` of `window` may attend to key token j.
// Unshifted blocks attend to the whole window.
SWINUP_HD uint32_t window_key_mask(int window, int query, int grid_w, int grid_h, bool shifted) {
    if (!shifted) return (1u << kWindowTokens) - 1u;
    const TokenCoord q = window_token_rolled(window, query, grid_w);
    const int qy = shift_region(q.y, grid_h);
    const int qx = shift_region(q.x, grid_w);
    uint32_t mask = 0;
    for (int j = 0; j < kWindowTokens; ++j) {
        const TokenCoord k = window_token_rolled(window, j, grid_w);
        if (shift_region(k.y, grid_h) == qy && shift_region(k.x, grid_w) == qx) mask |= 1u << j;
    }
    return mask;
}

// Whether any pair of the window is masked (only windows in the last window row or column of a
// shifted block): lets kernels skip the mask everywhere else.
SWINUP_HD bool window_has_mask(int window, int grid_w, int grid_h, bool shifted) {
    if (!shifted) return false;
    const int windows_x = grid_w / kWindow;
    return window % windows_x == windows_x - 1 || window / windows_x == grid_h / kWindow - 1;
}

// The 2x2 sub-tokens of a coarse token, "quadrants" q = dy * 2 + dx in the order (0,0), (0,1),
// (1,0), (1,1). Merge input channel q * C + c is fine token (2x + dx, 2y + dy) channel c; expand
// output channel q * C' + c goes to that same fine token's channel c.
SWINUP_HD TokenCoord quadrant_fine_token(int coarse_x, int coarse_y, int quadrant) {
    return {2 * coarse_x + (quadrant & 1), 2 * coarse_y + (quadrant >> 1)};
}

// Inverse: the quadrant of fine token (x, y) inside its coarse token (x / 2, y / 2).
SWINUP_HD int fine_token_quadrant(int fine_x, int fine_y) { return (fine_y & 1) * 2 + (fine_x & 1); }

}  // namespace swinup
