"""Training on the pixels moving objects uncover (docs/journal/2026-12-07-ghost-trails-cause.md):
a sequence's motion masks (motion_masks.NNNN.exr, display resolution) reach the clips as the
"disoccluded" plane, cropped with the ground truth and mirrored with it (zero for a sequence without
them), and --disocclusion-weight adds the t-space L1 over those pixels, a mean over them, to the
spatial term; with weight 0 the terms are those of before, bit for bit."""
import contextlib
import io
import os
import random
import sys
import tempfile
import unittest

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from sequence_writer import write_sequence, writer_or_skip_reason  # noqa: E402
from swinup.data import SequenceFolder, batch_from_folders, mirror_clip  # noqa: E402
from swinup.training.losses import ClipLoss, check_loss_options, t_space  # noqa: E402
from swinup.training.options import parse, parser  # noqa: E402

W, H, N = 32, 16, 4  # render size (display 2x) and frames


def arrays(seed):
    """Random frames whose disocclusion plane is the truth's red channel thresholded (so that
    wherever a clip's plane went, it must match its truth), the moving-object plane its green."""
    rng = np.random.default_rng(seed)
    color = rng.integers(0, 65, (N, H, W, 3)).astype(np.float32) / 64
    depth = rng.uniform(0.1, 0.9, (N, H, W)).astype(np.float32)
    motion = np.zeros((N, H, W, 2), np.float32)
    gt = rng.integers(0, 65, (N, 2 * H, 2 * W, 3)).astype(np.float32) / 64
    motion_masks = np.stack([(gt[..., 0] >= 0.5), (gt[..., 1] >= 0.5)], -1).astype(np.float32)
    return color, depth, motion, gt, motion_masks


class DisoccludedPlane(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        _, why = writer_or_skip_reason()
        if why:
            raise unittest.SkipTest(why)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.with_masks = os.path.join(cls.tmp.name, "with")
        color, depth, motion, gt, motion_masks = arrays(1)
        write_sequence(cls.with_masks, color, depth, motion, gt, motion_masks=motion_masks)
        cls.without = os.path.join(cls.tmp.name, "without")
        write_sequence(cls.without, *arrays(2)[:4])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assert_plane_follows_truth(self, clip, what=""):
        self.assertEqual(tuple(clip["disoccluded"].shape), tuple(clip["gt"].shape[:-1]), what)
        self.assertTrue(torch.equal(clip["disoccluded"], (clip["gt"][..., 0] >= 0.5).float()), what)

    def test_a_folder_reads_the_disocclusion_plane(self):
        seq = SequenceFolder(self.with_masks)
        self.assertTrue(seq.has_motion_masks)
        np.testing.assert_array_equal(seq.disoccluded.numpy(), arrays(1)[4][..., 0].astype(np.uint8))

    def test_clips_crop_and_mirror_it_with_the_truth(self):
        seq = SequenceFolder(self.with_masks)
        rng = random.Random(3)
        for _ in range(4):
            clip = batch_from_folders([seq], 2, 3, 8, rng, "cpu")
            self.assert_plane_follows_truth(clip, "crop")
            for flips in ((True, False, False), (False, True, False), (True, True, True)):
                self.assert_plane_follows_truth(mirror_clip(clip, *flips), f"mirror {flips}")

    def test_a_sequence_without_motion_masks_gives_zeros(self):
        seq = SequenceFolder(self.without)
        self.assertFalse(seq.has_motion_masks)
        clip = batch_from_folders([seq], 2, 3, 8, random.Random(1), "cpu")
        self.assertEqual(float(clip["disoccluded"].abs().sum()), 0.0)
        self.assertEqual(tuple(clip["disoccluded"].shape), tuple(clip["gt"].shape[:-1]))

    def test_a_bad_value_is_named(self):
        bad = os.path.join(self.tmp.name, "bad")
        color, depth, motion, gt, motion_masks = arrays(3)
        motion_masks[2, 5, 7, 0] = 1.5
        write_sequence(bad, color, depth, motion, gt, motion_masks=motion_masks)
        with self.assertRaisesRegex(ValueError, r"motion_masks\.0002\.exr.*disocclusion.*\(7, 5\)"):
            SequenceFolder(bad)


class DisocclusionTerm(unittest.TestCase):
    def frames(self):
        g = torch.Generator().manual_seed(7)
        out = torch.rand(2, 3, 8, 6, 3, generator=g)  # [B, T, Hd, Wd, 3]
        gt = torch.rand(2, 3, 8, 6, 3, generator=g)
        disoccluded = (torch.rand(2, 3, 8, 6, generator=g) < 0.2).float()
        return out, gt, disoccluded

    def terms(self, weight, disoccluded):
        out, gt, _ = self.frames()
        loss = ClipLoss(gt, temporal_alignment="pixel", disocclusion_weight=weight)
        for k in range(3):
            loss.add_frame(out[:, k], gt[:, k], False, 1.0, False, None, None,
                           None if disoccluded is None else disoccluded[:, k])
        return loss.terms(3)

    def test_weight_zero_leaves_the_terms_bit_for_bit(self):
        _, _, disoccluded = self.frames()
        before = self.terms(0.0, None)
        after = self.terms(0.0, disoccluded)
        self.assertTrue(torch.equal(before[0], after[0]))
        self.assertTrue(torch.equal(before[1], after[1]))

    def test_the_term_is_the_mean_error_over_the_uncovered_pixels(self):
        out, gt, disoccluded = self.frames()
        plain = self.terms(0.0, None)[0]
        weighted = self.terms(2.5, disoccluded)[0]
        per_frame = []
        for k in range(3):
            e = (t_space(out[:, k]) - t_space(gt[:, k])).abs()
            m = disoccluded[:, k].bool()
            per_frame.append(e[m].mean())  # over the uncovered pixels and their 3 channels
        expected = plain + 2.5 * torch.stack(per_frame).mean()
        self.assertTrue(torch.allclose(weighted, expected, rtol=1e-6, atol=0.0), (weighted, expected))
        self.assertGreater(float(weighted), float(plain))

    def test_no_uncovered_pixel_adds_nothing(self):
        out, gt, disoccluded = self.frames()
        plain = self.terms(0.0, None)[0]
        self.assertTrue(torch.equal(self.terms(3.0, torch.zeros_like(disoccluded))[0], plain))

    def test_a_negative_weight_is_refused(self):
        with self.assertRaisesRegex(ValueError, "disocclusion_weight"):
            check_loss_options("l1", "motion", "t", 0.0, "l1", 1.0, -1.0)
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()) as err:
            parse(parser(), ["--disocclusion-weight", "-1"])
        self.assertIn("--disocclusion-weight", err.getvalue())


if __name__ == "__main__":
    unittest.main()
