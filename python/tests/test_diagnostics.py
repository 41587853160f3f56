"""The arithmetic of five diagnostics: motion_choice_check.py's per-render-pixel sums (the display
pixels that share a render pixel's head), history_age_replay.py's running-mean bound,
oracle_head_fit.py's fits and their explained share, two of history_filter_replay.py's modes
(back-and-forth error compensation, the linear-colour blend), and ideal_accumulation.py's moves
and splats."""
import math
import os
import sys
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "scripts", "research"))
import history_age_replay  # noqa: E402
import ideal_accumulation  # noqa: E402
import numpy as np  # noqa: E402
import history_filter_replay  # noqa: E402
import motion_choice_check  # noqa: E402
import oracle_head_fit  # noqa: E402
import swinup.exact_math as xm  # noqa: E402
import swinup.output_pass as op  # noqa: E402
from swinup.sampling import lanczos3_sample  # noqa: E402


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


class HistoryReplayModes(unittest.TestCase):
    def _positions(self, h, w, dx, dy):
        ox = (torch.arange(w, dtype=torch.float32) + 0.5).view(1, 1, w).expand(1, h, w)
        oy = (torch.arange(h, dtype=torch.float32) + 0.5).view(1, h, 1).expand(1, h, w)
        return ox + dx, oy + dy

    def test_bfecc_is_the_plain_sample_at_whole_pixel_moves(self):
        # Lanczos-3 reads a whole-pixel position exactly, so the move back restores the image
        # (away from the edges, where the taps clamp) and there is nothing to compensate.
        torch.manual_seed(3)
        img = torch.rand(1, 16, 20, 3)
        px, py = self._positions(16, 20, 2.0, -1.0)
        plain = lanczos3_sample(img, px, py, False)
        bfecc = history_filter_replay.bfecc_sample(img, px, py, False)
        inner = (slice(None), slice(4, 12), slice(4, 16))
        self.assertTrue(torch.allclose(bfecc[inner], plain[inner], atol=1e-6))

    def test_bfecc_keeps_more_contrast_at_half_pixel_moves(self):
        # A horizontal sine of period 3 pixels, moved by half a pixel: each Lanczos-3 move damps
        # it; the compensated sample keeps more of its amplitude.
        x = torch.arange(24, dtype=torch.float32)
        img = (0.5 + 0.3 * torch.sin(2 * math.pi * x / 3.0)).view(1, 1, 24, 1).expand(1, 12, 24, 3).contiguous()
        px, py = self._positions(12, 24, 0.5, 0.0)
        inner = (0, slice(4, 8), slice(6, 18), 0)
        amplitude = lambda a: float(a[inner].max() - a[inner].min()) / 2  # noqa: E731
        plain = amplitude(lanczos3_sample(img, px, py, False))
        bfecc = amplitude(history_filter_replay.bfecc_sample(img, px, py, False))
        self.assertLess(plain, 0.3 * 0.95)
        self.assertGreater(bfecc, plain * 1.05)

    def test_linear_colour_makes_t_the_identity_and_keeps_the_rest(self):
        lin = history_filter_replay._LinearColour()
        x = torch.tensor([0.0, 0.25, 1.0, 3.0])
        self.assertTrue(torch.equal(lin.fn("tonemap_t", x, True), x))
        self.assertTrue(torch.equal(lin.fn("tonemap_t_inverse", x, False), x))
        self.assertTrue(torch.equal(lin.fn("sigmoid", x, True), xm.fn("sigmoid", x, True)))
        self.assertIs(lin.LOG2E, xm.LOG2E)

    def test_still_shift_moves_only_the_history_logit_of_still_pixels(self):
        torch.manual_seed(5)
        head = torch.randn(1, 4, 5, 16)
        motion = torch.zeros(1, 4, 5, 2)
        motion[0, 1, 2, 0] = 0.25  # one pixel moves in x, one in y; the other 18 are still
        motion[0, 3, 0, 1] = -1.0
        seen = {}
        real = history_filter_replay.op.output_pass
        history_filter_replay.op.output_pass = lambda h, tc, mv, *a, **k: seen.setdefault("head", h)
        try:
            shift = history_filter_replay.StillShift(0.75)
            shift(head, None, motion)
        finally:
            history_filter_replay.op.output_pass = real
        got = seen["head"]
        still = (motion == 0).all(-1)
        logit = history_filter_replay.op.ALPHA_LOGIT
        self.assertTrue(torch.equal(got[..., logit][still], head[..., logit][still] + 0.75))
        self.assertTrue(torch.equal(got[..., logit][~still], head[..., logit][~still]))
        others = [c for c in range(16) if c != logit]
        self.assertTrue(torch.equal(got[..., others], head[..., others]))
        self.assertEqual((shift.still, shift.pixels), (18, 20))
        self.assertEqual(history_filter_replay.still_shift_of("still+1.5"), 1.5)
        self.assertIsNone(history_filter_replay.still_shift_of("bfecc"))


class RunningMeanBound(unittest.TestCase):
    def test_logit_is_the_running_mean_weight(self):
        for k in (1, 2, 7, 15):
            for c in (0.5, 1.0, 3.0):
                logit = history_age_replay.running_mean_logit(k, c)
                self.assertAlmostEqual(1.0 / (1.0 + math.exp(-logit)), k / (k + c), places=12)


if __name__ == "__main__":
    unittest.main()


class OracleHeadFit(unittest.TestCase):
    def setUp(self):
        g = torch.Generator().manual_seed(4)
        self.x = torch.randn(20000, 48, generator=g) * torch.linspace(0.1, 5.0, 48) + 3.0
        self.w = torch.randn(48, 4, generator=g)

    def test_the_linear_fit_recovers_a_linear_target(self):
        y = self.x @ self.w + torch.tensor([1.0, -2.0, 0.5, 0.0])
        linear, _ = oracle_head_fit.fit(self.x, y, hidden=8, steps=1)
        with torch.no_grad():
            self.assertLess(float((linear(self.x) - y).abs().max()), 1e-2)

    def test_the_linear_fit_keeps_small_directions(self):
        # A target that lives in the difference of two nearly equal features: a rank-truncating
        # solver (lstsq's default rcond) throws that direction away.
        g = torch.Generator().manual_seed(6)
        x = self.x.clone()
        x[:, 1] = x[:, 0] + 1e-3 * torch.randn(x.shape[0], generator=g)
        y = ((x[:, 1] - x[:, 0]) * 1e3)[:, None].repeat(1, 4)
        linear, _ = oracle_head_fit.fit(x, y, hidden=8, steps=1)
        with torch.no_grad():
            self.assertLess(float((linear(x) - y).square().mean() / y.square().mean()), 1e-3)

    def test_the_mlp_fits_what_the_linear_fit_cannot(self):
        y = torch.relu(self.x[:, :4] - 3.0) * 2.0  # a kink no linear function has
        linear, mlp = oracle_head_fit.fit(self.x, y, hidden=32, steps=400, batch=4096)
        with torch.no_grad():
            linear_error = float((linear(self.x) - y).square().mean())
            mlp_error = float((mlp(self.x) - y).square().mean())
        self.assertLess(mlp_error, 0.25 * linear_error)

    def test_explained_is_one_at_the_oracle_and_zero_at_the_network(self):
        network_y = torch.randn(1000, 4, generator=torch.Generator().manual_seed(1))
        y = network_y + 0.3
        self.assertEqual(oracle_head_fit.explained(y, y, network_y), [1.0] * 4)
        self.assertEqual(oracle_head_fit.explained(network_y, y, network_y), [0.0] * 4)
        self.assertEqual(oracle_head_fit.explained(network_y - 0.3, y, network_y), [-3.0] * 4)



class IdealAccumulation(unittest.TestCase):
    def test_a_pan_moves_every_sample_by_minus_the_scaled_motion(self):
        motion = np.zeros((6, 8, 2))
        motion[..., 0], motion[..., 1] = -1.5, 0.25  # current -> previous, render pixels
        prev = np.array([[3.3, 2.1], [10.0, 7.9], [0.2, 0.4]])
        moved, consistent = ideal_accumulation.warp_to_current(prev, motion, scale=2.0)
        np.testing.assert_allclose(moved, prev - 2.0 * np.array([-1.5, 0.25]))
        self.assertTrue(consistent.all())

    def test_a_move_that_does_not_close_is_dropped(self):
        # The left half (render x < 4) moves right by 2 render pixels, the right half stays. A
        # sample of the left half near the seam would land on the right half, whose vectors say it
        # came from elsewhere (its content is hidden there): dropped. One further left lands in
        # the left half and is kept, moved by 4 display pixels.
        motion = np.zeros((4, 8, 2))
        motion[:, :4, 0] = -2.0
        moved, consistent = ideal_accumulation.warp_to_current(np.array([[5.0, 3.0], [2.0, 3.0]]), motion, scale=2.0)
        self.assertEqual(consistent.tolist(), [False, True])
        np.testing.assert_allclose(moved[1], [6.0, 3.0])

    def test_the_box_is_the_mean_of_the_samples_inside_each_pixel(self):
        pos = np.array([[0.2, 0.3], [0.9, 0.1], [1.5, 0.5]])
        col = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.5]])
        est, count = ideal_accumulation.splat_estimate(pos, col, np.array([1.0, 3.0, 1.0]), 3, 1, sigma=0.0)
        np.testing.assert_allclose(est[0, 0], [0.25, 0.75, 0.0])  # weights 1 and 3
        np.testing.assert_allclose(est[0, 1], [0.5, 0.5, 0.5])
        self.assertTrue(np.isnan(est[0, 2]).all())  # no sample: the caller falls back
        self.assertEqual(count[0].tolist(), [2, 1, 0])

    def test_a_gaussian_splat_keeps_a_flat_colour_and_reaches_neighbours(self):
        rng = np.random.default_rng(3)
        pos = rng.uniform(0.0, 6.0, size=(40, 2))
        col = np.tile([0.2, 0.4, 0.6], (40, 1))
        est, _ = ideal_accumulation.splat_estimate(pos, col, np.ones(40), 6, 6, sigma=0.7)
        np.testing.assert_allclose(est, np.broadcast_to([0.2, 0.4, 0.6], (6, 6, 3)))

    def test_ldr_encoding_is_srgb_of_the_clamped_value(self):
        x = np.array([-0.5, 0.0, 0.002, 0.5, 1.0, 3.0])
        y = ideal_accumulation.display_encode(x, hdr=False, exposure=1.0)
        np.testing.assert_allclose(y[[0, 1, 4, 5]], [0.0, 0.0, 1.0, 1.0])
        self.assertAlmostEqual(float(y[2]), 12.92 * 0.002)
        self.assertAlmostEqual(float(y[3]), 1.055 * 0.5 ** (1 / 2.4) - 0.055)
