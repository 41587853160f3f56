"""The steps of one training chunk: until --minutes have passed (or --max-steps were taken), each
step draws a batch of clips, unrolls them through the recurrence, averages the gradients over the
ranks, clips their norm to 1 and takes an AdamW step; it logs every --log-every steps and saves
every --save-every. A batch that does not fit in GPU memory halves itself (one rank alone).
--profile N measures N steps after 3 unmeasured ones with torch.profiler instead, and saves
nothing."""
import time

import torch

from . import parallel
from .recurrence import unroll
from .reserved_rows import keep_reserved_zero
from .schedule import learning_rate, learning_rate_by_step
from .trained_parameters import trainable


def train_chunk(args, model, opt, source, ranks, step, chunk, save):
    """Trains from `step`; keeps chunk["steps"], chunk["minutes"] (and chunk["batch"] when it
    halves) current, calls save(step) every --save-every steps on rank 0. Returns the step it
    reached, or None after --profile (nothing to save)."""
    device = ranks.device
    start_step = last_save = step
    t0 = time.time()
    pixels = 0
    batch = args.batch
    profiler = None
    params = trainable(model.parameters())  # the frozen ones (--train-only) have no gradient
    while True:
        stop = bool(args.max_steps and step - start_step >= args.max_steps) or \
            time.time() - t0 > args.minutes * 60
        if args.profile:
            if step - start_step == 3:
                profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU] + (
                    [torch.profiler.ProfilerActivity.CUDA] if device.type == "cuda" else []))
                profiler.__enter__()
            stop = step - start_step >= 3 + args.profile
        if parallel.agree_to_stop(stop, ranks):
            break
        if args.schedule_steps:  # by the run's steps: the same rate whichever chunk takes the step
            lr = learning_rate_by_step(args.lr, args.warmup, args.decay, args.schedule_steps,
                                       step - chunk["schedule_start"])
        else:
            lr = learning_rate(args.lr, args.warmup, args.decay, args.minutes, step - start_step, time.time() - t0)
        for g in opt.param_groups:
            g["lr"] = lr * g["lr_scale"]
        clip, burn = source.draw(batch, step)
        opt.zero_grad(set_to_none=True)
        try:
            _, spatial, temporal = unroll(model, clip, exact=args.exact, burn_in=burn,
                                          temporal_norm=args.temporal_norm,
                                          temporal_alignment=args.temporal_alignment,
                                          display_weight=args.display_weight,
                                          display_norm=args.display_norm,
                                          temporal_space=args.temporal_space,
                                          first_frame_weight=args.first_frame_weight,
                                          disocclusion_weight=args.disocclusion_weight)
            loss = spatial + args.temporal_weight * temporal
            loss.backward()
        except torch.cuda.OutOfMemoryError:
            if batch == 1 or ranks.world > 1:
                raise
            del clip
            opt.zero_grad(set_to_none=True)
            torch.cuda.empty_cache()
            batch //= 2
            print(f"out of GPU memory: batch now {batch}", flush=True)
            chunk["batch"] = batch
            continue
        pixels += clip["gt"].shape[0] * clip["gt"].shape[1] * clip["gt"].shape[2] * clip["gt"].shape[3]
        if ranks.world > 1:
            parallel.average_gradients(params, ranks.world)
        grad_norm = torch.nn.utils.clip_grad_norm_(params, 1.0)
        if not torch.isfinite(loss.detach()):
            raise FloatingPointError(f"step {step}: loss is {loss.item()}")
        opt.step()
        keep_reserved_zero(model)
        step += 1
        if ranks.rank == 0 and step % args.log_every == 0:
            took = time.time() - t0
            print(f"step {step} loss {loss.item():.5f} (spatial {spatial.item():.5f}, temporal "
                  f"{temporal.item():.5f}) grad {grad_norm.item():.3f} lr {lr:.2e} "
                  f"{took / max(1, step - start_step):.3f} s/step, "
                  f"{pixels * ranks.world / took / 1e6:.1f} M display px-frames/s" +
                  (f", {torch.cuda.max_memory_allocated(device) / 2**30:.0f} GiB peak"
                   if device.type == "cuda" else ""), flush=True)
        chunk["steps"] = step - start_step
        chunk["minutes"] = round((time.time() - t0) / 60, 2)
        if ranks.rank == 0 and step - last_save >= args.save_every and not args.profile:
            save(step)
            last_save = step
    if profiler is not None:
        profiler.__exit__(None, None, None)
        sort = "self_cuda_time_total" if device.type == "cuda" else "self_cpu_time_total"
        print(profiler.key_averages().table(sort_by=sort, row_limit=30), flush=True)
        return None
    return step
