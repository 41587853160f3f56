"""The float8 cast that training uses for e4m3 rounding equals the bit version (quant.py)."""
import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from swinup import quant  # noqa: E402


class CastRounding(unittest.TestCase):
    @unittest.skipUnless(hasattr(torch, "float8_e4m3fn"), "skipped: this torch has no float8 dtype")
    def test_cast_equals_bits(self):
        self.assertTrue(quant._cast_agrees(torch.device("cpu")))

    def test_round_e4m3_matches_bits_on_saturation_and_nan(self):
        x = torch.tensor([1e30, -1e30, 448.0, 464.0, 465.0, float("nan"), 2.0 ** -10, -0.0])
        a, b = quant.round_e4m3(x), quant.round_e4m3_bits(x)
        self.assertTrue(torch.equal(torch.isnan(a), torch.isnan(b)))
        keep = ~torch.isnan(a)
        self.assertTrue(torch.equal(a[keep].view(torch.int32), b[keep].view(torch.int32)))
        self.assertEqual(float(a[0]), 448.0)
        self.assertEqual(float(a[4]), 448.0)  # 465 rounds to 480, saturates to 448


if __name__ == "__main__":
    unittest.main()
