"""The arithmetic of two replay diagnostics: motion_choice_check.py's per-render-pixel sums (the
display pixels that share a render pixel's head) and history_age_replay.py's running-mean bound."""
import math
import os
import sys
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import history_age_replay  # noqa: E402
import motion_choice_check  # noqa: E402
import swinup.output_pass as op  # noqa: E402


class RenderPixelSums(unittest.TestCase):
    def test_sums_the_display_pixels_of_each_render_pixel_per_batch_entry(self):
        b, h, w, scale = 2, 3, 5, 2.0
        _, _, _, _, nx, ny = op.display_grid(b, int(w * scale), int(h * scale), w, h, scale, scale, "cpu")
        e = torch.rand(b, int(h * scale), int(w * scale), dtype=torch.float64)
        sums = motion_choice_check.render_pixel_sums(e, nx, ny, w, h).view(b, h, w)
        for i in range(b):
            for y in range(h):
                for x in range(w):
                    mask = (nx[i] == x) & (ny[i] == y)
                    self.assertTrue(mask.any())
                    self.assertAlmostEqual(float(sums[i, y, x]), float(e[i][mask].sum()), places=12)
        self.assertAlmostEqual(float(sums.sum()), float(e.sum()), places=10)


class RunningMeanBound(unittest.TestCase):
    def test_logit_is_the_running_mean_weight(self):
        for k in (1, 2, 7, 15):
            for c in (0.5, 1.0, 3.0):
                logit = history_age_replay.running_mean_logit(k, c)
                self.assertAlmostEqual(1.0 / (1.0 + math.exp(-logit)), k / (k + c), places=12)


if __name__ == "__main__":
    unittest.main()
