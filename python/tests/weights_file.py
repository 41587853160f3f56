"""Reading and rewriting a weights file's safetensors header, for the tests of what the readers
accept: the __metadata__ as written, and the format_version changed in place (the same number of
bytes, so the header keeps its length) as a writer of another format would have written it."""
import json
import struct


def metadata(path):
    """The __metadata__ dict of the safetensors file at `path`."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        return json.loads(f.read(n))["__metadata__"]


def set_format_version(path, version):
    """Rewrites the file's format_version (a one-digit number) as `version`."""
    old = f'"format_version":"{metadata(path)["format_version"]}"'.encode()
    new = f'"format_version":"{version}"'.encode()
    assert len(old) == len(new), (old, new)
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data.replace(old, new))
