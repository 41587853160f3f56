"""Training clips: short frame sequences (render-resolution inputs, display-resolution ground
truth) from the project's sequence folders (sequence.json + EXR, src/sequence/sequence.h) or from
a procedural scene generated here on the training device.

A clip is a dict of tensors on one device: color [B, T, H, W, 3], depth [B, T, H, W],
motion [B, T, H, W, 2] (render pixels, current -> previous), jitter [B, T, 2],
gt [B, T, Hd, Wd, 3] (linear), masks [B, T, H, W, 2] (the staging inputs reactive and
transparency & composition, docs/masks.md; zero for a sequence without masks and for the
procedural scenes), disoccluded [B, T, Hd, Wd] (1 where the display pixel was uncovered within
the last four frames, from the sequence's motion masks: what --disocclusion-weight weighs; zero
for a sequence without them and for the procedural scenes), and Python values hdr,
depth_inverted, reset (list of T bools).
"""
import json
import math
import multiprocessing
import os
import random
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import torch

from .sequence_frames import read_frames


# ---- sequence folders --------------------------------------------------------------------------

class SequenceFolder:
    """One rendered sequence, loaded at construction into memory on `device` (f16 colour and
    ground truth, f32 depth, f16 motion), so that cutting a clip is a few slicing kernels on the
    training device instead of host copies every step. The masks (f16) are held only for a
    sequence that has them (sequence.json "has_masks"); clips of one without them get zero masks."""

    def __init__(self, path: str, device="cpu", pool=None):
        with open(os.path.join(path, "sequence.json")) as f:
            info = json.load(f)
        self.path = path
        self.w, self.h = info["render_size"]
        self.dw, self.dh = info["display_size"]
        self.n = info["frame_count"]
        conv = info.get("conventions", {})
        self.hdr = bool(conv.get("hdr", False))
        self.depth_inverted = bool(conv.get("depth_inverted", False))
        self.mv_jittered = bool(conv.get("mv_jittered", False))
        self.mv_sign = int(conv.get("mv_sign", 1))
        if not info.get("files", {}).get("ground_truth", False):
            raise ValueError(f"{path}: no ground truth (gt.NNNN.exr), cannot train on it")
        jitter = np.stack([np.asarray(info["jitter_x"], np.float32),
                           np.asarray(info["jitter_y"], np.float32)], axis=-1)
        self.reset = list(info.get("reset", [0] * self.n))
        self.has_masks = info.get("has_masks", False)
        if self.has_masks not in (True, False):
            raise ValueError(f"{path}: sequence.json 'has_masks' is {self.has_masks!r}, expected true or false")
        self.has_motion_masks = info.get("has_motion_masks", False)
        if self.has_motion_masks not in (True, False):
            raise ValueError(f"{path}: sequence.json 'has_motion_masks' is {self.has_motion_masks!r}, "
                             "expected true or false")
        frames = read_frames(path, self.n, self.mv_sign, self.mv_jittered, jitter, pool, self.has_masks,
                             self.has_motion_masks)
        dev = torch.device(device)
        self.color = torch.from_numpy(np.stack([f[0] for f in frames])).to(dev)
        self.depth = torch.from_numpy(np.stack([f[1] for f in frames])).to(dev)
        self.motion = torch.from_numpy(np.stack([f[2] for f in frames])).to(dev)
        self.gt = torch.from_numpy(np.stack([f[3] for f in frames])).to(dev)
        self.masks = torch.from_numpy(np.stack([f[4] for f in frames])) if self.has_masks else None
        if self.masks is not None and not self.masks.any():
            self.masks = None  # zero everywhere (the renderer writes masks for every scene): not held
        if self.masks is not None:
            self.masks = self.masks.to(dev)
        # The disoccluded display pixels (u8), held only for a sequence with motion masks.
        self.disoccluded = torch.from_numpy(np.stack([f[5] for f in frames])).to(dev) \
            if self.has_motion_masks else None
        self.jitter = torch.from_numpy(jitter).to(dev)
        self.exposure = torch.from_numpy(
            np.asarray(info.get("exposure", [1.0] * self.n), np.float32)).to(dev)

    def clip(self, frames: int, crop_w: int, crop_h: int, rng: random.Random):
        """A random clip: consecutive frames, a render crop aligned so that its display crop
        starts on a whole display pixel."""
        start = rng.randrange(0, max(1, self.n - frames + 1))
        idx = [min(start + k, self.n - 1) for k in range(frames)]
        gx = self.w // math.gcd(self.w, self.dw)  # render x steps that map to whole display px
        gy = self.h // math.gcd(self.h, self.dh)
        # Crop sides that are multiples of gx / gy map to whole display pixels too, so the crop
        # keeps the sequence's exact scale.
        cw = self.w if crop_w >= self.w else max(gx, crop_w // gx * gx)
        ch = self.h if crop_h >= self.h else max(gy, crop_h // gy * gy)
        x0 = rng.randrange(0, self.w - cw + 1) // gx * gx
        y0 = rng.randrange(0, self.h - ch + 1) // gy * gy
        dx0, dy0 = x0 * self.dw // self.w, y0 * self.dh // self.h  # exact by the alignment
        dcw, dch = cw * self.dw // self.w, ch * self.dh // self.h
        ti = torch.tensor(idx, device=self.color.device)
        exposure = self.exposure[ti][:, None, None, None]
        if self.masks is not None:
            masks = self.masks[ti, y0:y0 + ch, x0:x0 + cw].float()
        else:
            masks = torch.zeros(len(idx), ch, cw, 2, device=self.color.device)
        if self.disoccluded is not None:
            disoccluded = self.disoccluded[ti, dy0:dy0 + dch, dx0:dx0 + dcw].float()
        else:
            disoccluded = torch.zeros(len(idx), dch, dcw, device=self.color.device)
        return {
            "color": self.color[ti, y0:y0 + ch, x0:x0 + cw].float() * exposure,
            "depth": self.depth[ti, y0:y0 + ch, x0:x0 + cw],
            "motion": self.motion[ti, y0:y0 + ch, x0:x0 + cw].float(),
            "jitter": self.jitter[ti],
            "gt": self.gt[ti, dy0:dy0 + dch, dx0:dx0 + dcw].float() * exposure,
            "masks": masks,
            "disoccluded": disoccluded,
            "hdr": self.hdr, "depth_inverted": self.depth_inverted,
            "reset": [bool(self.reset[i]) and k > 0 for k, i in enumerate(idx)],
        }


def batch_from_folders(seqs, batch: int, frames: int, crop: int, rng: random.Random, device):
    """A batch of clips from one randomly chosen sequence (a batch shares sizes and flags)."""
    seq = rng.choice(seqs)
    clips = [seq.clip(frames, crop, crop, rng) for _ in range(batch)]
    out = {k: torch.stack([c[k] for c in clips]).to(device)
           for k in ("color", "depth", "motion", "jitter", "gt", "masks", "disoccluded")}
    out.update(hdr=seq.hdr, depth_inverted=seq.depth_inverted, reset=clips[0]["reset"])
    return out


def mirror_clip(clip, flip_x: bool, flip_y: bool, transpose: bool):
    """The clip seen in a mirror: flipped left-right and/or top-bottom, then transposed (x and y
    swapped; square crops only), the eight symmetries of the square (training augmentation,
    train.py --augment). Every image is flipped along with what points along that axis: motion's
    component (current -> previous, render pixels) and the jitter's (a sample of render pixel p
    at p + 0.5 + j sits, mirrored, at p' + 0.5 - j). The masks are images like the colour (their
    two channels are two planes, not an x and a y: nothing in them flips), and so is the
    disoccluded plane (display resolution, like the truth). Ground truth and render
    crops cover whole display pixels, so a mirrored clip is still a clip of the same scale."""
    # [B, T, H, W, ...]: y is axis 2, x axis 3 (a clip made elsewhere may have no masks)
    images = ("color", "depth", "motion", "gt") + tuple(
        name for name in ("masks", "disoccluded") if clip.get(name) is not None)
    out = dict(clip)
    dims = ([3] if flip_x else []) + ([2] if flip_y else [])
    if dims:
        for name in images:
            out[name] = torch.flip(clip[name], dims=dims)
        sign = torch.tensor([-1.0 if flip_x else 1.0, -1.0 if flip_y else 1.0], device=clip["jitter"].device)
        out["motion"] = out["motion"] * sign.to(out["motion"].dtype)
        out["jitter"] = clip["jitter"] * sign.to(clip["jitter"].dtype)
    if transpose:
        if not _square_crops(clip):
            raise ValueError("mirror_clip: transposing needs square render and display crops")
        for name in images:
            out[name] = out[name].transpose(2, 3)
        out["motion"] = out["motion"].flip(-1)  # (x, y) components -> (y, x)
        out["jitter"] = out["jitter"].flip(-1)
    for name in images + ("jitter",):
        out[name] = out[name].contiguous()
    return out


def _square_crops(clip):
    return clip["color"].shape[2] == clip["color"].shape[3] and clip["gt"].shape[2] == clip["gt"].shape[3]


def random_mirror(clip, rng: random.Random):
    """mirror_clip with one of its eight symmetries drawn uniformly (one for the whole batch);
    without transposes where the crops are not square."""
    return mirror_clip(clip, rng.random() < 0.5, rng.random() < 0.5, _square_crops(clip) and rng.random() < 0.5)


def load_sequence_folders(paths, device, workers=None):
    """SequenceFolders for every path, their EXR files read by a pool of processes (spawned:
    the parent may hold a CUDA context, which forked children must not inherit). A folder named
    n times is read once and listed n times, so batch_from_folders draws it n times as often
    (train.py --data given twice oversamples a sequence without a second copy in memory)."""
    if len(paths) == 0:
        return []
    workers = workers or min(16, os.cpu_count() or 1)
    ctx = multiprocessing.get_context("spawn")
    loaded = {}
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        for p in paths:
            key = os.path.realpath(p)
            if key not in loaded:
                loaded[key] = SequenceFolder(p, device, pool)
    return [loaded[os.path.realpath(p)] for p in paths]


# ---- procedural scenes -------------------------------------------------------------------------

def _halton(index: int, base: int) -> float:
    """The radical inverse of `index` in `base`, the exact fraction divided once; its float32 is
    the C++ definition's value (src/frame/halton_jitter.h; python/tests/test_halton.py)."""
    num, den = 0, 1
    while index > 0:
        num, den, index = num * base + index % base, den * base, index // base
    return num / den


class ProceduralScenes:
    """Random 2.5D scenes: a textured background and a few textured shapes at other depths, each
    moving with its own velocity; HDR highlights; point-sampled at the jittered render samples
    (aliasing included) and box-supersampled (4x4) at display resolution for the ground truth.
    A stand-in and supplement for rendered sequences; every batch draws a new scale in
    [scale_min, scale_max]."""

    def __init__(self, device, scale_min=1.5, scale_max=3.0, seed=0):
        self.device = device
        self.scale_min, self.scale_max = scale_min, scale_max
        self.gen = torch.Generator(device="cpu").manual_seed(seed)

    def _rand(self, *shape):
        return torch.rand(*shape, generator=self.gen).to(self.device)

    def batch(self, batch: int, frames: int, crop: int, hdr: bool):
        dev = self.device
        s = float(self.scale_min + (self.scale_max - self.scale_min) * torch.rand(1, generator=self.gen))
        w = h = crop
        dw = dh = int(round(crop * s))
        s = dw / w
        layers = 4
        # Per (sample, layer): velocity (display px / frame), offset, depth, colour, pattern params.
        vel = (self._rand(batch, layers, 2) - 0.5) * 2 * self._rand(batch, 1, 1) * 6.0
        off = self._rand(batch, layers, 2) * dw
        size = (0.15 + 0.35 * self._rand(batch, layers, 2)) * dw
        depth = torch.sort(self._rand(batch, layers) * 0.8 + 0.1, dim=1).values  # layer 0 nearest
        depth[:, -1] = 0.95                                                     # background
        colour = self._rand(batch, layers, 3) * 0.9 + 0.05
        freq = 0.05 + self._rand(batch, layers, 2) * 0.6  # up to ~Nyquist of the render grid
        phase = self._rand(batch, layers, 2) * 6.283
        bright = torch.where(self._rand(batch, layers) < 0.3, 2.0 + 10.0 * self._rand(batch, layers),
                             torch.ones(batch, layers, device=dev)) if hdr else torch.ones(batch, layers, device=dev)
        phases = math.ceil(8 * s * s)
        j0 = int(torch.randint(0, phases, (1,), generator=self.gen))
        jit = torch.tensor([[_halton((j0 + k) % phases + 1, 2) - 0.5, _halton((j0 + k) % phases + 1, 3) - 0.5]
                            for k in range(frames)], device=dev)

        def shade(px, py, k):
            """Colour, depth and velocity of the visible layer at display points [B, N]."""
            best_d = torch.full_like(px, 2.0)
            out_c = torch.zeros(*px.shape, 3, device=dev)
            out_v = torch.zeros(*px.shape, 2, device=dev)
            for li in range(layers - 1, -1, -1):  # far to near; nearer layers overwrite
                ux = px - vel[:, li, 0, None] * k - off[:, li, 0, None]
                uy = py - vel[:, li, 1, None] * k - off[:, li, 1, None]
                if li == layers - 1:
                    inside = torch.ones_like(px, dtype=torch.bool)
                else:
                    inside = ((ux.abs() < size[:, li, 0, None]) & (uy.abs() < size[:, li, 1, None]))
                    inside = inside | ((ux / size[:, li, 0, None]) ** 2 + (uy / size[:, li, 1, None]) ** 2 < 0.3)
                pat = 0.5 + 0.25 * torch.sin(ux * freq[:, li, 0, None] + phase[:, li, 0, None]) \
                    + 0.25 * torch.sign(torch.sin(uy * freq[:, li, 1, None] + phase[:, li, 1, None]))
                c = colour[:, li, None, :] * pat[..., None] * bright[:, li, None, None]
                take = inside & (depth[:, li, None] < best_d)
                best_d = torch.where(take, depth[:, li, None].expand_as(px), best_d)
                out_c = torch.where(take[..., None], c, out_c)
                out_v = torch.where(take[..., None], vel[:, li, None, :].expand(*px.shape, 2), out_v)
            return out_c, best_d, out_v

        ys, xs = torch.meshgrid(torch.arange(h, device=dev, dtype=torch.float32),
                                torch.arange(w, device=dev, dtype=torch.float32), indexing="ij")
        dys, dxs = torch.meshgrid(torch.arange(dh, device=dev, dtype=torch.float32),
                                  torch.arange(dw, device=dev, dtype=torch.float32), indexing="ij")
        # The ground truth's 4x4 sub-samples of every display pixel, in the order they are summed.
        sub_x = torch.cat([(dxs + (sx + 0.5) / 4).reshape(1, -1) for sy in range(4) for sx in range(4)], 1)
        sub_y = torch.cat([(dys + (sy + 0.5) / 4).reshape(1, -1) for sy in range(4) for sx in range(4)], 1)
        n_render, n_display = h * w, dh * dw
        color, dep, mot, gt = [], [], [], []
        for k in range(frames):
            px = ((xs + 0.5 + jit[k, 0]) * s).reshape(1, -1)
            py = ((ys + 0.5 + jit[k, 1]) * s).reshape(1, -1)
            # One shade call for the render samples and the 16 sub-samples together: shading is
            # per point, so the values are those of 17 separate calls, in a 17th of the kernels
            # (a procedural batch launched as many kernels as the training step it feeds).
            c_all, d_all, v_all = shade(torch.cat([px, sub_x], 1).expand(batch, -1),
                                        torch.cat([py, sub_y], 1).expand(batch, -1), float(k))
            c, d, v = c_all[:, :n_render], d_all[:, :n_render], v_all[:, :n_render]
            color.append(c.reshape(batch, h, w, 3))
            dep.append(d.reshape(batch, h, w))
            mot.append((-v / s).reshape(batch, h, w, 2))  # current -> previous, render pixels
            subs = c_all[:, n_render:].view(batch, 16, n_display, 3)
            acc = torch.zeros(batch, n_display, 3, device=dev)
            for i in range(16):  # summed in the sub-samples' order, as before
                acc = acc + subs[:, i]
            gt.append((acc / 16).view(batch, dh, dw, 3))
        out = {"color": torch.stack(color, 1), "depth": torch.stack(dep, 1),
               "motion": torch.stack(mot, 1), "jitter": jit[None].expand(batch, -1, -1).contiguous(),
               "gt": torch.stack(gt, 1), "masks": torch.zeros(batch, frames, h, w, 2, device=dev),
               "hdr": hdr, "depth_inverted": False,
               "reset": [False] * frames}
        if not hdr:
            out["color"] = out["color"].clamp(0, 1)
            out["gt"] = out["gt"].clamp(0, 1)
        return out
