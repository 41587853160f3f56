"""The casts that training uses for rounding equal the bit versions (quant.py): the float8 cast for
e4m3, the float16 round trip for f16 (its bit version is what torch.compile runs)."""
import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from swinup import quant  # noqa: E402


class CastRounding(unittest.TestCase):
    @unittest.skipUnless(hasattr(torch, "float8_e4m3fn"),
                         "needs a torch with float8 dtypes (2.1 on); this one has none")
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

    def test_round_f16_bits_equal_the_cast_on_every_case(self):
        x = quant.rounding_probe(torch.device("cpu"))
        edges = torch.tensor([65504.0, 65519.996, 65520.0, 65536.0, 2.0 ** -14, 2.0 ** -25,
                              3 * 2.0 ** -26, 2.0 ** -24 * 1.5, 2.0 ** -24 * 2.5, -0.0, 1e-45])
        x = torch.cat([x, edges, -edges, torch.tensor([float("nan")])])
        cast = x.to(torch.float16).to(torch.float32)
        bits = quant.round_f16_bits(x)
        nan = torch.isnan(cast)
        self.assertTrue(torch.equal(nan, torch.isnan(bits)))
        self.assertTrue(torch.equal(cast[~nan].view(torch.int32), bits[~nan].view(torch.int32)))
        self.assertGreater(int((cast[~nan] != x[~nan]).sum()), 500000)  # the probe does round
        self.assertEqual(float(quant.round_f16_bits(torch.tensor([65520.0]))), float("inf"))
        self.assertEqual(float(quant.round_f16_bits(torch.tensor([65519.0]))), 65504.0)


if __name__ == "__main__":
    unittest.main()
