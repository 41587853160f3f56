"""The learning rate along a chunk: a linear warm-up over the first --warmup steps (it stands in for
the optimiser's moments, which a checkpoint does not keep) and, with --decay, a cosine over the
chunk's --minutes down to a twentieth (for a last chunk). With --schedule-steps T the same shape is
laid over the run's steps instead (the warm-up over its first --warmup steps, the cosine over T
steps from its start), so that a run cut into chunks takes each step at the rate one long run would
(learning_rate_by_step)."""
import math


def learning_rate(lr, warmup, decay, minutes, steps_done, elapsed_s):
    """The rate of the step after steps_done steps of this chunk, elapsed_s seconds into it."""
    warm = min(1.0, (steps_done + 1) / max(1, warmup))
    rate = lr * warm
    if decay:
        progress = min(1.0, elapsed_s / (minutes * 60))
        rate *= 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * progress))
    return rate


def learning_rate_by_step(lr, warmup, decay, schedule_steps, run_steps):
    """The rate of the run's step after run_steps steps since the run began (whatever chunk it is
    in): warm-up over the first `warmup` steps, with `decay` a cosine to a twentieth over
    `schedule_steps` steps."""
    warm = min(1.0, (run_steps + 1) / max(1, warmup))
    rate = lr * warm
    if decay:
        progress = min(1.0, run_steps / max(1, schedule_steps))
        rate *= 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * progress))
    return rate
