"""The clips a training step unrolls: crops of the sequence folders (--data) or of the 2.5D-layer
generator (--procedural share), each clip with its unscored burn-in frames before the scored ones,
optionally seen in one of the square's eight mirrors (--augment)."""
import random
import time

from ..data import ProceduralScenes, batch_from_folders, load_sequence_folders, random_mirror


def draw_burn_in(rng, burn_in, reset_share):
    """The unscored frames before a batch's scored ones: 0 (the clip starts at a camera cut, its
    first scored frame has no history) with probability reset_share, else uniform in 0..burn_in.
    Why a share of cuts: `swinup eval` pools every frame of a sequence into its PSNR, and the first
    frames, whose history is still building, have 2-3x the error of later ones (breakfast_room 2x:
    frames 0-3 hold 18% of the pooled squared error), while uniform burn-in scores frame 0 in one
    clip of burn_in + 1. Measured (2026-12-01,
    docs/journal/2026-12-01-four-more-levers-e78d0d8.md): a share of 0.3 gained
    0.08 dB on frame 0 and lost 0.16 dB on the later frames."""
    if not 0.0 <= reset_share <= 1.0:
        raise ValueError(f"reset_share {reset_share!r}: expected a share in [0, 1]")
    if reset_share > 0.0 and rng.random() < reset_share:
        return 0
    return rng.randint(0, burn_in)


def step_seed(seed, rank, step):
    """The seed of one step's draws: each (seed, rank, step) its own stream, so that a chunk that
    resumes at step N draws exactly what a longer run drew at step N (the data order of a run does
    not depend on where its chunks were cut)."""
    return (seed * 1000003 + rank) * 1000003 + step


class ClipSource:
    """Draws a run's batches. The sequences are loaded once, onto the training device; the random
    streams are seeded from the seed, the rank and the step of each draw (step_seed), so that each
    rank draws its own and a resumed chunk continues the data order of the run."""

    def __init__(self, args, rank, step, device):
        self.args, self.device = args, device
        t_load = time.time()
        self.seqs = load_sequence_folders(args.data, device)
        if rank == 0 and self.seqs:
            print(f"loaded {len(self.seqs)} sequence(s) in {time.time() - t_load:.1f} s", flush=True)
        # The share of batches from the 2.5D-layer generator.
        self.procedural_share = args.procedural if args.procedural is not None else (0.3 if self.seqs else 1.0)
        self.rank = rank
        self.procedural = ProceduralScenes(device, seed=step_seed(args.seed, rank, step))
        self.rng = random.Random(step_seed(args.seed, rank, step))

    def draw(self, batch, step=None):
        """(clip of `batch` crops, its burn-in frames) of the run's `step` (None: the next draws of
        the stream as it stands)."""
        if step is not None:
            self.rng.seed(step_seed(self.args.seed, self.rank, step))
            self.procedural.gen.manual_seed(step_seed(self.args.seed, self.rank, step))
        args, rng = self.args, self.rng
        burn = draw_burn_in(rng, args.burn_in, args.reset_share)
        if self.seqs and rng.random() >= self.procedural_share:
            clip = batch_from_folders(self.seqs, batch, burn + args.frames, args.crop, rng, self.device)
        else:
            clip = self.procedural.batch(batch, burn + args.frames, args.crop, hdr=rng.random() < 0.5)
        if args.augment:
            clip = random_mirror(clip, rng)
        return clip, burn
