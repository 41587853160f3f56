#!/usr/bin/env python3
"""Checks train.py --compile on a GPU: the compiled forward pass (SwinUp.compile_forward) against
the eager one, fast mode, on the committed weights and staged inputs cut from a procedural clip.

Per variant and frame parity: the head outputs (the share more than 1e-3 apart, the mean and the
largest difference) and the gradients of every parameter after a backward pass of the same
cotangent (the largest difference relative to the gradient's own largest element, held to the
same measure of eager exact mode's gradients against eager fast mode's), then the time
of one frame's forward and backward pass, eager and compiled (median of 20 after the
compilation). Fusion reorders float32 arithmetic, so every output may differ in its last bits and
a rounding to e4m3 or f16 can land on the other side of a tie now and then; a wrong graph shows
as large differences everywhere (swinup/agreement.py's bounds, which tests/test_fast_mode.py holds
fast mode to against exact mode).

--ops compiles the pieces alone instead (the roundings, one RMSNorm, each block, fed the eager
forward's own intermediate values) and prints how many of each one's output bits differ from
eager's: where a disagreement of the whole forward starts.

Usage: python3 python/scripts/check_compile.py [--batch 16] [--crop 96] [--ops]   (exit 1 on a failure)
"""
import argparse
import os
import statistics
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from swinup.agreement import MAX_MEAN_DIFFERENCE, MAX_SHARE_APART, head_difference, staged_procedural_frame  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.quant import round_e4m3, round_f16, rounding_probe  # noqa: E402
from swinup.spec import ModelConfig  # noqa: E402
from swinup.weights_io import read_weights  # noqa: E402
from swinup.training.start import has_mask_embed  # noqa: E402

def frame_pass(model, staged, parity, cotangent):
    """Forward and backward of one frame; -> (head outputs, {parameter: gradient})."""
    model.zero_grad(set_to_none=True)
    with model.weight_cache():
        head = model.run(staged, parity)
    (head * cotangent).sum().backward()
    return head.detach(), {n: p.grad.detach().clone() for n, p in model.params.items() if p.grad is not None}


def timed(fn, n=20):
    times = []
    for _ in range(n):
        torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def gradient_gap(grads, reference):
    """The largest difference of any parameter's gradient from the reference's, relative to the
    reference gradient's own largest element -> (gap, parameter)."""
    worst, worst_name = 0.0, ""
    for name, g in reference.items():
        rel = ((grads[name] - g).abs().max() / g.abs().max().clamp(min=1e-30)).item()
        if rel > worst:
            worst, worst_name = rel, name
    return worst, worst_name


def compile_model(model):
    model.compile_forward()


def check(variant, batch, crop, device, parities, compile_fn=compile_model, time_it=True):
    """The compiled forward of `variant` against the eager one, per frame parity: the head outputs
    within agreement.py's fast-mode bounds, and the largest relative gradient difference (over
    all parameters) no larger than eager exact mode's largest from eager fast mode on the same
    inputs. That is the gradient's measured bound: the roundings to e4m3 and f16
    make a gradient jump wherever a value crosses a rounding tie, so any reordering of float32 sums
    moves the rel_bias gradients (sums over every window of every image) by several percent (CPU,
    2026-12-02, eager fast against eager exact: lite's largest 0.14, tube3's rel_bias), and
    the fast mode that training runs is itself that far from exact mode. -> ok."""
    ok = True
    cfg, tensors, _ = read_weights(os.path.join(ROOT, "weights", f"{variant}.safetensors"))
    eager = SwinUp(cfg).to(device)
    exact = SwinUp(cfg, exact=True).to(device)
    compiled = SwinUp(cfg).to(device)
    for m in (eager, exact, compiled):
        m.load_tensors(tensors, fix_scales=False)
    compile_fn(compiled)
    staged = staged_procedural_frame(batch, crop, device)
    gen = torch.Generator(device="cpu").manual_seed(3)
    for parity in parities:
        t0 = time.perf_counter()
        head_c, _ = frame_pass(compiled, staged, parity, torch.ones(1, device=device))  # compiles
        first = time.perf_counter() - t0
        cot = torch.randn(head_c.shape, generator=gen).to(device)
        head_c, grad_c = frame_pass(compiled, staged, parity, cot)
        head_e, grad_e = frame_pass(eager, staged, parity, cot)
        _, grad_x = frame_pass(exact, staged, parity, cot)
        share, mean, largest = head_difference(head_c, head_e)
        gap, gap_name = gradient_gap(grad_c, grad_e)
        bound, bound_name = gradient_gap(grad_x, grad_e)
        good = (share <= MAX_SHARE_APART and mean <= MAX_MEAN_DIFFERENCE and gap <= bound
                and set(grad_c) == set(grad_e))
        ok &= good
        print(f"{variant} parity {parity}: first compiled call {first:.1f} s; head outputs more than 1e-3 "
              f"apart {share * 100:.3f}% (mean difference {mean:.3g}, largest {largest:.3g}); gradients: largest "
              f"relative difference {gap:.3g} ({gap_name}), exact mode's {bound:.3g} ({bound_name}) -> "
              f"{'ok' if good else 'FAILED'}", flush=True)
    if time_it:
        cot = torch.randn(head_c.shape, generator=gen).to(device)
        te = timed(lambda: frame_pass(eager, staged, parities[0], cot))
        tc = timed(lambda: frame_pass(compiled, staged, parities[0], cot))
        print(f"{variant}: one frame forward + backward, batch {batch}, {crop}x{crop} render crop: eager "
              f"{te * 1e3:.1f} ms, compiled {tc * 1e3:.1f} ms ({te / tc:.2f}x)", flush=True)
    return ok


def bitwise_difference(a, b):
    """(share of elements whose bits differ, largest absolute difference), NaN matching NaN."""
    same = (a.view(torch.int32) == b.view(torch.int32)) | (torch.isnan(a) & torch.isnan(b))
    return 1.0 - same.float().mean().item(), (a - b).abs().nan_to_num(0.0).max().item()


def op_checks(variant, batch, crop, device, compile_fn, tensors=None):
    """Which operation compiles to other numbers: the roundings, one RMSNorm and every block of the
    network, each compiled alone and fed the eager forward's own intermediate values, compared bit
    for bit with eager (forward only). The first operation that differs is where the whole
    forward's disagreement starts. -> [(name, share of elements whose bits differ, largest
    difference)]."""
    if tensors is None:
        _, tensors, _ = read_weights(os.path.join(ROOT, "weights", f"{variant}.safetensors"))
    model = SwinUp(ModelConfig.make(variant, head_mlp="head_mlp.fc1.weight" in tensors,
                                    masks=has_mask_embed(tensors))).to(device)
    model.load_tensors(tensors, fix_scales=False)
    model.requires_grad_(False)
    staged = staged_procedural_frame(batch, crop, device)
    results = []

    def compare(name, fn, x):
        results.append((name, *bitwise_difference(compile_fn(fn)(x), fn(x))))
    probe = rounding_probe(device)
    compare("round_e4m3", round_e4m3, probe)
    compare("round_f16", round_f16, probe)
    outputs = {}  # the forward's named outputs, in its order (dicts keep insertion order)
    with torch.no_grad(), model.weight_cache():
        model.fill_weight_cache()
        model(staged, 0, hook=lambda name, t: outputs.__setitem__(name, t.clone()))
        names = list(outputs)
        # Each block's input is the output the forward named just before the block's own.
        block_input = {blk.name: outputs[names[names.index(blk.name) - 1]] for blk in model.blocks}
        first = model.blocks[0].name + ".norm1"
        compare(first, lambda x: model.rmsnorm_e4m3(first, x), block_input[model.blocks[0].name])
        for i, blk in enumerate(model.blocks):
            shifted = i % 2 == 1  # frame 0's shifts
            compare(blk.name, lambda x, blk=blk, shifted=shifted: model.block(blk, x, shifted), block_input[blk.name])
    return results


def compile_fresh(fn):
    """torch.compile with dynamo's caches emptied first: op_checks' pieces are lambdas of one line,
    one code object, so dynamo counts each new piece as a recompilation of the last and, past its
    recompile limit (8), runs the rest eagerly without a word but a warning (the 2026-12-02
    full --ops run: dec1 and dec0, "0% differ", were eager against eager)."""
    torch._dynamo.reset()
    return torch.compile(fn)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--crop", type=int, default=96)
    ap.add_argument("--variants", default="lite,full")
    ap.add_argument("--parities", default="0,1", help="frame parities to check (each is a graph to compile)")
    ap.add_argument("--ops", action="store_true",
                    help="instead, compile each rounding, one RMSNorm and each block alone and compare "
                         "them with eager bit for bit: where a disagreement of the whole forward starts")
    args = ap.parse_args()
    if not torch.cuda.is_available() or not hasattr(torch, "compile"):
        print("skipped: needs a CUDA GPU and torch >= 2.0")
        return 0
    torch.backends.cuda.matmul.allow_tf32 = True  # as train.py's fast mode
    device = torch.device("cuda")
    if args.ops:
        import torch._inductor.config as inductor_config
        inductor_config.emulate_precision_casts = True  # as compile_forward sets it
        for variant in args.variants.split(","):
            for name, share, largest in op_checks(variant, args.batch, args.crop, device, compile_fresh):
                print(f"{variant} {name}: {share * 100:.3f}% of the elements differ in their bits "
                      f"(largest difference {largest:.3g})", flush=True)
        return 0
    ok = all([check(v, args.batch, args.crop, device, [int(p) for p in args.parities.split(",")]) for v in args.variants.split(",")])
    print("compiled forward: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
