#!/usr/bin/env python3
"""The markdown table of docs/quality.md ("The current table") from device_eval.sh's results.

Usage: python3 python/scripts/quality_table.py eval.tgz [full_eval.tgz] [--by-frames]
       (or unpacked eval/ folders)

--by-frames prints instead each variant's margin over TAAU pooled over parts of the sequence
(frames 0-7, 8-15, 16 to the end, and all of them; 2026-12-03,
docs/journal/2026-12-03-sample-residual-and-per-frame-margins-33a98fe.md): where in the sequence a
margin is lost. It reads the per-frame PSNRs `swinup eval --json` writes.

With a second archive, the full columns come from it (the shipped variants from different
training chunks, each evaluated in its own run; bilinear and TAAU score the same in every run).

Reads <sequence>/lite.json (bilinear, taau, swinup = lite) and <sequence>/full.json (swinup =
full) and prints the table, then one line with breakfast_room's margins over TAAU. Stdlib only,
so it runs wherever the archive lands, without the training environment.
"""
import json
import math
import sys
import tarfile
from pathlib import Path

# device_eval.sh names the held-out scene "room_*" to keep its paths short; the doc says what it is.
ROOM_PREFIX, ROOM_NAME = "room_", "breakfast_room_"
PROCEDURAL = ["showcase", "fence", "moire", "text", "spinner"]  # the doc's order


def load_results(path):
    """{sequence: {"lite": json, "full": json}} from an eval folder or the .tgz, which is read in
    place: the archive is small and extracting it would leave files behind."""
    results = {}
    path = Path(path)

    def add(member, read):
        member = Path(member)
        if member.name in ("lite.json", "full.json"):
            results.setdefault(member.parent.name, {})[member.stem] = json.loads(read())

    if path.is_dir():
        for file in path.rglob("*.json"):
            add(file, file.read_text)
    else:
        with tarfile.open(path) as archive:
            for member in archive.getmembers():
                if member.isfile():
                    add(member.name, lambda m=member: archive.extractfile(m).read())
    return results


def order(sequence):
    """The doc's row order: breakfast_room 2x, 3x LDR then HDR; the procedural scenes at 2x, then
    at 3x; anything else after, by name."""
    if sequence.startswith(ROOM_PREFIX):
        scale, _, dynamic_range = sequence[len(ROOM_PREFIX):].partition("_")
        return (0, dynamic_range != "ldr", scale, sequence)
    scene, _, scale = sequence.rpartition("_")
    known = PROCEDURAL.index(scene) if scene in PROCEDURAL else len(PROCEDURAL)
    return (1, scale, known, sequence)


def method(result, name):
    return next((m for m in result.get("methods", []) if m["name"] == name), None) if result else None


def cell(m):
    return f"{m['psnr_db']:.2f} / {m['ssim']:.3f} / {m['temporal_error']:.4f}" if m else "-"


def margin(m, taau):
    # From the unrounded PSNRs, so a margin can differ by 0.01 from the difference of the cells.
    return f"{m['psnr_db'] - taau['psnr_db']:+.2f} dB" if m and taau else "-"


def size(result, key):
    return "x".join(map(str, result[key])) if key in result else "?"


def rows(results):
    """Per sequence: its doc name, the json with the sizes, and the methods by column."""
    for sequence in sorted(results, key=order):
        lite_json, full_json = results[sequence].get("lite"), results[sequence].get("full")
        first = lite_json or full_json
        name = ROOM_NAME + sequence[len(ROOM_PREFIX):] if sequence.startswith(ROOM_PREFIX) else sequence
        yield name, first, {"bilinear": method(lite_json, "bilinear"), "taau": method(lite_json, "taau"),
                            "lite": method(lite_json, "swinup"), "full": method(full_json, "swinup")}


def table(results):
    lines = ["| sequence | render -> display | bilinear | TAAU | swinup lite | swinup full "
             "| lite - TAAU | full - TAAU |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, first, m in rows(results):
        lines.append(f"| {name} | {size(first, 'render_size')} -> {size(first, 'display_size')} | "
                     f"{cell(m['bilinear'])} | {cell(m['taau'])} | {cell(m['lite'])} | {cell(m['full'])} | "
                     f"{margin(m['lite'], m['taau'])} | {margin(m['full'], m['taau'])} |")
    return "\n".join(lines)


def room_summary(results):
    """The numbers the targets are about (+1.5 dB at 2x, +1 dB at 3x, temporal error <= TAAU's)."""
    margins, ratios = [], {"lite": [], "full": []}
    for name, _, m in rows(results):
        if not name.startswith(ROOM_NAME) or not m["taau"]:
            continue
        margins.append(f"{name[len(ROOM_NAME):]} {margin(m['lite'], m['taau'])[:-3]} / "
                       f"{margin(m['full'], m['taau'])[:-3]}")
        for variant in ratios:
            if m[variant]:
                ratios[variant].append(m[variant]["temporal_error"] / m["taau"]["temporal_error"])
    if not margins:
        return "no breakfast_room sequences"
    spread = ", ".join(f"{v} {min(r):.2f}-{max(r):.2f}" for v, r in ratios.items() if r)
    return (f"breakfast_room, lite / full - TAAU (dB): {'; '.join(margins)}; "
            f"temporal error / TAAU's: {spread}")


def pooled_psnr(frame_psnrs):
    """The PSNR of the frames' pooled squared error, as `swinup eval` pools a sequence: each frame's
    mean squared error is 10^(-psnr / 10) on the display-encoded [0, 1] scale."""
    mse = [10.0 ** (-p / 10.0) for p in frame_psnrs]
    return -10.0 * math.log10(sum(mse) / len(mse))


FRAME_PARTS = ((0, 8), (8, 16), (16, None))  # warm-up, settling, the rest


def frame_margin(m, taau, first, end):
    """m's pooled PSNR minus TAAU's over frames first..end-1 (end None: to the last)."""
    return pooled_psnr(m["frame_psnr_db"][first:end]) - pooled_psnr(taau["frame_psnr_db"][first:end])


def frames_table(results):
    parts = [f"frames {a}-{b - 1}" if b else f"frames {a}-" for a, b in FRAME_PARTS]
    lines = ["| sequence | variant | all frames | " + " | ".join(parts) + " |",
             "| --- | --- | ---: |" + " ---: |" * len(parts)]
    for name, _, m in rows(results):
        variants = [v for v in ("lite", "full") if m[v] and m["taau"]]
        if not variants:
            continue
        cells = []
        for first, end in ((0, None),) + FRAME_PARTS:
            cells.append(" / ".join(f"{frame_margin(m[v], m['taau'], first, end):+.2f}" for v in variants))
        lines.append(f"| {name} | {' / '.join(variants)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--by-frames"]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    results = load_results(args[0])
    if not results:
        sys.exit(f"no <sequence>/lite.json or full.json in {args[0]}")
    if len(args) == 2:
        full_results = load_results(args[1])
        for sequence, by_variant in results.items():
            by_variant["full"] = full_results.get(sequence, {}).get("full")
    if "--by-frames" in sys.argv[1:]:
        print(frames_table(results))
    else:
        print(table(results))
        print()
        print(room_summary(results))
