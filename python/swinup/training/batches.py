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


class ClipSource:
    """Draws a run's batches. The sequences are loaded once, onto the training device; the random
    streams are seeded from the seed, the rank and the step, so that each rank and each resumed
    chunk draws its own."""

    def __init__(self, args, rank, step, device):
        self.args, self.device = args, device
        t_load = time.time()
        self.seqs = load_sequence_folders(args.data, device)
        if rank == 0 and self.seqs:
            print(f"loaded {len(self.seqs)} sequence(s) in {time.time() - t_load:.1f} s", flush=True)
        # The share of batches from the 2.5D-layer generator.
        self.procedural_share = args.procedural if args.procedural is not None else (0.3 if self.seqs else 1.0)
        self.procedural = ProceduralScenes(device, seed=args.seed * 1000 + rank + step)
        self.rng = random.Random(args.seed * 1000 + rank + step)

    def draw(self, batch):
        """(clip of `batch` crops, its burn-in frames)."""
        args, rng = self.args, self.rng
        burn = draw_burn_in(rng, args.burn_in, args.reset_share)
        if self.seqs and rng.random() >= self.procedural_share:
            clip = batch_from_folders(self.seqs, batch, burn + args.frames, args.crop, rng, self.device)
        else:
            clip = self.procedural.batch(batch, burn + args.frames, args.crop, hdr=rng.random() < 0.5)
        if args.augment:
            clip = random_mirror(clip, rng)
        return clip, burn
