"""train.py's command line: the options, their defaults and the checks of their values that need
nothing but the options (the run folder's are run_folder.py's)."""
import argparse

from ..output_pass import HISTORY_FILTERS
from ..research import experiments
from ..shipped import VARIANTS
from .held_out import HELD_OUT_SCENE, holds_held_out_scene


def add_experiment_option(ap, name: str, does: str):
    """The option that attaches experiments.EXPERIMENTS[name] (its flag is the table's, its value
    args.<name>): what it does, then what every experiment's option says of itself."""
    ap.add_argument(experiments.EXPERIMENTS[name][2], action="store_true",
                    help=f"an experiment no backend runs: {does} (research/{name}.py); the checkpoint then "
                         "holds its parameters")


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description="Train swinup through its recurrence.")
    ap.add_argument("--variant", default=None, choices=list(VARIANTS),
                    help="the network (default lite; with --resume, the run folder's)")
    ap.add_argument("--data", action="append", default=[],
                    help="sequence folder (repeatable; a folder named n times is drawn n times as often)")
    ap.add_argument("--procedural", type=float, default=None,
                    help="fraction of batches from data.py's 2.5D-layer generator (default 1 without "
                         "--data, else 0.3)")
    ap.add_argument("--run-dir", default=None,
                    help="the run folder a new run writes its checkpoint <variant>.pt into (default "
                         "python/runs/<variant>-<UTC time>); it must not hold one already")
    ap.add_argument("--resume", default=None, metavar="RUN_DIR",
                    help="continue the run in RUN_DIR from its checkpoint, and save back there")
    ap.add_argument("--start", default=None, metavar="CHECKPOINT",
                    help="the checkpoint a new run starts from, read only (default the shipped "
                         "python/checkpoints/<variant>.pt, or weights/<variant>.safetensors without it)")
    ap.add_argument("--init-weights", default=None, help="a weights file a new run starts from instead")
    ap.add_argument("--checkpoint", default=None, help=argparse.SUPPRESS)  # refused by name, parse()
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--max-steps", type=int, default=0)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--frames", type=int, default=8, help="scored frames per clip")
    ap.add_argument("--burn-in", type=int, default=0,
                    help="most frames a clip runs before its scored ones, without gradient or loss "
                         "(per batch uniformly 0..N), so that the loss sees steady-state history")
    ap.add_argument("--reset-share", type=float, default=0.0,
                    help="share of batches whose clips start at a camera cut (no burn-in): the first "
                         "frames, which the evaluation scores too, weigh more")
    ap.add_argument("--first-frame-weight", type=float, default=1.0,
                    help="weight of a scored frame without history (a clip's first after no burn-in, or "
                         "a camera cut) in the spatial and display terms: the evaluation's first frame "
                         "has the largest squared error of a sequence")
    ap.add_argument("--crop", type=int, default=96, help="render crop side (multiple of 32)")
    ap.add_argument("--augment", action="store_true",
                    help="show each batch in one of the square's eight mirrors (flips, transpose; "
                         "data.mirror_clip), so that the network sees every orientation of the scenes")
    ap.add_argument("--lr", type=float, default=4e-4)
    ap.add_argument("--decay", action="store_true",
                    help="cosine decay of the learning rate to lr/20 over this chunk's --minutes "
                         "(over --schedule-steps when given)")
    ap.add_argument("--schedule-steps", type=int, default=0,
                    help="lay the schedule over the run's steps: warm-up over its first --warmup steps "
                         "and, with --decay, the cosine over this many steps from the run's start, "
                         "whichever chunk takes them; with --optimizer-state, a run cut into chunks "
                         "(--max-steps, --resume) then trains exactly as one long run (0: the "
                         "schedule of each chunk, by --minutes)")
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--temporal-weight", type=float, default=0.5)
    ap.add_argument("--temporal-norm", default="l1", choices=["l1", "rms"],
                    help="the temporal term: mean absolute or root-mean-square change error "
                         "(rms: the statistic of `swinup eval`'s temporal error)")
    ap.add_argument("--temporal-alignment", default="motion", choices=["motion", "pixel"],
                    help="compare each display pixel's change along the motion on stable pixels "
                         "(motion, as `swinup eval` does) or with the same pixel of the last frame "
                         "(pixel, the term of the format-1 and early format-2 chunks)")
    ap.add_argument("--display-weight", type=float, default=0.0,
                    help="add this times the L1 distance of display-encoded colour (sRGB after the "
                         "evaluation's LDR clamp or HDR Reinhard: the space `swinup eval` scores) to "
                         "the t-space L1")
    ap.add_argument("--disocclusion-weight", type=float, default=0.0,
                    help="add this times the t-space L1 over the display pixels uncovered within the "
                         "last four frames (a mean over those pixels; sequences rendered with motion "
                         "masks, motion_masks.NNNN.exr; none elsewhere): where moving objects leave "
                         "trails")
    ap.add_argument("--display-norm", default="l1", choices=["l1", "rms"],
                    help="the display term as a mean absolute error or, per clip, a root mean square "
                         "(the statistic of `swinup eval`'s PSNR)")
    ap.add_argument("--temporal-space", default="t", choices=["t", "display"],
                    help="the colours whose changes the temporal term compares: t-space or "
                         "display-encoded (the space of `swinup eval`'s temporal error)")
    ap.add_argument("--save-every", type=int, default=200)
    ap.add_argument("--optimizer-state", default=None,
                    help="a side file (keep it out of the repository) for the optimiser's moments and "
                         "the float32 master weights: written with every save, read at the start when it "
                         "belongs to the checkpoint's step, so that chunks chained on one machine continue "
                         "as one run (give the later ones --warmup 0)")
    add_experiment_option(ap, "display_refine", "refine the history weight per display pixel")
    add_experiment_option(ap, "pixel_mlp", "lite's skip0 plus a ReLU layer of the staged slots, zero-initialised")
    ap.add_argument("--head-mlp", action="store_true",
                    help="the network with the head MLP (docs/model-spec.md, \"The head MLP\"): a ReLU "
                         "MLP of the head's normalised input and the staged slots added to head outputs "
                         "0-7, zero-initialised when the checkpoint has none; a checkpoint that has it "
                         "keeps it without this option")
    ap.add_argument("--masks", action="store_true",
                    help="the network with the mask embedding (docs/masks.md, weights format 5's "
                         "mask_embed), which reads the clips' reactive and transparency masks; zero "
                         "(the network without it) when the start has none; a start that has it keeps "
                         "it without this option. Its bias is never trained: it stays exactly zero")
    ap.add_argument("--train-only", nargs="+", default=None, metavar="PARAMETER",
                    help="train only these parameters of the network (names as in weights files, e.g. "
                         "mask_embed.weight); every other one, the attached experiments' too, stays "
                         "bit for bit what the start held")
    ap.add_argument("--still-history-shift", type=float, default=0.0,
                    help="train with the output pass's still-pixel shift (docs/model-spec.md, \"Output "
                         "pass\"; scaled by 1 - t under a transparency mask), e.g. the 0.75 that export "
                         "writes (export.SHIPPED_STILL_HISTORY_SHIFT); default 0: training without it, as "
                         "every chunk before 2026-12-05")
    add_experiment_option(ap, "history_clip", "move the reprojected history toward the range of this frame's 3x3 "
                          "samples by a learned per-render-pixel strength")
    add_experiment_option(ap, "sample_residual", "add a learned t-space correction (head rows 13-15) to each render "
                          "sample before the output pass gathers it")
    ap.add_argument("--experiment-lr-scale", type=float, default=1.0,
                    help="learning rate of the attached experiments' and the head MLP's parameters, as a "
                         "multiple of --lr: "
                         "a zero-initialised module continued from trained weights needs many steps at "
                         "the network's rate before it contributes; 0 holds them fixed (a fitted start, "
                         "scripts/research/fit_head_mlp.py, which training at the recipe's rate undoes)")
    ap.add_argument("--experiment-history-filter", choices=sorted(HISTORY_FILTERS), default="lanczos3",
                    help="the filter the output pass reads its history with while training: lanczos3, "
                         "the network's; catmull-rom, the one every checkpoint before 2026-12-03 "
                         "was trained with (a control arm: the backends read with Lanczos-3, "
                         "so its export is scored with the filter it was not trained with)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--exact", action="store_true", help="exact-mode forward (slower)")
    ap.add_argument("--compile", action="store_true",
                    help="run the network's forward pass through torch.compile (torch >= 2, fast mode; "
                         "fewer, fused kernels a frame)")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--profile", type=int, default=0,
                    help="measure N steps (after 3 unmeasured ones) with torch.profiler, print "
                         "where the time goes, save nothing")
    ap.add_argument("--dist-backend", default=None,
                    help="torch.distributed backend (default nccl on GPUs, gloo on CPU)")
    return ap


def parse(ap: argparse.ArgumentParser, argv=None) -> argparse.Namespace:
    """The options, checked; a wrong one stops the program with ap.error's message."""
    args = ap.parse_args(argv)
    if args.checkpoint is not None:
        ap.error("--checkpoint is gone: a new run starts from --start CHECKPOINT (read only) and writes into "
                 "its own run folder (--run-dir); --resume RUN_DIR continues a run")
    if args.crop % 32:
        ap.error("--crop must be a multiple of 32")
    if not 0.0 <= args.reset_share <= 1.0:
        ap.error(f"--reset-share must be in [0, 1], got {args.reset_share}")
    if not args.display_weight >= 0.0:
        ap.error(f"--display-weight must be >= 0, got {args.display_weight}")
    if args.schedule_steps < 0:
        ap.error(f"--schedule-steps must be >= 0, got {args.schedule_steps}")
    if not args.disocclusion_weight >= 0.0:
        ap.error(f"--disocclusion-weight must be >= 0, got {args.disocclusion_weight}")
    if not args.first_frame_weight > 0.0:
        ap.error(f"--first-frame-weight must be > 0, got {args.first_frame_weight}")
    if not args.experiment_lr_scale >= 0.0:
        ap.error(f"--experiment-lr-scale must be >= 0, got {args.experiment_lr_scale}")
    if holds_held_out_scene(args.data):
        ap.error(f"{HELD_OUT_SCENE} is the held-out check: do not train on it")
    return args


def attached_experiments(args) -> list:
    """The experiments the options attach (each experiment's option, --display-refine or
    --pixel-mlp, sets args.<its name>)."""
    return [name for name in experiments.EXPERIMENTS if getattr(args, name)]


def check_variant(ap: argparse.ArgumentParser, args):
    """The checks that need the run's variant (--resume reads it from the run folder)."""
    if args.pixel_mlp and args.variant != "lite":
        ap.error("--pixel-mlp is lite's (its skip0); full's pixel level is embed0 and enc0/dec0")
