"""fit_first_frame.py's guarantee: it moves only the slot-7 (no history) columns, and keeps every
row's power-of-two scale, so every other e4m3 code of the network stays bit for bit."""
import importlib.util
import os
import sys
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from swinup.quant import pow2_scale_for, quantize_weight_ste  # noqa: E402

_spec = importlib.util.spec_from_file_location("fit_first_frame", os.path.join(HERE, "..", "scripts", "research", "fit_first_frame.py"))
fit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fit)


class FirstFrameFit(unittest.TestCase):
    def test_the_columns_read_slot_7(self):
        self.assertEqual(fit.no_history_columns("lite", False), {"skip0__weight": [7]})
        self.assertEqual(fit.no_history_columns("lite", True)["embed__weight"], [7, 23, 39, 55])
        self.assertEqual(fit.no_history_columns("full", False), {"embed0__weight": [7]})

    def test_only_movable_entries_move_and_scales_stay(self):
        g = torch.Generator().manual_seed(3)
        start = torch.randn(32, 16, generator=g) * 0.3
        start[5, 7] = 3.0  # row 5's largest entry is in column 7: it sets that row's scale
        movable = fit.movable_entries(start, [7])
        self.assertEqual(movable.sum(), 31)  # column 7 of every row but 5
        self.assertEqual(movable[5, 7], 0)
        # An optimiser step that moves everything, some entries far past what e4m3 can hold.
        moved = start + torch.randn(32, 16, generator=g) * 50.0
        kept = fit.keep_within_scales(moved, start, movable)
        self.assertTrue(torch.equal(kept * (1 - movable), start * (1 - movable)))
        self.assertTrue(torch.equal(pow2_scale_for(kept), pow2_scale_for(start)))
        self.assertFalse(torch.equal(kept[:, 7], start[:, 7]))
        codes_start, _ = quantize_weight_ste(start)
        codes_kept, _ = quantize_weight_ste(kept)
        changed = (codes_start != codes_kept).nonzero()
        self.assertTrue(set(changed[:, 1].tolist()) <= {7})


if __name__ == "__main__":
    unittest.main()
