"""A minimal OpenEXR reader for the project's sequences (src/sequence/exr_io.cpp writes
single-part scanline files, ZIP compressed, HALF or FLOAT channels). Pure Python + numpy + zlib,
so training needs no OpenEXR binding; other compressions are refused with a clear message."""
import struct
import zlib

import numpy as np

_COMPRESSION = {0: ("none", 1), 2: ("zips", 1), 3: ("zip", 16)}
_PIXEL = {1: np.float16, 2: np.float32}  # 0 = UINT is not used by the project


class ExrError(ValueError):
    pass


def _read_header(data: bytes, path: str):
    if data[:4] != b"\x76\x2f\x31\x01":
        raise ExrError(f"{path}: not an OpenEXR file")
    version = struct.unpack_from("<I", data, 4)[0]
    if version & (0x200 | 0x800 | 0x1000):  # tiled, deep, multi-part
        raise ExrError(f"{path}: tiled, deep or multi-part files are not supported")
    pos = 8
    attrs = {}
    while True:
        end = data.index(b"\0", pos)
        name = data[pos:end].decode()
        pos = end + 1
        if not name:
            break
        end = data.index(b"\0", pos)
        typ = data[pos:end].decode()
        pos = end + 1
        (size,) = struct.unpack_from("<i", data, pos)
        pos += 4
        attrs[name] = (typ, data[pos:pos + size])
        pos += size
    return attrs, pos


def _channels(raw: bytes):
    out = []
    pos = 0
    while raw[pos] != 0:
        end = raw.index(b"\0", pos)
        name = raw[pos:end].decode()
        pos = end + 1
        ptype, _linear, xs, ys = struct.unpack_from("<iB3xii", raw, pos)
        pos += 16
        if xs != 1 or ys != 1:
            raise ExrError(f"channel {name} is subsampled")
        out.append((name, ptype))
    return out  # stored in alphabetical order


def read_exr(path: str) -> dict:
    """-> {channel name: float32 array [H, W]}."""
    with open(path, "rb") as f:
        data = f.read()
    attrs, pos = _read_header(data, path)
    chans = _channels(attrs["channels"][1])
    comp = attrs["compression"][1][0]
    if comp not in _COMPRESSION:
        raise ExrError(f"{path}: compression {comp} is not supported (none, ZIPS, ZIP are)")
    lines_per_chunk = _COMPRESSION[comp][1]
    x0, y0, x1, y1 = struct.unpack("<iiii", attrs["dataWindow"][1])
    w, h = x1 - x0 + 1, y1 - y0 + 1
    for name, ptype in chans:
        if ptype not in _PIXEL:
            raise ExrError(f"{path}: channel {name} has pixel type {ptype} (HALF or FLOAT expected)")
    nchunks = (h + lines_per_chunk - 1) // lines_per_chunk
    offsets = struct.unpack_from(f"<{nchunks}Q", data, pos)
    out = {name: np.zeros((h, w), np.float32) for name, _ in chans}
    for off in offsets:
        y, size = struct.unpack_from("<ii", data, off)
        raw = data[off + 8:off + 8 + size]
        rows = min(lines_per_chunk, y1 + 1 - y)
        expected = rows * w * sum(np.dtype(_PIXEL[t]).itemsize for _, t in chans)
        if comp != 0 and size < expected:
            buf = np.frombuffer(zlib.decompress(raw), np.uint8).astype(np.int32)
            # Undo the predictor (running sum, mod 256), then the two-halves interleave.
            buf = np.cumsum(buf - 128 * (np.arange(len(buf)) > 0)) & 0xFF
            buf = buf.astype(np.uint8)
            half = (len(buf) + 1) // 2
            inter = np.empty_like(buf)
            inter[0::2] = buf[:half]
            inter[1::2] = buf[half:]
            raw = inter.tobytes()
        if len(raw) != expected:
            raise ExrError(f"{path}: chunk at line {y} has {len(raw)} bytes, expected {expected}")
        p = 0
        for r in range(rows):
            for name, ptype in chans:
                dt = _PIXEL[ptype]
                n = w * np.dtype(dt).itemsize
                out[name][y - y0 + r] = np.frombuffer(raw[p:p + n], dt).astype(np.float32)
                p += n
    return out
