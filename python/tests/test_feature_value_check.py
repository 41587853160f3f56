"""feature_value_check.py's candidate features measure what their names say: the history's range
around the reprojected sample (0 on a flat history, the checker's contrast on a checker, 0 where
there is no history), and how far the history sample lies outside this frame's 3x3 box."""
import importlib.util
import os
import sys
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "scripts", "research"))
from swinup import exact_math as xm  # noqa: E402
from swinup.staging import FrameInput, TemporalState, stage  # noqa: E402

_spec = importlib.util.spec_from_file_location("feature_value_check",
                                               os.path.join(HERE, "..", "scripts", "research", "feature_value_check.py"))
fvc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fvc)

W, H, S = 8, 6, 2  # render size, scale


def frame(colour, reset=False):
    return FrameInput(color=colour, depth=torch.full((1, H, W), 0.5), motion=torch.zeros(1, H, W, 2),
                      jitter=torch.tensor([[0.1, -0.2]]), hdr=False, reset=reset)


def state(history):
    return TemporalState(history=history, recurrent=torch.zeros(1, H, W, 4), z=torch.full((1, H, W), 0.5),
                         width=W, height=H)


class Tap:  # what StateTap leaves: the frame and the state staging read
    def __init__(self, f, s):
        self.frame, self.state = f, s


def features(colour, history, reset=False):
    f, s = frame(colour, reset), state(history)
    st = stage(f, None if reset else s, W * S, H * S, exact=False)
    return fvc.extra_features(Tap(f, None if reset else s), st, W, H).reshape(H, W, 5)


class CandidateFeaturesTest(unittest.TestCase):
    def test_flat_history_has_no_range_and_lies_in_the_box(self):
        grey = torch.full((1, H, W, 3), 0.4)
        e = features(grey, torch.full((1, H * S, W * S, 3), 0.4))
        for k in range(5):  # ranges 0; the history equals the samples: not outside; a flat box
            self.assertTrue(torch.equal(e[..., k], torch.zeros(H, W)), fvc.EXTRA_NAMES[k])

    def test_checker_history_has_its_contrast_as_range(self):
        grey = torch.full((1, H, W, 3), 0.4)
        ys, xs = torch.meshgrid(torch.arange(H * S), torch.arange(W * S), indexing="ij")
        checker = torch.where(((xs + ys) % 2 == 0)[None, ..., None], torch.tensor(0.8), torch.tensor(0.1))
        e = features(grey, checker.expand(1, H * S, W * S, 3).clone())
        t_hi = float(xm.fn("tonemap_t", torch.tensor(0.8), False))
        t_lo = float(xm.fn("tonemap_t", torch.tensor(0.1), False))
        contrast = float(fvc.slot_value(torch.tensor(t_hi - t_lo)))
        self.assertTrue(torch.all(e[..., 0] == contrast))  # 3x3 range
        self.assertTrue(torch.all(e[..., 1] == contrast))  # 5x5 range
        self.assertTrue(torch.all(e[..., 2] > 0.1 * contrast))  # luma std over the 3x3
        self.assertTrue(torch.equal(e[..., 4], torch.zeros(H, W)))  # the current frame is flat

    def test_history_outside_the_box_and_no_history(self):
        ramp = torch.linspace(0.2, 0.3, W).view(1, 1, W, 1).expand(1, H, W, 3).clone()
        bright = torch.full((1, H * S, W * S, 3), 0.9)
        e = features(ramp, bright)
        self.assertTrue(torch.all(e[..., 3] > 0.5))  # far above every sample of its box
        self.assertTrue(torch.all(e[..., 4] > 0))  # the ramp's box has a range
        reset = features(ramp, bright, reset=True)
        for k in range(4):  # no history: the history's features are 0, the box's range stays
            self.assertTrue(torch.equal(reset[..., k], torch.zeros(H, W)), fvc.EXTRA_NAMES[k])
        self.assertTrue(torch.equal(reset[..., 4], e[..., 4]))


if __name__ == "__main__":
    unittest.main()
