"""Counts the kernels one training frame launches (python python/scripts/research/count_kernels.py lite).

Training is bound by kernel launches (small tiles, thousands of elementwise ops per frame), so the
number of operators an unrolled frame runs is the figure to drive down. Counted with torch.profiler
on the CPU: leaf aten operators other than views and allocations, per frame of an 8-frame clip,
split into staging, network and output pass (forward) and the whole backward pass. Where torch has
no float8 dtype (the CPU's torch 1.13), the e4m3 rounding is counted as the float8 cast the GPU
runs (clamp, two conversions), not as the bit version's twenty operators.
"""
import os
import sys

import torch
from torch.profiler import profile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from swinup import quant  # noqa: E402

if not hasattr(torch, "float8_e4m3fn"):
    # Counting only: three operators like the cast (the values are not e4m3 then).
    quant.round_e4m3 = lambda x: x.to(torch.float32).clamp(-448, 448).to(torch.float16).to(torch.float32)

from swinup.training import recurrence  # noqa: E402
from swinup.data import ProceduralScenes  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.weights_io import read_weights  # noqa: E402

NOT_KERNELS = {
    "aten::as_strided", "aten::view", "aten::reshape", "aten::_reshape_alias", "aten::select",
    "aten::slice", "aten::transpose", "aten::permute", "aten::expand", "aten::unsqueeze",
    "aten::squeeze", "aten::detach", "aten::alias", "aten::t", "aten::empty", "aten::empty_like",
    "aten::empty_strided", "aten::resolve_conj", "aten::resolve_neg", "aten::_unsafe_view",
    "aten::split", "aten::unbind", "aten::chunk", "aten::narrow", "aten::lift_fresh",
    "aten::result_type", "aten::is_nonzero", "aten::item", "aten::_local_scalar_dense",
    "aten::size", "aten::stride", "aten::expand_as", "aten::view_as", "aten::contiguous",
    "aten::to", "aten::numpy_T", "aten::set_", "aten::zeros", "aten::ones", "aten::full",
    "aten::scalar_tensor",
}
FRAMES = 8


def kernels(events):
    return sum(1 for e in events
               if e.name.startswith("aten::") and not e.cpu_children and e.name not in NOT_KERNELS)


def main():
    variant = sys.argv[1] if len(sys.argv) > 1 else "lite"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    cfg, tensors, _ = read_weights(os.path.join(root, "weights", f"{variant}.safetensors"))
    model = SwinUp(cfg)
    model.load_tensors(tensors, fix_scales=False)
    clip = ProceduralScenes("cpu", seed=1).batch(1, FRAMES, 32, hdr=True)
    counts = {}

    def counted(name, fn):
        def run(*args, **kwargs):
            with profile() as prof:
                result = fn(*args, **kwargs)
            counts[name] = counts.get(name, 0) + kernels(prof.events())
            return result
        return run

    recurrence.stage = counted("staging", recurrence.stage)
    recurrence.output_pass = counted("output pass", recurrence.output_pass)
    model.forward = counted("network", model.forward)
    _, l1, temporal = recurrence.unroll(model, clip)
    with profile() as prof:
        (l1 + temporal).backward()
    counts["backward"] = kernels(prof.events())
    per_frame = {k: round(v / FRAMES) for k, v in counts.items()}
    print(f"{variant}: kernels per frame of an {FRAMES}-frame clip: {per_frame}, "
          f"total {sum(per_frame.values())}")


if __name__ == "__main__":
    main()
