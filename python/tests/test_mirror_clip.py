"""train.py --augment: a mirrored clip (data.mirror_clip) is the same scene seen in a mirror, so
staging and the output pass, given heads that have no orientation (an isotropic kernel, one history
weight everywhere), must produce the mirrored output. This holds only if motion's and the jitter's
components are mirrored with the images: without the jitter's sign the outputs differ on 57-85%
of the pixels (by up to 0.3), without motion's on 62-73%; measured when written."""
import os
import random
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from swinup.data import ProceduralScenes, mirror_clip, random_mirror  # noqa: E402
from swinup.training.recurrence import unroll  # noqa: E402


def heads_without_orientation(k, st):
    h = torch.zeros_like(st.slots)
    h[..., 0] = 0.2    # a recurrent feature, constant
    h[..., 4] = -0.3   # log2 sigma major ...
    h[..., 5] = -0.3   # ... = minor: an isotropic kernel
    h[..., 7] = 0.4    # the history weight's logit
    return h


def mirrored(images, flip_x, flip_y, transpose):
    """[B, T, H, W, C] images mirrored as mirror_clip mirrors a clip's."""
    dims = ([3] if flip_x else []) + ([2] if flip_y else [])
    out = torch.flip(images, dims) if dims else images
    return out.transpose(2, 3) if transpose else out


class MirrorClip(unittest.TestCase):
    def setUp(self):
        self.clip = ProceduralScenes("cpu", scale_min=2.0, scale_max=2.0, seed=3).batch(2, 4, 32, hdr=False)

    def test_the_pipeline_commutes_with_every_mirror(self):
        out = unroll(None, self.clip, heads=heads_without_orientation)[0]
        for flip_x in (False, True):
            for flip_y in (False, True):
                for transpose in (False, True):
                    m = unroll(None, mirror_clip(self.clip, flip_x, flip_y, transpose), heads=heads_without_orientation)[0]
                    d = (m - mirrored(out, flip_x, flip_y, transpose)).abs()
                    what = f"flip_x={flip_x} flip_y={flip_y} transpose={transpose}"
                    # Positions are computed from mirrored coordinates, so float rounding differs a little.
                    self.assertLess(float(d.max()), 1e-3, what)
                    self.assertLess(float(d.mean()), 1e-6, what)

    def test_mirroring_twice_is_the_identity(self):
        for name in ("color", "depth", "motion", "jitter", "gt"):
            twice = mirror_clip(mirror_clip(self.clip, True, True, False), True, True, False)
            self.assertTrue(torch.equal(twice[name], self.clip[name]), name)

    def test_transposing_needs_square_crops(self):
        wide = dict(self.clip, color=self.clip["color"][:, :, :16])
        with self.assertRaisesRegex(ValueError, "square"):
            mirror_clip(wide, False, False, True)
        # random_mirror leaves such crops untransposed instead.
        for seed in range(8):
            random_mirror(wide, random.Random(seed))


if __name__ == "__main__":
    unittest.main()
