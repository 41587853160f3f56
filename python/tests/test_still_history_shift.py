"""The still-pixel history shift (weights format 4, docs/model-spec.md "Output pass"): the output
pass adds the network's still_history_shift to the history weight's logit exactly where a render
pixel's dilated motion is zero; weights files carry it from version 4 on, and export writes it."""
import json
import os
import sys
import tempfile
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from swinup import export  # noqa: E402
from swinup.output_pass import ALPHA_LOGIT, output_pass  # noqa: E402
from swinup.quant import round_f16  # noqa: E402
from swinup.spec import ModelConfig  # noqa: E402
from swinup.weights_io import WeightsError, read_weights, write_weights  # noqa: E402
from weights_file import metadata  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def frame(seed, w=10, h=6):
    """Random head outputs, t(colour), motion (every third render pixel still) and f16 history
    for a 2x output pass."""
    g = torch.Generator().manual_seed(seed)
    head = torch.randn(1, h, w, 16, generator=g) * 2
    tc = torch.rand(1, h, w, 3, generator=g) * 2
    motion = (torch.rand(1, h, w, 2, generator=g) - 0.5) * 4
    motion.view(-1, 2)[::3] = 0.0
    history = round_f16(torch.rand(1, 2 * h, 2 * w, 3, generator=g) * 3)
    return head, tc, motion, history


def run(head, tc, motion, history, shift):
    jitter = torch.tensor([[0.125, -0.25]])
    h, w = head.shape[1:3]
    out, _, _ = output_pass(head, tc, motion, jitter, history, 2 * w, 2 * h, 2.0, 2.0, True, True,
                            still_shift=shift)
    return out


class StillHistoryShift(unittest.TestCase):
    def test_the_shift_is_head_output_7_raised_at_still_pixels(self):
        head, tc, motion, history = frame(1)
        still = (motion == 0).all(dim=-1)
        shifted_head = head.clone()
        shifted_head[..., ALPHA_LOGIT] = torch.where(still, head[..., ALPHA_LOGIT] + 0.75, head[..., ALPHA_LOGIT])
        self.assertTrue(torch.equal(run(head, tc, motion, history, 0.75), run(shifted_head, tc, motion, history, 0.0)))
        # The comparison can fail: the shift changes the output, and only where n is still.
        plain = run(head, tc, motion, history, 0.0)
        shifted = run(head, tc, motion, history, 0.75)
        changed = (plain != shifted).any(dim=-1)[0]
        self.assertTrue(changed.any())
        ny = torch.clamp(torch.floor((torch.arange(12) + 0.5) / 2), 0, 5).long()
        nx = torch.clamp(torch.floor((torch.arange(20) + 0.5) / 2), 0, 9).long()
        self.assertFalse((changed & ~still[0][ny][:, nx]).any())

    def test_weights_files_carry_it_from_version_4(self):
        cfg, tensors, desc = read_weights(os.path.join(ROOT, "weights", "lite.safetensors"))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "w.safetensors")
            cfg.still_history_shift = 0.75
            write_weights(path, cfg, tensors, desc)
            self.assertEqual(read_weights(path)[0].still_history_shift, 0.75)
            meta = metadata(path)
            self.assertEqual(meta["format_version"], "5")
            self.assertEqual(json.loads(meta["config"])["still_history_shift"], 0.75)
            with self.assertRaisesRegex(ValueError, "no still-pixel history shift"):
                write_weights(path, cfg, tensors, desc, version=3)
            with open(path, "rb") as f:
                data = f.read()
            for old, new in ((b'"format_version":"5"', b'"format_version":"3"'),
                             (b'still_history_shift\\":0.75', b'still_history_shift\\":9.75')):  # same length
                with open(path, "wb") as f:
                    f.write(data.replace(old, new))
                with self.assertRaisesRegex(WeightsError, "still_history_shift"):
                    read_weights(path)
            cfg.still_history_shift = 0.0
            cfg.masks = False  # nor masks (format 5)
            tensors = {k: v for k, v in tensors.items() if not k.startswith("mask_embed.")}
            write_weights(path, cfg, tensors, desc, version=3)  # a format-3 file reads as shift 0
            self.assertEqual(read_weights(path)[0].still_history_shift, 0.0)

    def test_export_writes_the_shipped_shift_or_the_one_asked_for(self):
        ckpt = os.path.join(ROOT, "python", "checkpoints", "lite.pt")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "lite.safetensors")
            export.main(["--variant", "lite", "--checkpoint", ckpt, "--out", out, "--still-history-shift", "0.5"])
            cfg, _, desc = read_weights(out)
            self.assertEqual(cfg.still_history_shift, 0.5)
            self.assertIn("+ head MLP fit + mask_embed trained + still shift 0.5,", desc)  # named with the fits
            self.assertLessEqual(len(desc), 255)
            export.main(["--variant", "lite", "--checkpoint", ckpt, "--out", out, "--force"])
            self.assertEqual(read_weights(out)[0].still_history_shift, export.SHIPPED_STILL_HISTORY_SHIFT["lite"])


if __name__ == "__main__":
    unittest.main()
