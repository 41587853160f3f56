"""Training's batched tap sums (fast mode) equal the C++-ordered ones up to float summation order."""
import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from swinup import output_pass as op  # noqa: E402
from swinup import sampling as sm  # noqa: E402

F32 = torch.float32


class BatchedTaps(unittest.TestCase):
    def test_catmull_rom_batched_equals_ordered(self):
        g = torch.Generator().manual_seed(0)
        img = torch.rand(2, 20, 30, 3, generator=g) * 4
        px = torch.rand(2, 17, 23, generator=g) * 40 - 5  # off-image positions too (clamped taps)
        py = torch.rand(2, 17, 23, generator=g) * 30 - 5
        ordered = sm.catmull_rom_sample(img, px, py, exact=True)
        batched = sm.catmull_rom_sample(img, px, py, exact=False)
        self.assertLess(float((ordered - batched).abs().max()), 1e-5)

    def test_lanczos3_batched_equals_ordered(self):
        g = torch.Generator().manual_seed(2)
        img = torch.rand(2, 20, 30, 3, generator=g) * 4
        px = torch.rand(2, 17, 23, generator=g) * 40 - 5
        py = torch.rand(2, 17, 23, generator=g) * 30 - 5
        px[0, 0, :4] = torch.tensor([3.5, 0.5, 7.5000005, 12.4999995])  # fractions 0 and near 0, 1
        ordered = sm.lanczos3_sample(img, px, py, exact=True)
        batched = sm.lanczos3_sample(img, px, py, exact=False)
        self.assertLess(float((ordered - batched).abs().max()), 1e-5)
        self.assertTrue(bool(torch.isfinite(ordered).all()))
        # A history with gradient: the sample is differentiable with respect to the image.
        img.requires_grad_(True)
        sm.lanczos3_sample(img, px, py, exact=False).sum().backward()
        self.assertGreater(float(img.grad.abs().sum()), 0.0)

    def test_output_pass_fast_taps_equal_ordered_sums(self):
        g = torch.Generator().manual_seed(1)
        b, h, w, dw, dh = 2, 12, 16, 36, 27
        head = torch.randn(b, h, w, 16, generator=g)
        tc = torch.rand(b, h, w, 3, generator=g)
        motion = torch.zeros(b, h, w, 2)
        jitter = torch.rand(b, 2, generator=g) - 0.5
        out, _, _ = op.output_pass(head, tc, motion, jitter, None, dw, dh, dw / w, dh / h, False, False)
        # The same pass with the ordered 3x3 sums and fast-mode (smooth) weights.
        original = op.kernel_weight
        op.kernel_weight = lambda *a: original(*a[:-1], False)
        try:
            ox = torch.arange(dw, dtype=F32).view(1, 1, dw).expand(b, dh, dw)
            oy = torch.arange(dh, dtype=F32).view(1, dh, 1).expand(b, dh, dw)
            rx, ry = (ox + 0.5) / (dw / w) - 0.5, (oy + 0.5) / (dh / h) - 0.5
            nx = torch.clamp(torch.floor(rx + 0.5), 0, w - 1).long()
            ny = torch.clamp(torch.floor(ry + 0.5), 0, h - 1).long()
            hn = sm.gather(head, nx, ny)
            s_major, s_minor = op.kernel_sigma(hn[..., 4], False), op.kernel_sigma(hn[..., 5], False)
            sin_t, cos_t = op.kernel_sincos(hn[..., 6], False)
            num, den = op._kernel_sums_in_order(tc, nx, ny, jitter[:, 0].view(b, 1, 1),
                                                jitter[:, 1].view(b, 1, 1), rx + 0.5, ry + 0.5,
                                                sin_t, cos_t, s_major, s_minor, h, w)
        finally:
            op.kernel_weight = original
        current = num / den[..., None]
        expected = op.xm.fn("tonemap_t_inverse", current, False)
        self.assertLess(float(((out - expected).abs() / (expected.abs() + 1e-6)).max()), 1e-5)


if __name__ == "__main__":
    unittest.main()
