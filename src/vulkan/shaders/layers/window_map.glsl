// The token-grid index maps of src/model/window_map.h, written identically for the layer shaders:
// 4x4 windows, Swin's cyclic shift by 2 tokens and its attention mask, and the 2x2 quadrant map
// that patch merge (space-to-depth) and patch expand (depth-to-space) share.
#ifndef SWINUP_WINDOW_MAP_GLSL
#define SWINUP_WINDOW_MAP_GLSL

const int kWindow = 4;
const int kWindowTokens = 16;
const int kShift = 2;

// Position (x, y) of token `token` of window `window` in the grid the windows tile (the rolled
// grid when shifted).
ivec2 window_token_rolled(int window, int token, int grid_w) {
    const int windows_x = grid_w / kWindow;
    return ivec2((window % windows_x) * kWindow + token % kWindow,
                 (window / windows_x) * kWindow + token / kWindow);
}

// The grid token that token `token` of window `window` reads and writes (the roll and the roll
// back at once).
ivec2 window_token(int window, int token, int grid_w, int grid_h, bool shifted) {
    ivec2 c = window_token_rolled(window, token, grid_w);
    if (shifted) {
        c.x = (c.x + kShift) % grid_w;
        c.y = (c.y + kShift) % grid_h;
    }
    return c;
}

int window_token_index(int window, int token, int grid_w, int grid_h, bool shifted) {
    const ivec2 c = window_token(window, token, grid_w, grid_h, shifted);
    return c.y * grid_w + c.x;
}

// Swin's mask regions along one axis of n tokens of the rolled grid: [0, n-4), [n-4, n-2), [n-2, n).
int shift_region(int rolled, int n) {
    return rolled < n - kWindow ? 0 : (rolled < n - kShift ? 1 : 2);
}

// Bit j: query token `query` of `window` may attend to key token j.
uint window_key_mask(int window, int query, int grid_w, int grid_h, bool shifted) {
    if (!shifted) return (1u << kWindowTokens) - 1u;
    const ivec2 q = window_token_rolled(window, query, grid_w);
    const int qy = shift_region(q.y, grid_h);
    const int qx = shift_region(q.x, grid_w);
    uint mask = 0u;
    for (int j = 0; j < kWindowTokens; ++j) {
        const ivec2 k = window_token_rolled(window, j, grid_w);
        if (shift_region(k.y, grid_h) == qy && shift_region(k.x, grid_w) == qx) mask |= 1u << j;
    }
    return mask;
}

// Quadrant q = dy * 2 + dx of coarse token (cx, cy): the fine token (2cx + dx, 2cy + dy).
ivec2 quadrant_fine_token(int coarse_x, int coarse_y, int quadrant) {
    return ivec2(2 * coarse_x + (quadrant & 1), 2 * coarse_y + (quadrant >> 1));
}

#endif
