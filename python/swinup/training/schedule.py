"""The learning rate along a chunk: a linear warm-up over the first --warmup steps (it stands in for
the optimiser's moments, which a checkpoint does not keep) and, with --decay, a cosine over the
chunk's --minutes down to a twentieth (for a last chunk)."""
import math


def learning_rate(lr, warmup, decay, minutes, steps_done, elapsed_s):
    """The rate of the step after steps_done steps of this chunk, elapsed_s seconds into it."""
    warm = min(1.0, (steps_done + 1) / max(1, warmup))
    rate = lr * warm
    if decay:
        progress = min(1.0, elapsed_s / (minutes * 60))
        rate *= 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * progress))
    return rate
