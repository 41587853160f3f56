"""One frame of a sequence folder (colour, depth, motion, ground truth) as numpy arrays, in the
units training uses. numpy only (no torch), so that process pools start quickly: reading EXR files
is mostly Python and numpy work that threads cannot share (the GIL)."""
import os

import numpy as np

from .exr import read_exr


def read_frame(path: str, i: int, mv_sign: int, mv_jittered: bool, jitter: np.ndarray):
    """-> (colour f16 [H, W, 3], depth f32 [H, W], motion f16 [H, W, 2] current -> previous in
    render pixels, ground truth f16 [Hd, Wd, 3]). jitter: the sequence's [N, 2] offsets."""
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
    return color, depth, motion.astype(np.float16), gt


def _read_frame_args(args):
    return read_frame(*args)


def read_frames(path: str, n: int, mv_sign: int, mv_jittered: bool, jitter: np.ndarray, pool=None):
    """All n frames, through `pool` (an Executor) when given."""
    jobs = [(path, i, mv_sign, mv_jittered, jitter) for i in range(n)]
    if pool is None:
        return [read_frame(*j) for j in jobs]
    return list(pool.map(_read_frame_args, jobs))
