"""Training of the swinup network through its recurrence (python -m swinup.train --help).

Each step unrolls clips of --frames frames (8+) through staging, the network and the output pass
(all differentiable, straight-through rounding), so the recurrent features and the history learn
what the next frame needs. Loss per frame, in t-space (t = log2(1 + x), where the output pass
blends): L1 to the ground truth, plus a temporal term: the output's frame-to-frame change minus
the ground truth's (flicker the truth does not have costs), as a mean absolute value or, with
--temporal-norm rms, a root mean square (the statistic of `swinup eval`'s temporal error).
`swinup eval` scores display-encoded colour (sRGB after an LDR clamp or HDR Reinhard), steeper
than t in the darks: --display-weight W adds W times the L1 distance of display-encoded colour,
--temporal-space display makes the temporal term compare display-encoded changes
(display_encode.py); --display-norm rms makes the display term a root mean square per clip, the
statistic behind the evaluation's PSNR. The first frame of a clip (no history) counts like the
others. --burn-in N runs up to N frames before a clip's scored ones, without gradient or loss (the
count drawn per batch), so that the loss also sees the history's steady state that a long
sequence reaches (at 3x a display pixel gets a render sample only every ninth frame on average);
--reset-share P makes that share of batches start at a camera cut instead (the first frames weigh
more).

Data: --data DIR (repeatable) names sequence folders with ground truth (the renderer's output;
keep breakfast_room out: it is the held-out check) and/or --procedural P, the fraction of batches
drawn from the 2.5D-layer generator of data.py (random scale 1.5-3, HDR and LDR). --augment shows
each batch in one of the square's eight mirrors (data.mirror_clip: flips and a transpose, motion and
jitter mirrored with the images).

Runs and the shipped files: a run writes into its own folder and never over the shipped
python/checkpoints/<variant>.pt and weights/<variant>.safetensors (training/run_folder.py). A new
run starts from the shipped checkpoint, read only (--start CHECKPOINT or --init-weights FILE for
another start), and saves RUN_DIR/<variant>.pt, RUN_DIR a new python/runs/<variant>-<UTC time>
unless --run-dir names one; --resume RUN_DIR continues that run. The checkpoint holds the step
count, the master weights in f16 and the training history (one entry per chunk: date, steps,
minutes, GPUs, data, learning rate, temporal term), which export.py writes into the weights
file's description for `swinup info`. The optimiser's moments are not kept (a short warm-up after
each resume stands in for them; --optimizer-state keeps them, with float32 master weights, in a
side file for chunks chained on one machine; with --schedule-steps, whose learning rate follows the
run's steps, and the per-step data streams, such chunks add up bit for bit to one run). Runs for
--minutes, saving every --save-every steps and at the end, so it runs in chunks and continues
later; --decay lowers the learning rate along a cosine over the chunk (for a last chunk). `python -m swinup.export RUN_DIR` writes the run's
weights file, `python -m swinup.promote RUN_DIR` makes the pair the shipped one.

Speed: tiles are small, so an unrolled step is thousands of small kernels; what pays is work per
kernel: large batches of crops (--batch, --crop), sequences held on the GPU (data.py), e4m3
rounding by torch's float8 cast (quant.py, checked against the bit version), TF32 matrix products
in fast mode (the linear layers' operands are e4m3 values, exact in TF32's 10-bit mantissa);
--compile runs the network's forward pass through torch.compile (SwinUp.compile_forward), which
fuses its elementwise kernels. A batch that does not fit in memory halves itself.

Several GPUs: torchrun --nproc_per_node N -m swinup.train ... (training/parallel.py).

The parts, one concern a module, are in training/ (its __init__.py lists them).
"""
import os

from .output_pass import use_history_filter
from .training import options, parallel, run_folder
from .training.batches import ClipSource
from .training.checkpoint import save_checkpoint
from .training.history import chunk_record
from .training.loop import train_chunk
from .training.optimizer import make_optimizer, save_optimizer_state
from .training.start import start_model
from .training.trained_parameters import freeze_untrained
from .usage_errors import value_errors_as_usage


def main(argv=None):
    ap = options.parser()
    args = options.parse(ap, argv)
    with value_errors_as_usage(ap):
        plan = run_folder.plan(args)
    args.variant = plan.variant
    options.check_variant(ap, args)
    use_history_filter(args.experiment_history_filter)
    ranks = parallel.setup(args.exact, args.dist_backend)

    model, step, history, origin = start_model(args, plan)
    with value_errors_as_usage(ap):
        trained = freeze_untrained(model, args.train_only)
    model.to(ranks.device)
    if args.compile:
        try:
            model.compile_forward()
        except (ValueError, RuntimeError) as e:  # exact mode, or a torch without torch.compile
            ap.error(f"--compile: {e}")
    parallel.broadcast_parameters(model, ranks)
    if ranks.rank == 0:
        print(f"swinup train: {args.variant}, from {origin}, {ranks.world} rank(s) on {ranks.device}", flush=True)
        print(f"run folder {plan.run_dir}" + (" (resumed)" if plan.resumed else ""), flush=True)
        if args.train_only:
            print(f"training only {', '.join(trained)}; every other parameter frozen", flush=True)
        if not args.profile:
            os.makedirs(plan.run_dir, exist_ok=True)

    source = ClipSource(args, ranks.rank, step, ranks.device)
    opt = make_optimizer(model, args, step, verbose=ranks.rank == 0)
    chunk = chunk_record(args, step, parallel.device_label(ranks.device, ranks.world), ranks.world,
                         source.procedural_share, model)
    if args.schedule_steps:
        # Where the run's step schedule began: this chunk's start for a new run, the last chunk's
        # record for a resumed one (its chunks share one schedule).
        last = history[-1] if plan.resumed and history else {}
        chunk["schedule_start"] = last.get("schedule_start", step) if last.get("schedule_steps") else step
    history = history + [chunk]

    def save(at_step):
        save_checkpoint(plan.checkpoint, model, at_step, history)
        if args.optimizer_state:
            save_optimizer_state(args.optimizer_state, model, opt, at_step)
    step = train_chunk(args, model, opt, source, ranks, step, chunk, save)
    if step is None:  # --profile: measured, nothing to save
        return
    if ranks.rank == 0:
        save(step)
        print(f"saved {plan.checkpoint} at step {step}; continue with --resume {plan.run_dir}, "
              f"export with python -m swinup.export {plan.run_dir}", flush=True)
    parallel.finish(ranks)


if __name__ == "__main__":
    main()
