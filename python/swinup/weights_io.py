"""Reads and writes the project's weights files (the safetensors layout of src/model/weights.h):
an 8-byte little-endian header length, a JSON header whose "__metadata__" carries the format,
its version, the variant, the model config and a description, then the raw tensors in
model_tensors() order: F8_E4M3 [out, in] codes, F32 scales, biases and gains, F16 bias tables.
Plain struct/json: no safetensors package needed."""
import json
import os
import struct

import numpy as np

from .shipped import refuse_shipped
from .spec import FORMAT_VERSION, MAX_STILL_HISTORY_SHIFT, OLDEST_FORMAT_VERSION, ModelConfig, model_tensors

_NP = {"F8_E4M3": np.uint8, "F16": np.float16, "F32": np.float32}


class WeightsError(ValueError):
    pass


def read_weights(path: str):
    """-> (ModelConfig, {name: numpy array}, description). e4m3 tensors come back as uint8 codes.
    Raises WeightsError naming the field or tensor that is wrong."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise WeightsError(f"{path}: shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", data[:8])
    if 8 + n > len(data):
        raise WeightsError(f"{path}: header length {n} runs past the end of the file")
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise WeightsError(f"{path}: header is not JSON ({e})") from None
    meta = header.pop("__metadata__", None)
    if not isinstance(meta, dict) or meta.get("format") != "swinup-weights":
        raise WeightsError(f"{path}: __metadata__.format is not 'swinup-weights'")
    accepted = [str(v) for v in range(OLDEST_FORMAT_VERSION, FORMAT_VERSION + 1)]
    if meta.get("format_version") not in accepted:
        hint = ("; version 1 predates the difference slots and the jitter-aware blend (2026-11-30) and is "
                "no longer read" if meta.get("format_version") == "1" else "")
        raise WeightsError(f"{path}: format_version {meta.get('format_version')!r}, expected "
                           f"{' or '.join(repr(v) for v in accepted)}{hint}")
    try:
        config = json.loads(meta.get("config", "{}"))
        head_mlp = config.get("head_mlp", False)
        shift = config.get("still_history_shift", 0.0)
        masks = config.get("masks", False)
    except (json.JSONDecodeError, AttributeError):
        raise WeightsError(f"{path}: __metadata__.config is not a JSON object") from None
    if head_mlp not in (True, False) or (head_mlp and meta.get("format_version") == "2"):
        raise WeightsError(f"{path}: config 'head_mlp' is {head_mlp!r}, expected false (version 2) or a boolean")
    if (isinstance(shift, bool) or not isinstance(shift, (int, float)) or not abs(shift) <= MAX_STILL_HISTORY_SHIFT
            or (shift != 0 and meta.get("format_version") in ("2", "3"))):
        raise WeightsError(f"{path}: config 'still_history_shift' is {shift!r}, expected a number in "
                           f"[-{MAX_STILL_HISTORY_SHIFT:g}, {MAX_STILL_HISTORY_SHIFT:g}] (0 before version 4)")
    if masks not in (True, False) or (masks and meta.get("format_version") in ("2", "3", "4")):
        raise WeightsError(f"{path}: config 'masks' is {masks!r}, expected a boolean (false before version 5)")
    cfg = ModelConfig.make(meta.get("variant"), head_mlp=head_mlp,
                           still_history_shift=float(np.float32(shift)), masks=masks)
    body = data[8 + n:]
    tensors = {}
    for spec in model_tensors(cfg):
        h = header.get(spec.name)
        if h is None:
            raise WeightsError(f"{path}: tensor {spec.name} is missing")
        if h.get("dtype") != spec.dtype or tuple(h.get("shape", ())) != spec.shape:
            raise WeightsError(f"{path}: tensor {spec.name} is {h.get('dtype')} {h.get('shape')}, "
                               f"expected {spec.dtype} {list(spec.shape)}")
        b, e = h["data_offsets"]
        count = int(np.prod(spec.shape))
        if not (0 <= b <= e <= len(body)) or e - b != count * np.dtype(_NP[spec.dtype]).itemsize:
            raise WeightsError(f"{path}: tensor {spec.name} has bad data_offsets {[b, e]}")
        tensors[spec.name] = np.frombuffer(body[b:e], dtype=_NP[spec.dtype]).reshape(spec.shape).copy()
    extra = set(header) - set(tensors)
    if extra:
        raise WeightsError(f"{path}: unknown tensors {sorted(extra)[:3]}")
    return cfg, tensors, meta.get("description", "")


def write_weights(path: str, cfg: ModelConfig, tensors: dict, description: str, version: int = FORMAT_VERSION):
    """Writes a weights file (temporary name, then rename: no half-written file remains). Never a
    shipped one (shipped.py: python -m swinup.promote replaces those)."""
    refuse_shipped(path, "weights file")
    header = {"__metadata__": {"format": "swinup-weights", "format_version": str(version),
                               "variant": cfg.variant, "config": cfg.to_json(version),
                               "description": description}}
    blobs = []
    offset = 0
    for spec in model_tensors(cfg):
        a = np.ascontiguousarray(tensors[spec.name], dtype=_NP[spec.dtype])
        if a.shape != spec.shape:
            raise WeightsError(f"tensor {spec.name} has shape {a.shape}, expected {spec.shape}")
        if spec.dtype != "F8_E4M3" and not np.all(np.isfinite(a)):
            raise WeightsError(f"tensor {spec.name} holds NaN or Inf")
        raw = a.tobytes()
        header[spec.name] = {"dtype": spec.dtype, "shape": list(spec.shape),
                             "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((-len(text)) % 8)  # 8-byte aligned data
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for raw in blobs:
            f.write(raw)
    os.replace(tmp, path)


def zero_mask_embed(cfg: ModelConfig) -> dict:
    """mask_embed's tensors at their start (docs/masks.md): zero weight codes, scale 1, zero bias,
    so that the network computes exactly what it computes without the layer."""
    n_in, n_out = cfg.mask_embed_shape()
    return {"mask_embed.weight": np.zeros((n_out, n_in), np.uint8),
            "mask_embed.scale": np.ones((n_out,), np.float32),
            "mask_embed.bias": np.zeros((n_out,), np.float32)}
