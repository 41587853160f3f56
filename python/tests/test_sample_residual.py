"""The sample residual experiment (swinup/research/sample_residual.py): zero rows are the output
pass without it, a uniform correction moves the no-history estimate by exactly that correction
(the kernel's weights are normalised), corrected samples never go below 0, gradients reach its
gain and the head rows it reads, and training keeps those rows only when it is attached."""
import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
from swinup import output_pass as op  # noqa: E402
from swinup.research.sample_residual import ROWS, SampleResidual  # noqa: E402
from test_display_refine import frame  # noqa: E402
from reserved_head_rows import head_weight_kept_with  # noqa: E402


class SampleResidualTest(unittest.TestCase):
    def test_zero_rows_are_the_output_pass(self):
        head, tc, motion, jitter, history, dw, dh, sx, sy = frame(3)
        head[..., ROWS[0]:ROWS[1]] = 0.0
        for exact in (False, True):
            plain = op.output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, True, exact)
            with_it = op.output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, True, exact,
                                     residual=SampleResidual())
            for a, b in zip(plain, with_it):
                self.assertTrue(torch.equal(a, b))

    def test_uniform_correction_moves_the_estimate_by_itself(self):
        head, tc, motion, jitter, _, dw, dh, sx, sy = frame(4)
        plain = op.output_pass(head, tc, motion, jitter, None, dw, dh, sx, sy, False, False)[0]
        corrected_head = head.clone()
        corrected_head[..., ROWS[0]:ROWS[1]] = torch.tensor([0.05, -0.0, 0.1])
        moved = op.output_pass(corrected_head, tc, motion, jitter, None, dw, dh, sx, sy, False,
                               False, residual=SampleResidual())[0]
        shift = torch.log2(1.0 + moved) - torch.log2(1.0 + plain)  # t-space
        want = torch.tensor([0.05, 0.0, 0.1]).expand_as(shift)
        self.assertTrue(torch.allclose(shift, want, atol=1e-5), float((shift - want).abs().max()))

    def test_corrected_samples_stay_non_negative(self):
        head, tc, *_ = frame(5)
        head[..., ROWS[0]:ROWS[1]] = -10.0
        self.assertTrue(bool((SampleResidual()(head, tc) == 0.0).all()))

    def test_gradients_reach_the_gain_and_the_rows_only(self):
        head, tc, motion, jitter, history, dw, dh, sx, sy = frame(6)
        head[..., ROWS[0]:ROWS[1]] = 0.01
        head = head.clone().requires_grad_(True)
        residual = SampleResidual()
        out = op.output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, True, False,
                             residual=residual)[0]
        out.sum().backward()
        self.assertNotEqual(float(residual.gain.grad), 0.0)
        self.assertGreater(float(head.grad[..., ROWS[0]:ROWS[1]].abs().sum()), 0.0)
        self.assertEqual(float(head.grad[..., 8:ROWS[0]].abs().sum()), 0.0)

    def test_training_keeps_the_read_rows_only_when_attached(self):
        w = head_weight_kept_with(self, lambda model: setattr(model, "sample_residual", SampleResidual()))
        self.assertTrue(bool((w[ROWS[0]:ROWS[1]] == 1.0).all()))
        self.assertTrue(bool((w[8:ROWS[0]] == 0.0).all()))


if __name__ == "__main__":
    unittest.main()
