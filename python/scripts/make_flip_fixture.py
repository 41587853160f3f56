#!/usr/bin/env python3
"""Makes tests/data/flip/: image pairs and the FLIP values NVIDIA's reference implementation gives
for them, which tests/eval/test_flip.cpp checks src/eval/flip.cpp and hdr_flip.cpp against.

Made once, with the reference's Python package pinned (any other version may differ):

    python3 -m venv .venv && .venv/bin/pip install flip-evaluator==1.7 numpy==2.4.6
    .venv/bin/python python/scripts/make_flip_fixture.py tests/data/flip

The images are drawn here from a fixed seed, so running it again writes the same files. Every
image is raw little-endian float32, height x width x 3 (RGB), row-major; error maps are
height x width float32. expected.json lists the cases: LDR images are sRGB-encoded values in
[0, 1] (what LDR-FLIP takes), HDR images linear colour >= 0. The reference's defaults are used
throughout: 67.02 pixels per degree (a 0.7 m wide 3840-pixel monitor at 0.7 m), ACES tone mapping
and its automatic exposure range for HDR.
"""
import json
import sys
from pathlib import Path

import flip_evaluator
import numpy as np

PIN = "flip-evaluator==1.7"


def ldr_reference(w, h):
    """Gradients, a hard-edged square, thin lines and a checker patch: colour and feature
    content for both halves of FLIP."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    img = np.stack([x / (w - 1), y / (h - 1), 0.5 + 0.5 * np.sin(x / 5.0 + y / 9.0)], -1)
    img[h // 4:h // 2, w // 4:w // 2] = [0.1, 0.15, 0.6]
    img[:, w * 3 // 4] = [1.0, 1.0, 0.9]
    img[h * 3 // 4, :] = [0.05, 0.05, 0.05]
    checker = ((x // 2 + y // 2) % 2)[h // 2 + 4:h - 4, 4:w // 3]
    img[h // 2 + 4:h - 4, 4:w // 3] = checker[..., None] * [0.9, 0.2, 0.2]
    return img


def ldr_test(ref, rng):
    """The reference with what an upscaler gets wrong: a blurred quadrant, a line moved by a
    pixel, a colour shift and noise."""
    h, w, _ = ref.shape
    out = ref.copy()
    q = out[h // 2:, :w // 2]
    q[1:-1, 1:-1] = (q[:-2, 1:-1] + q[2:, 1:-1] + q[1:-1, :-2] + q[1:-1, 2:] + q[1:-1, 1:-1]) / 5.0
    out[:, w * 3 // 4] = ref[:, w * 3 // 4 - 1]
    out[:, w * 3 // 4 + 1] = ref[:, w * 3 // 4]
    out[h // 4:h // 2, w // 4:w // 2] += [0.05, -0.05, 0.1]
    out += rng.normal(0.0, 0.02, out.shape)
    return np.clip(out, 0.0, 1.0)


def hdr_reference(w, h):
    """Linear colour from 0.005 to 1 with a bright emitter (up to 40) and a mid-grey object."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    base = 0.005 + ((x / (w - 1)) ** 2)[..., None] * np.array([1.0, 0.8, 0.6])
    img = base * (0.6 + 0.4 * np.cos(y / 6.0))[..., None]
    r2 = (x - w * 0.7) ** 2 + (y - h * 0.3) ** 2
    img += (40.0 * np.exp(-r2 / 18.0))[..., None] * np.array([1.0, 0.9, 0.7])
    img[h * 5 // 8:h * 7 // 8, w // 8:w * 3 // 8] = [0.18, 0.18, 0.18]
    return img


def hdr_test(ref, rng):
    """The reference with multiplicative noise, a dimmer emitter and a tinted object."""
    h, w, _ = ref.shape
    out = ref * np.exp(rng.normal(0.0, 0.1, ref.shape))
    out[:h // 2, w // 2:] *= 0.8
    out[h * 5 // 8:h * 7 // 8, w // 8:w * 3 // 8] *= [1.2, 1.0, 0.8]
    return np.maximum(out, 0.0)


def write(folder, name, array):
    np.ascontiguousarray(array, dtype="<f4").tofile(folder / name)
    return name


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_flip_fixture.py OUTPUT_FOLDER")
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20261204)

    ldr_ref = ldr_reference(64, 64).astype(np.float32)
    ldr_tst = ldr_test(ldr_ref.astype(np.float64), rng).astype(np.float32)
    small_ref = rng.random((24, 40, 3)).astype(np.float32)  # not square: rows and columns differ
    small_tst = np.clip(small_ref + rng.normal(0.0, 0.1, small_ref.shape), 0, 1).astype(np.float32)
    hdr_ref = hdr_reference(64, 64).astype(np.float32)
    hdr_tst = hdr_test(hdr_ref.astype(np.float64), rng).astype(np.float32)

    images = {
        "ldr_reference": ldr_ref, "ldr_test": ldr_tst,
        "ldr_small_reference": small_ref, "ldr_small_test": small_tst,
        "hdr_reference": hdr_ref, "hdr_test": hdr_tst,
    }
    files = {name: write(folder, name + ".f32", img) for name, img in images.items()}

    cases = []
    for name, kind, ref, tst, keep_map in [
        ("ldr", "LDR", "ldr_reference", "ldr_test", True),
        ("ldr_small", "LDR", "ldr_small_reference", "ldr_small_test", True),
        ("ldr_identical", "LDR", "ldr_reference", "ldr_reference", False),
        ("hdr", "HDR", "hdr_reference", "hdr_test", True),
        ("hdr_identical", "HDR", "hdr_reference", "hdr_reference", False),
    ]:
        error_map, mean, params = flip_evaluator.evaluate(
            images[ref], images[tst], kind, inputsRGB=True, applyMagma=False, computeMeanError=True)
        error_map = np.asarray(error_map, dtype=np.float32)[..., 0]
        case = {"name": name, "dynamic_range": kind, "width": int(images[ref].shape[1]),
                "height": int(images[ref].shape[0]), "reference": files[ref], "test": files[tst],
                "mean_flip": float(mean), "max_flip": float(error_map.max())}
        if kind == "HDR":
            case["exposures"] = {"start": float(params["startExposure"]),
                                 "stop": float(params["stopExposure"]),
                                 "count": int(params["numExposures"])}
        if keep_map:
            case["error_map"] = write(folder, name + "_flip.f32", error_map)
        cases.append(case)

    expected = {"made_by": "python/scripts/make_flip_fixture.py", "reference": PIN,
                "pixels_per_degree": float(params["ppd"]), "cases": cases}
    (folder / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    for case in cases:
        print(f"{case['name']}: mean FLIP {case['mean_flip']:.6f}")


if __name__ == "__main__":
    main()
