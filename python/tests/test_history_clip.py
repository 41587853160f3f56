"""The learned history clip experiment (swinup/research/history_clip.py): the range is the 3x3
samples' per-channel range, a strength of 0 is the output pass without it and 1 clamps the
history into that range, gradients reach its parameters and the head row it reads, and training
keeps that row."""
import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
from swinup import output_pass as op  # noqa: E402
from swinup.research.history_clip import ROW, START_LOGIT, HistoryClip, clip_toward_range, sample_range  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.spec import ModelConfig  # noqa: E402
from swinup.training.reserved_rows import keep_reserved_zero  # noqa: E402
from test_display_refine import frame  # noqa: E402
from reserved_head_rows import head_weight_kept_with  # noqa: E402


def strength(value):
    return lambda head_at_n: torch.full(head_at_n.shape[:-1], float(value))


class HistoryClipTest(unittest.TestCase):
    def test_range_is_the_clamped_3x3_neighbourhood(self):
        tc = torch.rand(2, 5, 7, 3, generator=torch.Generator().manual_seed(1))
        lo, hi = sample_range(tc)
        for b, y, x in ((0, 0, 0), (1, 4, 6), (0, 2, 3), (1, 0, 5)):
            ys = [min(max(y + d, 0), 4) for d in (-1, 0, 1)]
            xs = [min(max(x + d, 0), 6) for d in (-1, 0, 1)]
            taps = torch.stack([tc[b, yy, xx] for yy in ys for xx in xs])
            self.assertTrue(torch.equal(lo[b, y, x], taps.min(0).values))
            self.assertTrue(torch.equal(hi[b, y, x], taps.max(0).values))

    def test_strength_zero_is_the_output_pass_and_one_clamps(self):
        head, tc, motion, jitter, history, dw, dh, sx, sy = frame(3)
        for exact in (False, True):
            plain = op.output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, True, exact)[0]
            zero = op.output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, True, exact,
                                  clip=strength(0.0))[0]
            self.assertTrue(torch.equal(plain, zero))
        # Strength 1 with the history weight at its largest (alpha -> 1, share -> 0): the output is
        # the clamped history, inside the 3x3 range of its render pixel, and differs from plain.
        held = head.clone()
        held[..., 7] = 30.0
        plain = op.output_pass(held, tc, motion, jitter, history, dw, dh, sx, sy, True, False)[0]
        full = op.output_pass(held, tc, motion, jitter, history, dw, dh, sx, sy, True, False,
                              clip=strength(1.0))[0]
        _, _, _, _, nx, ny = op.display_grid(1, dw, dh, tc.shape[2], tc.shape[1], sx, sy, "cpu")
        lo, hi = (op.gather(v, nx, ny) for v in sample_range(tc))
        t_out = torch.log2(1.0 + full)
        self.assertTrue(bool((t_out >= lo - 1e-5).all()) and bool((t_out <= hi + 1e-5).all()))
        self.assertGreater(float((full - plain).abs().max()), 1e-2)

    def test_clip_moves_by_the_strength(self):
        th = torch.tensor([[[[0.0, 0.5, 2.0]]]])
        lo = torch.full_like(th, 0.25)
        hi = torch.full_like(th, 1.0)
        moved = clip_toward_range(th, lo, hi, torch.tensor([[[0.5]]]))
        self.assertTrue(torch.allclose(moved, torch.tensor([[[[0.125, 0.5, 1.5]]]])))

    def test_gradients_reach_the_experiment_and_its_head_row(self):
        model = SwinUp(ModelConfig.make("lite"))
        model.init_seeded(2)
        model.history_clip = HistoryClip()
        keep_reserved_zero(model)
        head, tc, motion, jitter, history, dw, dh, sx, sy = frame(5)
        head = head.clone().requires_grad_(True)
        out = op.output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, True, False,
                             clip=model.history_clip)[0]
        out.sum().backward()
        self.assertNotEqual(float(model.history_clip.bias.grad), 0.0)
        self.assertGreater(float(head.grad[..., ROW].abs().sum()), 0.0)
        self.assertEqual(float(head.grad[..., ROW + 1].abs().sum()), 0.0)
        self.assertAlmostEqual(float(model.history_clip(torch.zeros(1, 16))),
                               float(torch.sigmoid(torch.tensor(START_LOGIT))), places=6)

    def test_training_keeps_the_read_head_row_only_when_attached(self):
        w = head_weight_kept_with(self, lambda model: setattr(model, "history_clip", HistoryClip()))
        self.assertTrue(bool((w[ROW] == 1.0).all()))
        self.assertTrue(bool((w[8:ROW] == 0.0).all()) and bool((w[ROW + 1:] == 0.0).all()))


if __name__ == "__main__":
    unittest.main()
