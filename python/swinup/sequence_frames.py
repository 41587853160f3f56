"""One frame of a sequence folder (colour, depth, motion, ground truth, and the masks when the
sequence has them) as numpy arrays, in the units training uses. numpy only (no torch), so that
process pools start quickly: reading EXR files is mostly Python and numpy work that threads cannot
share (the GIL)."""
import os

import numpy as np

from .exr import read_exr


def check_masks(path: str, masks: np.ndarray, width: int, height: int):
    """Raises ValueError naming the file unless `masks` ([H, W, 2], reactive and transparency) is
    width x height with values in [0, 1], as the C++ reader checks them (sequence_frames.cpp:
    a value outside [0, 1], NaN or Inf is named with its pixel and plane)."""
    if masks.shape[:2] != (height, width):
        raise ValueError(f"{path}: size {masks.shape[1]}x{masks.shape[0]} does not match the render "
                         f"size {width}x{height} in sequence.json")
    bad = ~((masks >= 0.0) & (masks <= 1.0))
    if bad.any():
        y, x, c = (int(v) for v in np.argwhere(bad)[0])
        plane = ("reactive (R)", "transparency & composition (G)")[c]
        raise ValueError(f"{path}: {plane} value {masks[y, x, c]!r} at pixel ({x}, {y}) is outside [0, 1]")


def read_masks(path: str, width: int, height: int) -> np.ndarray:
    """A masks.NNNN.exr file (docs/masks.md: R reactive, G transparency & composition, render
    size) -> f16 [H, W, 2], checked (check_masks)."""
    m = read_exr(path)
    missing = [c for c in ("R", "G") if c not in m]
    if missing:
        raise ValueError(f"{path}: no channel {' or '.join(missing)} (masks are R reactive, G transparency)")
    masks = np.stack([m["R"], m["G"]], -1)
    check_masks(path, masks, width, height)
    return masks.astype(np.float16)  # exact: the file's channels are half


def read_disocclusion(path: str, width: int, height: int) -> np.ndarray:
    """The disocclusion plane (R) of a motion_masks.NNNN.exr file (display size, each value 0 or
    1: the pixel's surface was hidden or off screen in one of the previous 4 frames;
    docs/sequence-format.md, "Motion masks") -> u8 [Hd, Wd], checked like the C++ reader."""
    m = read_exr(path)
    if "R" not in m or "G" not in m:
        raise ValueError(f"{path}: expected channels R (disocclusion) and G (moving object)")
    plane = m["R"]
    if plane.shape != (height, width):
        raise ValueError(f"{path}: size {plane.shape[1]}x{plane.shape[0]} does not match the display "
                         f"size {width}x{height} in sequence.json")
    bad = ~((plane >= 0.0) & (plane <= 1.0))
    if bad.any():
        y, x = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"{path}: disocclusion (R) value {plane[y, x]!r} at pixel ({x}, {y}) is outside [0, 1]")
    return (plane >= 0.5).astype(np.uint8)


def read_frame(path: str, i: int, mv_sign: int, mv_jittered: bool, jitter: np.ndarray, has_masks=False,
               has_motion_masks=False):
    """-> (colour f16 [H, W, 3], depth f32 [H, W], motion f16 [H, W, 2] current -> previous in
    render pixels, ground truth f16 [Hd, Wd, 3], masks f16 [H, W, 2] or None when the sequence has
    none, disocclusion u8 [Hd, Wd] or None when it has no motion masks). jitter: the sequence's
    [N, 2] offsets."""
    def exr(kind):
        return read_exr(os.path.join(path, f"{kind}.{i:04d}.exr"))
    c = exr("color")
    d = exr("depth")
    m = exr("mv")
    g = exr("gt")
    color = np.stack([c["R"], c["G"], c["B"]], -1).astype(np.float16)
    depth = d["Z"].astype(np.float32)
    motion = (np.stack([m["R"], m["G"]], -1) * mv_sign).astype(np.float32)
    if mv_jittered:
        # As the library does (cpu_backend.cpp): vectors measured between jittered images
        # carry -(j_prev - j_cur); adding it back makes them join pixel centres.
        prev = jitter[i - 1] if i > 0 else jitter[i]
        motion = motion + (prev - jitter[i])
    gt = np.stack([g["R"], g["G"], g["B"]], -1).astype(np.float16)
    masks = None
    if has_masks:
        masks = read_masks(os.path.join(path, f"masks.{i:04d}.exr"), depth.shape[1], depth.shape[0])
    disoccluded = None
    if has_motion_masks:
        disoccluded = read_disocclusion(os.path.join(path, f"motion_masks.{i:04d}.exr"), gt.shape[1], gt.shape[0])
    return color, depth, motion.astype(np.float16), gt, masks, disoccluded


def _read_frame_args(args):
    return read_frame(*args)


def read_frames(path: str, n: int, mv_sign: int, mv_jittered: bool, jitter: np.ndarray, pool=None,
                has_masks=False, has_motion_masks=False):
    """All n frames, through `pool` (an Executor) when given."""
    jobs = [(path, i, mv_sign, mv_jittered, jitter, has_masks, has_motion_masks) for i in range(n)]
    if pool is None:
        return [read_frame(*j) for j in jobs]
    return list(pool.map(_read_frame_args, jobs))
