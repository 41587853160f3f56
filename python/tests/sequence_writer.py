"""Sequence folders for tests (src/sequence/sequence.h's layout: sequence.json and EXR frames),
written with the real OpenEXR library through exr_planes_writer.cpp, compiled once per process
with g++ (test classes skip without g++ and the OpenEXR development files, as test_reference.py's
EXR test does)."""
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
_writer = None


def writer_or_skip_reason():
    """(path of the compiled writer, None) or (None, why it cannot be made)."""
    global _writer
    if _writer is not None:
        return _writer, None
    gxx = shutil.which("g++")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "OpenEXR"], capture_output=True, text=True)
    if not gxx or flags.returncode != 0:
        return None, "needs g++ and the OpenEXR development files (scripts/packages.sh)"
    exe = os.path.join(tempfile.mkdtemp(prefix="swinup-exr-writer-"), "exr_planes_writer")
    subprocess.run([gxx, "-std=c++17", "-O1", os.path.join(HERE, "exr_planes_writer.cpp"), "-o", exe]
                   + flags.stdout.split(), check=True)
    _writer = exe
    return _writer, None


def write_exr(path, planes: dict, half=True, compression="zip", float_channels=()):
    """planes: {channel name: [H, W] array}, written in that order, as half (or float where `half`
    is False or the name is in float_channels); compression none, zips or zip."""
    exe, why = writer_or_skip_reason()
    if exe is None:
        raise RuntimeError(why)
    names = list(planes)
    h, w = np.asarray(planes[names[0]]).shape
    data = b"".join(np.ascontiguousarray(planes[n], dtype=np.float32).tobytes() for n in names)
    channels = ",".join(f"{n}:{'half' if half and n not in float_channels else 'float'}" for n in names)
    subprocess.run([exe, path, str(w), str(h), compression, channels], input=data, check=True)


def write_sequence(path, color, depth, motion, gt, masks=None, jitter=None, hdr=True, motion_masks=None):
    """A sequence folder: color [N, H, W, 3], depth [N, H, W], motion [N, H, W, 2] (render pixels,
    current -> previous), gt [N, Hd, Wd, 3], masks [N, H, W, 2] (reactive, transparency) or None
    (a sequence without masks), jitter [N, 2] (default zero), motion_masks [N, Hd, Wd, 2]
    (disocclusion, moving object) or None (a sequence without them)."""
    os.makedirs(path, exist_ok=True)
    n, h, w, _ = color.shape
    dh, dw = gt.shape[1:3]
    jitter = np.zeros((n, 2), np.float32) if jitter is None else np.asarray(jitter, np.float32)
    info = {"format": "swinup-sequence", "version": 1, "frame_count": n, "render_size": [w, h],
            "display_size": [dw, dh], "jitter_x": jitter[:, 0].tolist(), "jitter_y": jitter[:, 1].tolist(),
            "conventions": {"hdr": hdr, "depth_inverted": False, "mv_jittered": False, "mv_sign": 1},
            "files": {"ground_truth": True, "mv_display": False}}
    if masks is not None:
        info["has_masks"] = True
    if motion_masks is not None:
        info["has_motion_masks"] = True
    with open(os.path.join(path, "sequence.json"), "w") as f:
        json.dump(info, f)
    for i in range(n):
        def frame(kind):
            return os.path.join(path, f"{kind}.{i:04d}.exr")
        write_exr(frame("color"), {"R": color[i, ..., 0], "G": color[i, ..., 1], "B": color[i, ..., 2]})
        write_exr(frame("depth"), {"Z": depth[i]}, half=False)
        write_exr(frame("mv"), {"R": motion[i, ..., 0], "G": motion[i, ..., 1]})
        write_exr(frame("gt"), {"R": gt[i, ..., 0], "G": gt[i, ..., 1], "B": gt[i, ..., 2]})
        if masks is not None:
            write_exr(frame("masks"), {"R": masks[i, ..., 0], "G": masks[i, ..., 1]})
        if motion_masks is not None:
            write_exr(frame("motion_masks"), {"R": motion_masks[i, ..., 0], "G": motion_masks[i, ..., 1]})
