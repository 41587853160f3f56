"""The display refinement experiment (swinup/research/display_refine.py): it starts as exactly the
output pass without it, it acts only where there is history, and a checkpoint that holds it
cannot reach a weights file, a checkpoint mean or a model without it."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from swinup import export  # noqa: E402
from swinup.average_checkpoints import average_checkpoints  # noqa: E402
from swinup import output_pass as op  # noqa: E402
from swinup.research.display_refine import DisplayRefine  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.spec import ModelConfig  # noqa: E402
from swinup.training.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402
from swinup.training.reserved_rows import keep_reserved_zero  # noqa: E402


def frame(seed):
    g = torch.Generator().manual_seed(seed)
    b, h, w, dw, dh = 1, 8, 12, 24, 16
    head = torch.randn(b, h, w, 16, generator=g)
    tc = torch.rand(b, h, w, 3, generator=g)
    motion = torch.rand(b, h, w, 2, generator=g) - 0.5
    jitter = torch.rand(b, 2, generator=g) - 0.5
    history = torch.rand(b, dh, dw, 3, generator=g) * 2
    return head, tc, motion, jitter, history, dw, dh, dw / w, dh / h


class DisplayRefineTest(unittest.TestCase):
    def test_untrained_refinement_is_the_output_pass(self):
        head, tc, motion, jitter, history, dw, dh, sx, sy = frame(3)
        refine = DisplayRefine(seed=5)
        for exact in (False, True):
            plain, _, _ = op.output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, True, exact)
            refined, _, _ = op.output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, True,
                                           exact, refine=refine)
            if exact:  # the exact formulas: the same bits
                self.assertTrue(torch.equal(plain, refined))
            else:  # torch's vectorised sigmoid on a strided and on a contiguous logit: an ulp apart
                self.assertTrue(torch.allclose(plain, refined, rtol=1e-6, atol=0.0))

    def test_refinement_moves_only_pixels_with_history(self):
        head, tc, motion, jitter, history, dw, dh, sx, sy = frame(4)
        refine = DisplayRefine()
        with torch.no_grad():
            refine.b2.fill_(20.0)  # alpha -> 1: every pixel with history keeps it
        out, _, _ = op.output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, True, False,
                                   refine=refine)
        plain, _, _ = op.output_pass(head, tc, motion, jitter, history, dw, dh, sx, sy, True, False)
        self.assertGreater(float((out - plain).abs().max()), 1e-3)
        no_history, _, _ = op.output_pass(head, tc, motion, jitter, None, dw, dh, sx, sy, False, False,
                                          refine=refine)
        plain_none, _, _ = op.output_pass(head, tc, motion, jitter, None, dw, dh, sx, sy, False, False)
        self.assertTrue(torch.equal(no_history, plain_none))

    def test_refinement_checkpoints_stay_out_of_weights_files(self):
        model = SwinUp(ModelConfig.make("lite"))
        model.init_seeded(1)
        model.display_refine = DisplayRefine()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "lite.pt")
            save_checkpoint(path, model, 7, [])
            plain = SwinUp(ModelConfig.make("lite"))
            with self.assertRaisesRegex(ValueError, "display refinement"):
                load_checkpoint(path, plain)
            restored = SwinUp(ModelConfig.make("lite"))
            restored.display_refine = DisplayRefine(seed=9)
            self.assertEqual(load_checkpoint(path, restored)[0], 7)
            self.assertTrue(torch.equal(restored.display_refine.w1, model.display_refine.w1))
            out = os.path.join(d, "lite.safetensors")
            with contextlib.redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
                export.main(["--variant", "lite", "--checkpoint", path, "--out", out])
            self.assertIn("display refinement", err.getvalue())
            self.assertFalse(os.path.exists(out))
            with self.assertRaisesRegex(ValueError, "display refinement"):
                average_checkpoints([path, path])

    def test_training_keeps_the_read_head_rows(self):
        model = SwinUp(ModelConfig.make("lite"))
        with torch.no_grad():
            model.p("head.linear.weight").fill_(1.0)
        model.display_refine = DisplayRefine()
        keep_reserved_zero(model)
        w = model.p("head.linear.weight")
        self.assertTrue(bool((w[8:12] == 1.0).all()) and bool((w[12:] == 0.0).all()))


if __name__ == "__main__":
    unittest.main()
