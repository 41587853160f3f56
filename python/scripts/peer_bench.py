#!/usr/bin/env python3
"""The peers of `swinup bench` (issue "Half the time on the H200"): the same network, dimensions
and inputs in PyTorch, timed on the GPU with CUDA events, so that the CUDA backend's figures can be
read against what a framework reaches on the same machine:
  - bf16: the network with no rounding point (SwinUp(quantise=False), weights as the shipped file
    decodes them) in bfloat16, through torch.compile, the framework's effort without the kernels'
    quantisation;
  - quantised: the project's PyTorch reference in fast mode (e4m3/f16 rounding points as the
    kernels, float32 arithmetic), through SwinUp.compile_forward (torch.compile too).
Only the network is timed (staged slots in, the head's outputs out: the CUDA bench's "network"
stage), at the render size's padded grid, batch 1, the frame index alternating (both window-shift
parities, as a sequence of frames: each peer compiles one graph per parity, both during the
warm-up, which is therefore at least 2 runs). Inputs are e4m3 values drawn uniformly from the
codes of |x| <= 4 (the network's time does not depend on them). Each peer starts with torch's
compile caches emptied (torch._dynamo.reset: the peers share SwinUp.forward, whose cache would
otherwise reach dynamo's recompile limit and fall back to eager), and with inductor's
emulate_precision_casts as it needs it (off for bf16; compile_forward turns it on).

Prints one line per variant and peer: the warm-up's seconds (the compilation, mostly), the median
and min ms over --iterations runs after --warmup, and with --cuda-ms V=MS the ratio peer median /
CUDA, MS being the line "the network's stages ... sum to MS ms" of `swinup bench` at the same size
(the network alone, its kernels launched one by one: an upper figure for the CUDA network).

--compile-mode, torch.compile's mode for both peers, sets what the compilation costs (the
warm-up column shows it); the GPU machine's calls are limited to 10 minutes:
  - default (the default): inductor's fused kernels, no autotuning, no CUDA graphs; the cheapest
    compilation (seconds to about a minute per graph), so both variants and both peers finish in a
    few minutes; each frame's kernels are launched from Python, so launch latency is in the times;
  - reduce-overhead: the same kernels replayed as CUDA graphs (as swinup's frame graph is): about
    the compilation of default plus one graph capture per parity; takes the launch latency out;
  - max-autotune-no-cudagraphs / max-autotune: inductor also benchmarks GEMM and other kernel
    choices per shape (Triton templates); many minutes per network on an H200, too long for one
    10-minute call with both variants and peers (run one --variant / --peers at a time).

Usage: python3 python/scripts/peer_bench.py [--variant lite|full|both] [--render 1280x720]
       [--iterations 200] [--warmup 20] [--peers bf16,quantised] [--device cuda]
       [--cuda-ms lite=0.62,full=1.31] [--compile-mode default] [--no-compile]
Without a CUDA device it runs on the CPU (a smoke run: the timings mean nothing there)."""
import argparse
import os
import statistics
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from swinup.model import SwinUp  # noqa: E402
from swinup.quant import e4m3_decode  # noqa: E402
from swinup.spec import SLOTS, pad_to_grid  # noqa: E402
from swinup.weights_io import read_weights  # noqa: E402


def staged_input(h: int, w: int, device, seed: int = 0) -> torch.Tensor:
    """[1, H, W, 16] e4m3 values with |x| <= 4, on the padded grid."""
    g = torch.Generator().manual_seed(seed)
    codes = torch.arange(256, dtype=torch.int64)
    values = e4m3_decode(codes.to(torch.uint8))
    usable = values[torch.isfinite(values) & (values.abs() <= 4.0)]
    pick = torch.randint(0, usable.numel(), (1, h, w, SLOTS), generator=g)
    return usable[pick].to(torch.float32).to(device)


COMPILE_MODES = ["default", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune"]


def make_network(variant: str, peer: str, device, compile_mode: str, compile_it: bool):
    """The peer's forward(staged, parity), its input dtype, and whether it is compiled."""
    cfg, tensors, _ = read_weights(os.path.join(ROOT, "weights", f"{variant}.safetensors"))
    model = SwinUp(cfg, quantise=(peer != "bf16"))
    model.load_tensors(tensors, fix_scales=True)
    model.requires_grad_(False).eval()
    dtype = torch.bfloat16 if peer == "bf16" else torch.float32
    model.to(device=device, dtype=dtype)
    forward = model.forward
    compiled = False
    if compile_it and hasattr(torch, "compile"):
        import torch._dynamo as dynamo  # torch >= 2, as torch.compile
        import torch._inductor.config as inductor_config
        dynamo.reset()  # this peer's graphs only (the docstring says why)
        mode = None if compile_mode == "default" else compile_mode
        if peer == "bf16":
            inductor_config.emulate_precision_casts = False  # no rounding points to keep
            forward = torch.compile(model.forward, mode=mode, dynamic=False)
        else:
            model.compile_forward(mode=mode)  # sets emulate_precision_casts (model.py says why)
            forward = model.run
        compiled = True
    return forward, dtype, compiled


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_runs(forward, staged, device, iterations: int, warmup: int):
    """Seconds of the warm-up (at least 2 runs: both parities compile there), and the milliseconds
    of each of `iterations` forward passes after it (frame parity alternating)."""
    times = []
    with torch.no_grad():
        t0 = time.perf_counter()
        for i in range(max(warmup, 2)):
            forward(staged, i % 2)
        sync(device)
        warmup_s = time.perf_counter() - t0
        for i in range(iterations):
            if device.type == "cuda":
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                forward(staged, i % 2)
                stop.record()
                stop.synchronize()
                times.append(start.elapsed_time(stop))
            else:
                t = time.perf_counter()
                forward(staged, i % 2)
                times.append((time.perf_counter() - t) * 1000.0)
    return warmup_s, times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="both", choices=["lite", "full", "both"])
    ap.add_argument("--render", default="1280x720")
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--peers", default="bf16,quantised")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--compile-mode", default="default", choices=COMPILE_MODES,
                    help="torch.compile's mode for both peers (default: the cheapest compilation; the "
                         "module's docstring says what each costs)")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--cuda-ms", default="",
                    help="V=MS,...: swinup bench's \"network's stages\" figure per variant, for the ratio")
    args = ap.parse_args()
    w, h = (int(v) for v in args.render.lower().split("x"))
    device = torch.device(args.device)
    cuda_ms = dict((k, float(v)) for k, v in (p.split("=") for p in args.cuda_ms.split(",") if p))
    variants = ["lite", "full"] if args.variant == "both" else [args.variant]
    peers = [p for p in args.peers.split(",") if p]
    for peer in peers:  # before any compilation
        if peer not in ("bf16", "quantised"):
            raise SystemExit(f"peer_bench: unknown peer {peer!r} (bf16, quantised)")
    hp, wp = pad_to_grid(h), pad_to_grid(w)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    mode = "not compiled" if args.no_compile or not hasattr(torch, "compile") else f"compile mode {args.compile_mode}"
    print(f"peer_bench: {name}, torch {torch.__version__}, network on the {wp}x{hp} grid of {w}x{h}, batch 1, "
          f"{mode}, {args.iterations} runs after {max(args.warmup, 2)}")
    print(f"{'variant':8s} {'peer':10s} {'compiled':9s} {'warm-up s':>10s} {'median ms':>10s} {'min ms':>8s} "
          f"{'/ CUDA':>8s}", flush=True)
    for variant in variants:
        for peer in peers:
            forward, dtype, compiled = make_network(variant, peer, device, args.compile_mode, not args.no_compile)
            staged = staged_input(hp, wp, device).to(dtype)
            warmup_s, times = time_runs(forward, staged, device, args.iterations, args.warmup)
            med = statistics.median(times)
            ratio = f"{med / cuda_ms[variant]:.2f}x" if variant in cuda_ms else "-"
            print(f"{variant:8s} {peer:10s} {str(compiled):9s} {warmup_s:10.1f} {med:10.3f} {min(times):8.3f} "
                  f"{ratio:>8s}", flush=True)


if __name__ == "__main__":
    main()
