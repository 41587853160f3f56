"""The reactive and transparency masks in the PyTorch reference (docs/masks.md): staging clamps
them (NaN/Inf read as 0) and rounds the network's copy to e4m3; the output pass raises the
current frame's share of the displayed colour by r * (1 - share), keeps share * (1 - r) of it in
the history, and scales the still-pixel shift by (1 - t); mask_embed
(weights format 5) adds to the first layer's f32 output, its bias alone without masks; a zero
mask_embed is the network without it; export writes format 5 with a zero mask_embed."""
import json
import os
import sys
import tempfile
import unittest

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from swinup import export  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.output_pass import ALPHA_LOGIT, output_pass  # noqa: E402
from swinup.quant import round_e4m3, round_f16  # noqa: E402
from swinup.spec import ModelConfig, model_tensors  # noqa: E402
from swinup.staging import FrameInput, stage  # noqa: E402
from swinup.training.checkpoint import read_checkpoint, write_checkpoint  # noqa: E402
from swinup.weights_io import WeightsError, read_weights, write_weights, zero_mask_embed  # noqa: E402
from weights_file import metadata, set_format_version  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def frame(seed, w=10, h=6, alpha_logit=None):
    g = torch.Generator().manual_seed(seed)
    head = torch.randn(1, h, w, 16, generator=g) * 2
    if alpha_logit is not None:
        head[..., ALPHA_LOGIT] = alpha_logit
    tc = torch.rand(1, h, w, 3, generator=g) * 2
    motion = (torch.rand(1, h, w, 2, generator=g) - 0.5) * 0.5
    motion.view(-1, 2)[::3] = 0.0
    history = round_f16(torch.rand(1, 2 * h, 2 * w, 3, generator=g) * 3)
    return head, tc, motion, history


def run(head, tc, motion, history, masks=None, shift=0.0, valid=True):
    jitter = torch.tensor([[0.125, -0.25]])
    h, w = head.shape[1:3]
    out, _, _ = output_pass(head, tc, motion, jitter, history if valid else None, 2 * w, 2 * h, 2.0, 2.0,
                            valid, True, still_shift=shift, masks=masks)
    return out


def run_with_history(head, tc, motion, history, masks=None, valid=True):
    """(displayed colour, new history)."""
    jitter = torch.tensor([[0.125, -0.25]])
    h, w = head.shape[1:3]
    out, new_history, _ = output_pass(head, tc, motion, jitter, history if valid else None, 2 * w, 2 * h,
                                      2.0, 2.0, valid, True, masks=masks)
    return out, new_history


def constant_masks(h, w, r, t):
    return torch.stack([torch.full((1, h, w), float(r)), torch.full((1, h, w), float(t))], dim=-1)


class OutputPassMasks(unittest.TestCase):
    def test_zero_masks_keep_the_bits(self):
        head, tc, motion, history = frame(1)
        plain = run(head, tc, motion, history, None, 0.75)
        self.assertTrue(torch.equal(plain, run(head, tc, motion, history, constant_masks(6, 10, 0, 0), 0.75)))

    def test_reactive_one_gives_the_current_frame(self):
        head, tc, motion, history = frame(2, alpha_logit=40.0)  # the network keeps the history
        current = run(head, tc, motion, history, valid=False)
        kept = run(head, tc, motion, history)
        reactive = run(head, tc, motion, history, constant_masks(6, 10, 1, 0))
        # Where the history is read on screen: th + 1 * (current - th), a few f32 ulps of t off.
        torch.testing.assert_close(reactive, current, rtol=4e-6, atol=1e-6)
        self.assertGreater((kept - current).abs().max().item(), 0.5)

    def test_reactive_fraction_blends_that_much_of_the_current_frame_in_t(self):
        head, tc, motion, history = frame(3, alpha_logit=40.0)  # share 0 without the mask
        kept = run(head, tc, motion, history)
        current = run(head, tc, motion, history, valid=False)
        out = run(head, tc, motion, history, constant_masks(6, 10, 0.25, 0))
        t = lambda x: torch.log2(1.0 + x.double())  # noqa: E731
        torch.testing.assert_close(t(out), t(kept) + 0.25 * (t(current) - t(kept)), rtol=0, atol=2e-6)

    def test_reactive_one_keeps_the_previous_history(self):
        head, tc, motion, history = frame(4, alpha_logit=-40.0)  # the network takes the current frame
        no_mask_out, no_mask_history = run_with_history(head, tc, motion, history)
        out, new_history = run_with_history(head, tc, motion, history, constant_masks(6, 10, 1, 0))
        _, reset_history = run_with_history(head, tc, motion, history, constant_masks(6, 10, 1, 0), valid=False)
        # share 0 in the history: th + 0 * d, the reprojected history (alpha 1 without a mask).
        _, kept_history = run_with_history(head.clone().index_fill_(-1, torch.tensor([ALPHA_LOGIT]), 40.0),
                                           tc, motion, history)
        self.assertTrue(torch.equal(new_history, kept_history))
        self.assertGreater((new_history - no_mask_history).abs().max().item(), 0.5)
        torch.testing.assert_close(out, run(head, tc, motion, history, valid=False), rtol=4e-6, atol=1e-6)
        # No history: both are the current frame's reconstruction.
        self.assertTrue(torch.equal(reset_history, round_f16(run(head, tc, motion, history, valid=False))))
        # No mask: the history is the displayed colour.
        self.assertTrue(torch.equal(no_mask_history, round_f16(no_mask_out.clamp(0, 65504))))

    def test_reactive_fraction_keeps_its_complement_of_the_share_in_the_history(self):
        head, tc, motion, history = frame(5, alpha_logit=-40.0)
        plain_out, _ = run_with_history(head, tc, motion, history)
        _, new_history = run_with_history(head, tc, motion, history, constant_masks(6, 10, 0.25, 0))
        _, kept = run_with_history(head.clone().index_fill_(-1, torch.tensor([ALPHA_LOGIT]), 40.0),
                                   tc, motion, history)
        t = lambda x: torch.log2(1.0 + x.double())  # noqa: E731
        # The history keeps 0.75 of the unmasked blend's step from the reprojected history.
        torch.testing.assert_close(t(new_history), t(kept) + 0.75 * (t(plain_out) - t(kept)), rtol=0, atol=2e-3)

    def test_transparency_scales_the_still_shift(self):
        head, tc, motion, history = frame(4)
        masks = constant_masks(6, 10, 0.0, 0.5)
        # t = 0.5 everywhere: the shift acts at half strength, i.e. as a shift of 0.375.
        self.assertTrue(torch.equal(run(head, tc, motion, history, masks, 0.75),
                                    run(head, tc, motion, history, None, 0.375)))
        # t = 1 removes it exactly; and the shift did act without the mask.
        t1 = constant_masks(6, 10, 0, 1)
        self.assertTrue(torch.equal(run(head, tc, motion, history, t1, 0.75), run(head, tc, motion, history, None, 0.0)))
        self.assertFalse(torch.equal(run(head, tc, motion, history, None, 0.75), run(head, tc, motion, history, None, 0.0)))


class StagingMasks(unittest.TestCase):
    def test_clamped_nan_read_as_zero_and_e4m3_for_the_network(self):
        h, w = 4, 6
        reactive = torch.full((1, h, w), 0.3)
        reactive[0, 0, 0] = float("nan")
        reactive[0, 0, 1] = float("inf")
        reactive[0, 0, 2] = 1.5
        reactive[0, 0, 3] = -0.5
        f = FrameInput(color=torch.rand(1, h, w, 3), depth=torch.rand(1, h, w), motion=torch.zeros(1, h, w, 2),
                       jitter=torch.zeros(1, 2), reactive=reactive)
        s = stage(f, None, 2 * w, 2 * h, exact=True)
        self.assertEqual(s.masks[0, 0, :4, 0].tolist(), [0.0, 0.0, 1.0, 0.0])
        self.assertAlmostEqual(s.masks[0, 1, 1, 0].item(), 0.3, places=6)
        self.assertTrue(torch.equal(s.masks[..., 1], torch.zeros(1, h, w)))  # absent: 0
        self.assertEqual(tuple(s.mask_slots.shape), (1, 32, 32, 2))
        self.assertEqual(s.mask_slots[0, 1, 1, 0].item(), 0.3125)  # e4m3 of 0.3
        self.assertEqual(s.mask_slots[0, 31, 31, 0].item(), 0.3125)  # padding repeats the edge
        f.reactive = None
        self.assertIsNone(stage(f, None, 2 * w, 2 * h, exact=True).mask_slots)


def random_masked_model(variant, seed):
    cfg = ModelConfig.make(variant, masks=True)
    m = SwinUp(cfg, exact=True)
    m.init_seeded(seed)
    g = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for s in model_tensors(cfg):
            if s.name.endswith(".bias"):
                m.p(s.name).copy_((torch.rand(s.shape, generator=g) - 0.5) * 0.25)
        m.p("mask_embed.weight").copy_(torch.rand(m.p("mask_embed.weight").shape, generator=g) - 0.5)
    m.requires_grad_(False)
    return m


class MaskEmbed(unittest.TestCase):
    def test_absent_masks_add_the_bias_and_masks_change_the_head(self):
        for variant in ("lite", "full"):
            m = random_masked_model(variant, 5)
            g = torch.Generator().manual_seed(7)
            staged = round_e4m3(torch.rand(1, 32, 32, 16, generator=g) * 2 - 1)
            masks = round_e4m3(torch.rand(1, 32, 32, 2, generator=g))
            absent = m(staged, 1)
            self.assertTrue(torch.equal(absent, m(staged, 1, masks=torch.zeros(1, 32, 32, 2))), variant)
            self.assertFalse(torch.equal(absent, m(staged, 1, masks=masks)), variant)
            # The bias acts: zeroing it changes the frame without masks.
            with torch.no_grad():
                m.p("mask_embed.bias").zero_()
            self.assertFalse(torch.equal(absent, m(staged, 1)), variant)

    def test_a_zero_mask_embed_is_the_network_without_it(self):
        # Both shipped layers are trained (2026-12-05), their biases zero: full's file with its layer
        # zeroed is format 5's start; lite's network with the layer zeroed is the network without it.
        full_cfg, full_tensors, _ = read_weights(os.path.join(ROOT, "weights", "full.safetensors"))
        self.assertTrue(full_cfg.masks)  # the shipped weights are format 5
        self.assertFalse(np.array_equal(full_tensors["mask_embed.weight"], zero_mask_embed(full_cfg)["mask_embed.weight"]))
        self.assertTrue(np.array_equal(full_tensors["mask_embed.bias"], zero_mask_embed(full_cfg)["mask_embed.bias"]))
        cfg, tensors, _ = read_weights(os.path.join(ROOT, "weights", "lite.safetensors"))
        tensors = dict(tensors, **zero_mask_embed(cfg))
        with_layer = SwinUp(cfg, exact=True)
        with_layer.load_tensors(tensors, fix_scales=True)
        plain_cfg = ModelConfig.make("lite", head_mlp=cfg.head_mlp, still_history_shift=cfg.still_history_shift)
        plain = SwinUp(plain_cfg, exact=True)
        plain.load_tensors(tensors, fix_scales=True)  # drops the zero layer
        g = torch.Generator().manual_seed(3)
        staged = round_e4m3(torch.rand(1, 32, 32, 16, generator=g) * 2 - 1)
        masks = round_e4m3(torch.rand(1, 32, 32, 2, generator=g))
        with torch.no_grad():
            want = plain(staged, 0)
            self.assertTrue(torch.equal(want, with_layer(staged, 0)))
            self.assertTrue(torch.equal(want, with_layer(staged, 0, masks=masks)))
        tensors = dict(tensors)
        tensors["mask_embed.bias"] = tensors["mask_embed.bias"] + 1.0
        with self.assertRaisesRegex(ValueError, "mask_embed is not zero"):
            SwinUp(plain_cfg).load_tensors(tensors, fix_scales=True)


class WeightsFormat5(unittest.TestCase):
    def test_export_writes_format_5_with_a_zero_mask_embed(self):
        # A checkpoint without the layer (as every one before 2026-12-05): the shipped full one
        # with its trained layer taken out.
        record = read_checkpoint(os.path.join(ROOT, "python", "checkpoints", "full.pt"), "full")
        record["params"] = {k: v for k, v in record["params"].items() if not k.startswith("mask_embed__")}
        record["masks"] = False
        with tempfile.TemporaryDirectory() as d:
            ckpt = os.path.join(d, "full.pt")
            write_checkpoint(ckpt, record)
            out = os.path.join(d, "full.safetensors")
            export.main(["--variant", "full", "--checkpoint", ckpt, "--out", out])
            cfg, tensors, _ = read_weights(out)
            self.assertTrue(cfg.masks)
            self.assertEqual(tensors["mask_embed.weight"].shape, (32, 2))
            for name, a in zero_mask_embed(cfg).items():
                self.assertTrue(np.array_equal(tensors[name], a), name)
            meta = metadata(out)
            self.assertEqual(meta["format_version"], "5")
            self.assertTrue(json.loads(meta["config"])["masks"])
            # A format-4 file cannot have the masks.
            with self.assertRaisesRegex(ValueError, "no mask embedding"):
                write_weights(out, cfg, tensors, "", version=4)
            set_format_version(out, 4)
            with self.assertRaisesRegex(WeightsError, "'masks'"):
                read_weights(out)


if __name__ == "__main__":
    unittest.main()
