"""The held-out scene: the evaluation's check (docs/quality.md), never trained or fitted on."""
HELD_OUT_SCENE = "breakfast_room"


def holds_held_out_scene(paths):
    """Whether any of the data folders is a sequence of the held-out scene (its name in the path,
    as the renderer's and device_eval.sh's folders are named)."""
    return any(HELD_OUT_SCENE in p for p in paths)
