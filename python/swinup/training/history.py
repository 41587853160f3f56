"""The training history a checkpoint keeps, one record a chunk (date, steps, minutes, device, data,
the settings that differ from the defaults), and the one-line summary of it that export.py writes
into the weights file's description for `swinup info`."""
import datetime
import os
import re

from .held_out import HELD_OUT_SCENE
from .optimizer import trained_extras

# The C API keeps 255 characters of the weights' description, and `swinup info` puts
# "embedded full: " (15) before it: what a description may take.
DESCRIPTION_ROOM = 255 - len("embedded full: ")


def describe_training(variant, step, history, still_history_shift=0.0):
    """One short line for the weights file's description (`swinup info` shows it after the origin,
    "embedded full: ", and the C API keeps 255 characters of both). The checkpoint keeps the whole
    history. still_history_shift: the exported network's (export.py), named with the fits, early
    enough to survive the 255 characters."""
    if not history:
        return f"{variant}: {step} training steps (python/swinup/train.py)"
    minutes = sum(float(h.get("minutes", 0)) for h in history)
    # The GPUs of the chunks (notes have no device), without device_label's ", N ranks".
    gpus = sorted({h["device"].replace("NVIDIA ", "").split(",")[0] for h in history if "device" in h})
    # Names through data_name again: chunks recorded before it knew the scale suffix kept them.
    data = {data_name(d) for h in history for d in h.get("data", [])}
    # A built-in scene with particles added (render_training_data.sh: fence_particles_orbit ->
    # fence_particles) counts as the scene, and the particles are named once.
    with_particles = {d for d in data if d.endswith("_particles")}
    if with_particles:
        data = (data - with_particles) | {d[:-len("_particles")] for d in with_particles} | {"particles"}
    builtin = {"showcase", "fence", "moire", "text", "spinner"}  # the renderer's own scenes
    if data & builtin:
        data = (data - builtin) | {f"{len(data & builtin)} procedural scenes"}
    data = sorted(data)
    dates = sorted(h["date"] for h in history if "date" in h)
    when = dates[-1] if dates else "?"
    frames = max(int(h.get("frames", 8)) for h in history)
    burn = max(int(h.get("burn_in", 0)) for h in history)
    chunks = [h for h in history if "device" in h]  # chunks, not notes
    norms = sorted({h.get("temporal_norm", "l1").upper() for h in chunks})
    notes = ([] if norms in ([], ["L1"]) else ["/".join(norms)]) + \
        (["display"] if any(h.get("temporal_space", "t") == "display" for h in chunks) else [])
    temporal = "temporal" + (f" ({', '.join(notes)})" if notes else "")
    if any(h.get("temporal_alignment", "pixel") == "motion" for h in chunks):
        temporal += " along the motion"
    display_norms = sorted({h.get("display_norm", "l1").upper() for h in chunks if h.get("display_weight", 0)})
    if display_norms in ([], ["L1"]):
        spatial = "t-space" + (" + display" if display_norms else "") + " L1"
    else:  # "t-space L1 + display L1/RMS": the chunks' display terms differ from the t-space one
        spatial = "t-space L1 + display " + "/".join(display_norms)
    if any(h.get("disocclusion_weight", 0) for h in chunks):
        spatial += " + disocclusion L1"
    averaged = [h for h in history if "averaged" in h]  # average_checkpoints.py
    # scripts/research/fit_first_frame.py
    fitted = " + first-frame fit" if any("first_frame_fit" in h for h in history) else ""
    if any("head_mlp_fit" in h for h in history):  # scripts/research/fit_head_mlp.py
        fitted += " + head MLP fit"
    if any(h.get("masks") and "mask_embed.weight" in h.get("train_only", ["mask_embed.weight"]) for h in chunks):
        fitted += " + mask_embed trained"
    if still_history_shift:
        fitted += f" + still shift {still_history_shift:g}"

    def compose(mean):
        return (f"{variant} trained {step} steps" + mean + fitted +
                f", {minutes:.0f} min on {'/'.join(gpus)} ({when}); data {' + '.join(data)}, {HELD_OUT_SCENE} "
                f"held out; {spatial} + {temporal}")
    long_mean = short_mean = ""
    if averaged:  # the last mean made these weights; "shares" marks a weighted one (an interpolation)
        n = averaged[-1]["averaged"]
        weighted = "shares" in averaged[-1]
        long_mean = f" (interpolated between {n} checkpoints)" if weighted else f" (mean of {n} checkpoints)"
        short_mean = f" (weighted mean of {n})" if weighted else f" (mean of {n})"
    text = compose(long_mean)
    if len(text) > DESCRIPTION_ROOM and short_mean:  # the short form, rather than lose the end of the line
        text = compose(short_mean)
    if len(text) > DESCRIPTION_ROOM:  # what the C API would cut anyway, cut visibly
        text = text[:DESCRIPTION_ROOM - 3] + "..."
    crops = sorted({int(h.get("crop", 96)) for h in chunks}) or [96]
    crop_sides = "-".join(str(c) for c in sorted({crops[0], crops[-1]}))  # "128" or "96-128"
    # What the clips were, most telling first: whether any chunk saw the scenes mirrored
    # (--augment), the clip lengths, render crop sides other than the default 96. Each part is
    # added only while the C API's 255 characters (with "embedded full: " before the description)
    # keep all of it.
    parts = [", mirrored" if any(h.get("augment") for h in chunks) else "",
             f", {frames}-frame clips" + (f", <={burn} burn-in" if burn else ""),
             f", {crop_sides} px crops" if crop_sides != "96" else ""]
    kept = ""
    for part in parts:
        if part and len(text + kept + part) <= DESCRIPTION_ROOM:
            kept += part
    return text + kept


def data_name(path):
    """A training sequence's scene: its folder name without the camera and scale suffixes that
    render_training_data.sh adds (gas_station_orbit -> gas_station, fence_pan_3x -> fence), for
    the history and the description built from it."""
    name = os.path.basename(os.path.normpath(path))
    head, _, tail = name.rpartition("_")
    if head and re.fullmatch(r"\d+(\.\d+)?x", tail):  # the extra large-scale sequences' suffix
        name = head
        head, _, tail = name.rpartition("_")
    return head if head and tail in ("own", "pan", "orbit", "shake", "dolly", "static") else name


def chunk_record(args, step, device_label, world, procedural_share, model):
    """The history's record of the chunk a run is about to train (its steps and minutes are kept
    up to date as it trains): the settings every chunk names, and those that differ from the
    defaults only when they do, so that old and new records read alike."""
    chunk = {"date": datetime.date.today().isoformat(), "start_step": step, "steps": 0,
             "minutes": 0.0, "device": device_label,
             "data": sorted({data_name(d) for d in args.data} |
                            ({"2.5D layers"} if procedural_share > 0 else set())),
             "batch": args.batch * world, "crop": args.crop, "frames": args.frames, "lr": args.lr,
             "temporal_weight": args.temporal_weight, "temporal_norm": args.temporal_norm,
             "temporal_alignment": args.temporal_alignment}
    if args.display_weight > 0.0:
        chunk["display_weight"] = args.display_weight
        if args.display_norm != "l1":
            chunk["display_norm"] = args.display_norm
    if args.temporal_space != "t":
        chunk["temporal_space"] = args.temporal_space
    if args.disocclusion_weight > 0.0:
        chunk["disocclusion_weight"] = args.disocclusion_weight
    if args.schedule_steps:
        chunk["schedule_steps"] = args.schedule_steps
    if args.burn_in:
        chunk["burn_in"] = args.burn_in
    if args.reset_share:
        chunk["reset_share"] = args.reset_share
    if args.experiment_lr_scale != 1.0:
        chunk["experiment_lr_scale"] = args.experiment_lr_scale
    if args.experiment_history_filter != "lanczos3":
        chunk["history_filter"] = args.experiment_history_filter
    if args.first_frame_weight != 1.0:
        chunk["first_frame_weight"] = args.first_frame_weight
    if args.compile:
        chunk["compiled"] = True
    if args.augment:
        chunk["augment"] = "mirrors"
    for name in trained_extras(model):
        chunk[name] = True
    if model.cfg.masks:
        chunk["masks"] = True
    if args.train_only:
        chunk["train_only"] = list(args.train_only)
    if args.still_history_shift:
        chunk["still_history_shift"] = args.still_history_shift
    return chunk
