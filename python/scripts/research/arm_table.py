#!/usr/bin/env python3
"""The markdown table of an A/B comparison scored by score_python.py (device_arms.sh
PYTHON_SCORE=1): each pair's arm and control, PSNR (dB) / temporal error per sequence, and the
arm's difference to its control, in dB and in per cent of the control's temporal error.

Usage: python3 python/scripts/research/arm_table.py scores.tgz ARM:CONTROL [ARM:CONTROL ...]
       (or the unpacked folder holding NAME/score_python.jsonl)

Rows follow quality_table.py's order (breakfast_room first, then the procedural scenes at 2x, then
at 3x). Stdlib only, so it runs wherever the archive lands.
"""
import json
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # python/scripts: quality_table.py
from quality_table import ROOM_NAME, ROOM_PREFIX, order  # noqa: E402


def load_scores(path):
    """{arm: {sequence: (psnr, temporal)}} from every NAME/score_python.jsonl under path."""
    scores = {}
    path = Path(path)

    def add(member, text):
        member = Path(member)
        if member.name != "score_python.jsonl":
            return
        for line in text.splitlines():
            if line.strip():
                record = json.loads(line)
                scores.setdefault(member.parent.name, {})[record["sequence"]] = (
                    record["psnr"], record["temporal"])

    if path.is_dir():
        for file in path.rglob("score_python.jsonl"):
            add(file, file.read_text())
    else:
        with tarfile.open(path) as archive:
            for member in archive.getmembers():
                if member.isfile():
                    add(member.name, archive.extractfile(member).read().decode())
    return scores


def pair_table(scores, pairs):
    for arm, control in pairs:
        for name in (arm, control):
            if name not in scores:
                raise SystemExit(f"no scores for arm {name} (have: {', '.join(sorted(scores)) or 'none'})")
    header = ["sequence"]
    for arm, control in pairs:
        header += [arm, control, f"{arm} - {control}"]
    lines = ["| " + " | ".join(header) + " |", "| --- |" + " ---: |" * (len(header) - 1)]
    sequences = sorted({s for arm, control in pairs for s in scores[arm].keys() & scores[control].keys()},
                       key=order)
    for sequence in sequences:
        name = ROOM_NAME + sequence[len(ROOM_PREFIX):] if sequence.startswith(ROOM_PREFIX) else sequence
        cells = [name]
        for arm, control in pairs:
            a, c = scores[arm].get(sequence), scores[control].get(sequence)
            if not a or not c:
                cells += ["-", "-", "-"]
                continue
            cells += [f"{a[0]:.3f} / {a[1]:.5f}", f"{c[0]:.3f} / {c[1]:.5f}",
                      f"{a[0] - c[0]:+.3f} / {100.0 * (a[1] / c[1] - 1.0):+.1f}%"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) < 3 or not all(":" in p for p in sys.argv[2:]):
        sys.exit(__doc__)
    print(pair_table(load_scores(sys.argv[1]), [tuple(p.split(":", 1)) for p in sys.argv[2:]]))
