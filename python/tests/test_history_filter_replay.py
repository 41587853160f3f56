"""history_filter_replay.py's filters: its Keys cubic at a = -0.5 is the Catmull-Rom that staging
specifies, and its Lanczos-3 (sinc form) is the output pass's polynomial Lanczos-3 up to the fit."""
import os
import sys
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "scripts", "research"))
import history_filter_replay as hfr  # noqa: E402
from swinup import sampling as sm  # noqa: E402


def case(seed):
    g = torch.Generator().manual_seed(seed)
    img = torch.rand(2, 20, 30, 3, generator=g) * 4
    px = torch.rand(2, 17, 23, generator=g) * 40 - 5  # off-image positions too (clamped taps)
    py = torch.rand(2, 17, 23, generator=g) * 30 - 5
    return img, px, py


class HistoryFilterReplay(unittest.TestCase):
    def test_keys_half_is_the_specified_catmull_rom(self):
        img, px, py = case(0)
        replayed = hfr.filtered_sample(img, px, py, -0.5, 2, True)
        specified = sm.catmull_rom_sample(img, px, py, exact=True)
        self.assertLess(float((replayed - specified).abs().max()), 1e-5)

    def test_sinc_lanczos3_is_the_output_pass_filter(self):
        img, px, py = case(1)
        replayed = hfr.filtered_sample(img, px, py, 0.0, 3, True)
        specified = sm.lanczos3_sample(img, px, py, exact=True)
        # The polynomial weights are within 1.9e-7 of the sinc form; taps are at most 4.
        self.assertLess(float((replayed - specified).abs().max()), 2e-5)
        # A different filter is far from it: the comparison can fail.
        self.assertGreater(float((hfr.filtered_sample(img, px, py, -0.5, 2, True) - specified).abs().max()), 1e-2)

    def test_every_mode_is_known_to_the_replay(self):
        # A mode is the specified pass (None), one replay() handles by name, or a filter's
        # (Keys a, radius, clamp); still+X modes are parsed, not listed.
        named = ("catmull-rom", "bfecc", "linear-blend")
        for mode, spec in hfr.MODES.items():
            self.assertTrue(spec is None or spec in named or (isinstance(spec, tuple) and len(spec) == 3), mode)
        with open(hfr.__file__) as f:
            source = f.read()
        for name in named:
            self.assertIn(f'MODES[mode] == "{name}"', source)


if __name__ == "__main__":
    unittest.main()
