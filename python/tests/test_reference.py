#!/usr/bin/env python3
"""Unit tests of the PyTorch reference (python/swinup): weights I/O, quantisation and export round
trips, gradients through the recurrence, the EXR reader against files the real OpenEXR library
wrote. Run: /usr/bin/python3 -m unittest discover -s python/tests (needs torch and numpy; the EXR
test also g++ and OpenEXR's development files, and is skipped without them)."""
import contextlib
import io
import math
import os
import sys
import tempfile
import unittest

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
from swinup import quant  # noqa: E402
from swinup.exr import read_exr  # noqa: E402
from swinup.model import SwinUp, depth_to_space, space_to_depth  # noqa: E402
from swinup.spec import ModelConfig, model_tensors  # noqa: E402
from swinup.average_checkpoints import average_checkpoints  # noqa: E402
from swinup.train import main as train_main  # noqa: E402
from swinup.training.batches import draw_burn_in  # noqa: E402
from swinup.training.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402
from swinup.training.held_out import holds_held_out_scene  # noqa: E402
from swinup.training.history import describe_training  # noqa: E402
from swinup.training.losses import t_space  # noqa: E402
from swinup.training.recurrence import unroll  # noqa: E402
from swinup.temporal_loss import motion_compensated_change_error  # noqa: E402
from swinup.data import ProceduralScenes  # noqa: E402
from swinup.display_encode import display_encode  # noqa: E402
from swinup.weights_io import read_weights, write_weights  # noqa: E402
from sequence_writer import write_exr, writer_or_skip_reason  # noqa: E402
from weights_file import metadata, set_format_version  # noqa: E402


def lite_network_with_varied_heads():
    """A seeded lite network whose head weights for the output pass and the recurrent features
    (channels 0-7) are random too, so that losses and gradients through them are not trivially 0."""
    m = SwinUp(ModelConfig.make("lite"))
    m.init_seeded(1)
    with torch.no_grad():
        m.p("head.linear.weight")[:8].normal_(0, 0.3)
    return m


class WeightsTest(unittest.TestCase):
    def test_round_trip_is_byte_identical(self):
        for v in ("lite", "full"):
            path = os.path.join(ROOT, "weights", f"{v}.safetensors")
            cfg, t, desc = read_weights(path)
            version = int(metadata(path)["format_version"])  # the file's own
            with tempfile.TemporaryDirectory() as d:
                out = os.path.join(d, "w.safetensors")
                write_weights(out, cfg, t, desc, version=version)
                with open(path, "rb") as a, open(out, "rb") as b:
                    self.assertEqual(a.read(), b.read())

    def test_export_reproduces_the_loaded_codes(self):
        cfg, t, _ = read_weights(os.path.join(ROOT, "weights", "lite.safetensors"))
        m = SwinUp(cfg)
        m.load_tensors(t, fix_scales=True)
        e = m.export_tensors()
        for s in model_tensors(cfg):
            np.testing.assert_array_equal(e[s.name], t[s.name], err_msg=s.name)

    def test_derived_scales_are_powers_of_two_and_codes_finite(self):
        m = SwinUp(ModelConfig.make("lite"))
        m.init_seeded(3)
        e = m.export_tensors()
        for s in model_tensors(m.cfg):
            if s.dtype == "F8_E4M3":
                codes = e[s.name]
                self.assertFalse(np.any((codes & 0x7F) == 0x7F), s.name)  # no NaN code
                scale = e[s.name[:-len("weight")] + "scale"]
                m_, _ = np.frexp(scale)
                np.testing.assert_array_equal(m_, 0.5, err_msg=s.name)

    def test_reader_names_the_bad_tensor(self):
        cfg, t, desc = read_weights(os.path.join(ROOT, "weights", "lite.safetensors"))
        t["enc1.qkv.bias"] = t["enc1.qkv.bias"][:10]
        with tempfile.TemporaryDirectory() as d, self.assertRaisesRegex(Exception, "enc1.qkv.bias"):
            write_weights(os.path.join(d, "w.safetensors"), cfg, t, desc)


class VersionOneTest(unittest.TestCase):
    """Format 1 (before 2026-11-30's difference slots and jitter-aware blend) is no longer read:
    weights files and checkpoints of it are refused by name."""

    def test_version_one_files_are_refused(self):
        model = SwinUp(ModelConfig.make("lite"))
        model.init_seeded(5)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "old.safetensors")
            write_weights(path, model.cfg, model.export_tensors(), "test", version=2)
            read_weights(path)
            set_format_version(path, 1)
            with self.assertRaisesRegex(ValueError, "format_version '1'.*no longer read"):
                read_weights(path)
            ckpt = os.path.join(d, "old.pt")
            save_checkpoint(ckpt, model, 3, [])
            record = torch.load(ckpt)
            record["version"] = 1
            torch.save(record, ckpt)
            with self.assertRaisesRegex(ValueError, "checkpoint version 1, expected 2.*no longer read"):
                load_checkpoint(ckpt, model)


class LayoutTest(unittest.TestCase):
    def test_space_to_depth_order(self):
        x = torch.arange(2 * 4 * 4 * 3, dtype=torch.float32).view(2, 4, 4, 3)
        y = space_to_depth(x)
        # Channel (dy*2 + dx)*C + c of coarse token (Y, X) is fine token (2Y+dy, 2X+dx).
        for dy in range(2):
            for dx in range(2):
                for c in range(3):
                    self.assertEqual(float(y[1, 1, 0, (dy * 2 + dx) * 3 + c]), float(x[1, 2 + dy, dx, c]))
        torch.testing.assert_close(depth_to_space(y), x)


class GradientTest(unittest.TestCase):
    def test_straight_through_rounding(self):
        x = torch.tensor([0.3, 1.7, 500.0], requires_grad=True)
        quant.round_e4m3_ste(x).sum().backward()
        torch.testing.assert_close(x.grad, torch.ones(3))

    def test_gradients_reach_every_layer_through_the_recurrence(self):
        torch.manual_seed(0)
        for v, head_mlp in (("lite", False), ("full", False), ("lite", True)):
            m = SwinUp(ModelConfig.make(v, head_mlp=head_mlp))
            m.init_seeded(1)
            with torch.no_grad():
                m.p("head.linear.weight")[:8].normal_(0, 0.3)
                if head_mlp:  # its zero start passes no gradient to fc1 and fc2
                    m.p("head_mlp.fc3.weight").normal_(0, 0.3)
            clip = ProceduralScenes("cpu", seed=2).batch(1, 3, 32, hdr=True)
            _, l1, temporal = unroll(m, clip)
            (l1 + temporal).backward()
            for name, p in m.params.items():
                if name.startswith("head__linear"):
                    continue
                self.assertIsNotNone(p.grad, name)
                self.assertTrue(torch.isfinite(p.grad).all(), name)
                self.assertGreater(float(p.grad.abs().sum()), 0.0, f"{v}: {name}")

    def test_recurrent_features_carry_gradient_to_the_previous_frame(self):
        m = SwinUp(ModelConfig.make("lite"))
        m.init_seeded(1)
        clip = ProceduralScenes("cpu", seed=5).batch(1, 2, 32, hdr=False)
        captured = []
        original = m.forward

        def forward(staged, frame_index, hook=None):
            head = original(staged, frame_index, hook)
            if frame_index == 0:
                head.retain_grad()
                captured.append(head)
            return head
        m.forward = forward
        out, _, _ = unroll(m, clip)
        out[:, 1].sum().backward()  # only frame 1's output
        g = captured[0].grad
        self.assertGreater(float(g[..., 0:4].abs().sum()), 0.0)  # through the recurrent slots


    def test_burn_in_frames_build_state_but_are_not_scored(self):
        # --burn-in: the first frames run without gradient or loss; the scored frames must be the
        # plain unroll's frames bit for bit (the same state reaches them), the loss their mean,
        # and the gradient must still reach the weights through the scored frames.
        m = lite_network_with_varied_heads()
        clip = ProceduralScenes("cpu", seed=7).batch(1, 4, 32, hdr=False)
        with torch.no_grad():
            full, _, _ = unroll(m, clip)
        out, l1, temporal = unroll(m, clip, burn_in=2)
        self.assertEqual(out.shape[1], 2)
        self.assertTrue(torch.equal(out.detach(), full[:, 2:]))
        t = t_space
        expect = sum((t(full[:, k]) - t(clip["gt"][:, k])).abs().mean() for k in (2, 3)) / 2
        torch.testing.assert_close(l1.detach(), expect)
        (l1 + temporal).backward()
        grads = [p.grad for p in m.params.values() if p.grad is not None]
        self.assertGreater(sum(float(g.abs().sum()) for g in grads), 0.0)
        with self.assertRaises(ValueError):
            unroll(m, clip, burn_in=4)  # nothing left to score

    def test_temporal_norms_measure_the_change_error(self):
        # --temporal-norm: "l1" is the mean |change error| over the frame pairs, "rms" the root of
        # the mean square over all pixels and pairs (what `swinup eval` reports), both computed
        # here from the outputs; both reach the weights.
        m = lite_network_with_varied_heads()
        clip = ProceduralScenes("cpu", seed=11).batch(1, 3, 32, hdr=False)
        out, _, l1_term = unroll(m, clip, temporal_alignment="pixel")
        out_rms, _, rms_term = unroll(m, clip, temporal_norm="rms", temporal_alignment="pixel")
        self.assertTrue(torch.equal(out, out_rms))  # the norm changes the loss, not the frames
        t = t_space
        errors = [(t(out[:, k]) - t(out[:, k - 1])) - (t(clip["gt"][:, k]) - t(clip["gt"][:, k - 1]))
                  for k in (1, 2)]
        torch.testing.assert_close(l1_term.detach(), sum(e.abs().mean() for e in errors).detach() / 2)
        torch.testing.assert_close(rms_term.detach(),
                                   torch.sqrt(sum(e.square().mean() for e in errors) / 2).detach())
        self.assertGreater(float(rms_term), float(l1_term))  # RMS >= mean |e|; equal only if |e| is constant
        rms_term.backward()
        self.assertGreater(sum(float(p.grad.abs().sum()) for p in m.params.values() if p.grad is not None), 0.0)
        with self.assertRaises(ValueError):
            unroll(m, clip, temporal_norm="l2")
        with self.assertRaises(ValueError):
            unroll(m, clip, temporal_alignment="warped")

    def test_display_terms_score_the_evaluations_colours(self):
        # --display-weight adds w x the L1 distance of display-encoded colour to the t-space L1;
        # --temporal-space display makes the temporal term compare display-encoded changes. Both
        # recomputed here from the outputs; the frames themselves do not change.
        m = lite_network_with_varied_heads()
        for hdr in (False, True):
            clip = ProceduralScenes("cpu", seed=13).batch(1, 3, 32, hdr=hdr)
            out, t_only, t_temporal = unroll(m, clip, temporal_alignment="pixel")
            out2, with_display, d_temporal = unroll(m, clip, temporal_alignment="pixel", display_weight=0.5,
                                                    temporal_space="display")
            self.assertTrue(torch.equal(out, out2))
            d = lambda x: display_encode(x, hdr)  # noqa: E731
            display_l1 = sum((d(out[:, k]) - d(clip["gt"][:, k])).abs().mean() for k in range(3)) / 3
            torch.testing.assert_close(with_display.detach(), (t_only + 0.5 * display_l1).detach())
            errors = [(d(out[:, k]) - d(out[:, k - 1])) - (d(clip["gt"][:, k]) - d(clip["gt"][:, k - 1]))
                      for k in (1, 2)]
            torch.testing.assert_close(d_temporal.detach(), sum(e.abs().mean() for e in errors).detach() / 2)
            self.assertNotAlmostEqual(float(d_temporal), float(t_temporal), places=6)
            (with_display + d_temporal).backward()
            self.assertGreater(sum(float(p.grad.abs().sum()) for p in m.params.values() if p.grad is not None), 0.0)
            m.zero_grad(set_to_none=True)
        with self.assertRaises(ValueError):
            unroll(m, clip, temporal_space="linear")
        with self.assertRaises(ValueError):
            unroll(m, clip, display_weight=1.0, display_norm="l2")
        with self.assertRaises(ValueError):
            unroll(m, clip, display_weight=-1.0)

    def test_display_rms_is_each_clips_pooled_error(self):
        # --display-norm rms: per clip the root of the mean square display error over its scored
        # frames (a sequence's PSNR pools its frames so), then the mean over the clips; recomputed
        # here by hand for two clips of which one is far worse (it must not be averaged away as a
        # batch-wide RMS would: each clip's root is taken before the mean).
        m = lite_network_with_varied_heads()
        for hdr in (False, True):
            clip = ProceduralScenes("cpu", seed=21).batch(2, 4, 32, hdr=hdr)
            clip["gt"] = clip["gt"].clone()
            clip["gt"][1] = clip["gt"][1] * 0.2 + 0.4  # the second clip's truth far from its output
            out, t_only, _ = unroll(m, clip, burn_in=1)
            out2, with_rms, _ = unroll(m, clip, burn_in=1, display_weight=2.0, display_norm="rms")
            self.assertTrue(torch.equal(out, out2))
            d = lambda x: display_encode(x, hdr)  # noqa: E731
            per_clip = [math.sqrt(sum(float((d(out[b, k]) - d(clip["gt"][b, k + 1])).double().square().mean())
                                      for k in range(3)) / 3) for b in range(2)]
            self.assertGreater(per_clip[1], 2 * per_clip[0])
            expected = float(t_only) + 2.0 * (per_clip[0] + per_clip[1]) / 2
            self.assertAlmostEqual(float(with_rms), expected, places=5)
            with_rms.backward()
            self.assertGreater(sum(float(p.grad.abs().sum()) for p in m.params.values() if p.grad is not None), 0.0)
            m.zero_grad(set_to_none=True)

    def test_first_frame_weight_weighs_the_frames_without_history(self):
        # --first-frame-weight W: the spatial and display terms are means over the scored frames in
        # which a frame without history (the clip's first after no burn-in, or a camera cut) counts
        # W times; recomputed here from the outputs. W = 1 is the plain mean, bit for bit; frames
        # after a burn-in have history and are not weighed.
        m = lite_network_with_varied_heads()
        clip = ProceduralScenes("cpu", seed=23).batch(1, 4, 32, hdr=True)
        t = t_space
        with torch.no_grad():
            out, plain, _ = unroll(m, clip, display_weight=1.0)
            _, same, _ = unroll(m, clip, display_weight=1.0, first_frame_weight=1.0)
            _, weighted, _ = unroll(m, clip, display_weight=1.0, first_frame_weight=5.0)
            _, after_burn_in, _ = unroll(m, clip, burn_in=1, display_weight=1.0)
            _, after_burn_in_w, _ = unroll(m, clip, burn_in=1, display_weight=1.0, first_frame_weight=5.0)
        self.assertTrue(torch.equal(plain, same))
        self.assertTrue(torch.equal(after_burn_in, after_burn_in_w))
        d = lambda x: display_encode(x, True)  # noqa: E731
        per_frame = [float((t(out[:, k]) - t(clip["gt"][:, k])).abs().mean()) +
                     float((d(out[:, k]) - d(clip["gt"][:, k])).abs().mean()) for k in range(4)]
        self.assertAlmostEqual(float(plain), sum(per_frame) / 4, places=5)
        self.assertAlmostEqual(float(weighted), (5 * per_frame[0] + sum(per_frame[1:])) / 8, places=5)
        # A camera cut inside the clip is a frame without history too.
        cut = dict(clip, reset=[False, False, True, False])
        with torch.no_grad():
            out_cut, cut_loss, _ = unroll(m, cut, burn_in=1, display_weight=1.0, first_frame_weight=5.0)
        per_cut = [float((t(out_cut[:, k]) - t(cut["gt"][:, k + 1])).abs().mean()) +
                   float((d(out_cut[:, k]) - d(cut["gt"][:, k + 1])).abs().mean()) for k in range(3)]
        self.assertAlmostEqual(float(cut_loss), (per_cut[0] + 5 * per_cut[1] + per_cut[2]) / 7, places=5)
        for bad in (0.0, -1.0, float("nan")):
            with self.assertRaises(ValueError):
                unroll(m, clip, first_frame_weight=bad)

    def test_reset_share_starts_that_share_of_clips_at_a_cut(self):
        import random
        rng = random.Random(5)
        plain = [draw_burn_in(rng, 16, 0.0) for _ in range(17000)]
        self.assertEqual(set(plain), set(range(17)))
        self.assertAlmostEqual(plain.count(0) / len(plain), 1 / 17, delta=0.01)
        shared = [draw_burn_in(rng, 16, 0.3) for _ in range(17000)]
        self.assertAlmostEqual(shared.count(0) / len(shared), 0.3 + 0.7 / 17, delta=0.015)
        self.assertEqual(set(shared), set(range(17)))
        self.assertEqual({draw_burn_in(rng, 16, 1.0) for _ in range(100)}, {0})
        for bad in (-0.1, 1.5, float("nan")):
            with self.assertRaises(ValueError):
                draw_burn_in(rng, 16, bad)

    def test_description_names_the_loss_terms_and_fits_the_c_api(self):
        # `swinup info` shows "embedded full: " and the description; the C API keeps 255 characters.
        data = ["d/gas_station_orbit_3x", "d/fence_pan", "d/showcase_own", "d/text_shake", "d/moire_own",
                "d/spinner_orbit", "2.5D layers"]
        plain = {"device": "NVIDIA H200", "minutes": 5.0, "date": "2026-11-30", "data": data,
                 "temporal_alignment": "motion", "burn_in": 16}
        self.assertIn("t-space L1 + temporal along the motion", describe_training("lite", 3100, [plain]))
        display = dict(plain, date="2026-12-01", temporal_norm="rms", display_weight=1.0, temporal_space="display")
        text = describe_training("full", 123456, [plain, display])
        self.assertIn("t-space + display L1 + temporal (L1/RMS, display) along the motion", text)
        self.assertIn("5 procedural scenes", text)
        self.assertIn("8-frame clips, <=16 burn-in", text)
        self.assertLessEqual(len("embedded full: " + text), 255)
        rms = dict(display, display_norm="rms")
        text = describe_training("full", 123456, [plain, display, rms])
        self.assertIn("t-space L1 + display L1/RMS + temporal (L1/RMS, display) along the motion", text)
        self.assertLessEqual(len("embedded full: " + text), 255)
        # A mean of checkpoints says so; the clip lengths give way to it when both do not fit.
        text = describe_training("full", 123456, [plain, display, rms, {"note": "mean", "averaged": 4}])
        self.assertIn("full trained 123456 steps (mean of 4 checkpoints), 15 min on H200", text)
        self.assertIn("temporal (L1/RMS, display) along the motion", text)
        self.assertNotIn("burn-in", text)
        self.assertLessEqual(len("embedded full: " + text), 255)
        # A first-frame fit (fit_first_frame.py) is named after the steps; the text still fits.
        fit = {"date": "2026-12-01", "note": "first-frame fit", "first_frame_fit": {"steps": 300}}
        text = describe_training("lite", 3766, [plain, dict(display, augment="mirrors", crop=128), fit])
        self.assertIn("lite trained 3766 steps + first-frame fit, 10 min on H200 (2026-12-01)", text)
        self.assertLessEqual(len("embedded lite: " + text), 255)
        self.assertNotIn("first-frame fit", describe_training("lite", 3766, [plain]))
        # A chunk on mirrored clips (--augment) says so first; larger crops are named where they fit.
        mirrored = dict(display, augment="mirrors", crop=128)
        text = describe_training("lite", 3766, [plain, mirrored])
        self.assertIn("along the motion, mirrored, 8-frame clips", text)
        self.assertLessEqual(len("embedded full: " + text), 255)
        # A weighted mean of a fitted history takes the short form of the mean rather than lose the
        # loss terms at the end (full on 2026-12-01: 269 characters with the long form).
        shares = {"note": "mean", "averaged": 3, "shares": [0.35, 0.4, 0.25]}
        text = describe_training("full", 4108, [plain, display, shares, fit])
        self.assertIn("full trained 4108 steps (weighted mean of 3) + first-frame fit, 10 min", text)
        self.assertTrue(text.endswith("temporal (L1/RMS, display) along the motion"), text)
        self.assertLessEqual(len("embedded full: " + text), 255)
        self.assertIn("(interpolated between 3 checkpoints)", describe_training("lite", 9, [shares]))
        # Whatever the history, the line fits; a cut one says so.
        many = dict(plain, data=[f"d/scene_{i}" for i in range(40)])
        text = describe_training("full", 4108, [many, shares, fit])
        self.assertEqual(len("embedded full: " + text), 255)
        self.assertTrue(text.endswith("..."), text)
        short = dict(mirrored, data=["2.5D layers"], temporal_alignment="pixel")
        self.assertIn("mirrored, 8-frame clips, <=16 burn-in, 128 px crops", describe_training("lite", 9, [short]))
        self.assertIn("<=16 burn-in, 96-128 px crops", describe_training("lite", 9, [dict(short, crop=96), short]))

    def test_display_encoding_is_the_evaluations(self):
        # src/eval/display_encode.cpp: sRGB's linear toe below 0.0031308, its power curve above,
        # LDR clamped to 1, HDR through x / (1 + x), negatives, NaN and infinities as 0; values
        # computed by hand.
        x = torch.tensor([-1.0, 0.002, 0.5, 1.0, 4.0, float("nan"), float("inf")])
        ldr = display_encode(x, hdr=False)
        hdr = display_encode(x, hdr=True)
        srgb_half = 1.055 * 0.5 ** (1 / 2.4) - 0.055  # 0.735357
        torch.testing.assert_close(ldr, torch.tensor([0.0, 12.92 * 0.002, srgb_half, 1.0, 1.0, 0.0, 0.0]))
        srgb_third = 1.055 * (1 / 3) ** (1 / 2.4) - 0.055
        srgb_fifth = 1.055 * 0.8 ** (1 / 2.4) - 0.055
        expect_hdr = [0.0, 12.92 * 0.002 / 1.002, srgb_third, srgb_half, srgb_fifth, 0.0, 0.0]  # 0.002 / 1.002 on the toe
        torch.testing.assert_close(hdr, torch.tensor(expect_hdr))
        # Gradients stay finite at the toe, at zero and in the clamped range (zero there).
        v = torch.tensor([0.0, 0.001, 0.0031308, 2.0], requires_grad=True)
        display_encode(v, hdr=False).sum().backward()
        self.assertTrue(torch.isfinite(v.grad).all())
        torch.testing.assert_close(v.grad[1], torch.tensor(12.92))
        self.assertEqual(float(v.grad[3]), 0.0)

    def test_change_error_follows_the_motion_on_stable_pixels(self):
        # A pan: render 8x8 -> display 16x16, every render pixel moved 1 pixel (2 display pixels)
        # since the last frame. A soft but steady output (the truth blurred) has no change error
        # along the motion, while comparing each pixel with itself charges it for the blur; noise
        # added in one frame is the error. The pixels whose source is off screen, those near a
        # motion edge and those near a disocclusion are left out.
        g = torch.Generator().manual_seed(3)
        scene = torch.rand(1, 16, 22, 3, generator=g)
        soft = (scene[:, :, :-2] + scene[:, :, 1:-1] + scene[:, :, 2:]) / 3  # 20 wide, blurred
        scene = scene[:, :, 1:-1]
        gt_prev_view, gt_now = scene[:, :, :16], scene[:, :, 2:18]  # the scene moved 2 px left
        out_prev, out_now = soft[:, :, :16], soft[:, :, 2:18]
        motion = torch.zeros(1, 8, 8, 2)
        motion[..., 0] = 1.0  # current -> previous: the point was 1 render pixel to the right
        z = torch.full((1, 8, 8), 0.5)
        args = (motion, z, z.clone(), 2.0, 2.0)
        err, stable = motion_compensated_change_error(out_now, out_prev, gt_now, gt_prev_view, *args)
        self.assertTrue(bool(stable[0, :, :14].all()) and not bool(stable[0, :, 15].any()))
        self.assertLess(float(err[stable].abs().max()), 1e-6)
        pixel_aligned = (out_now - out_prev) - (gt_now - gt_prev_view)
        self.assertGreater(float(pixel_aligned.abs().mean()), 0.05)
        noise = 0.05 * torch.randn(1, 16, 16, 3, generator=g)
        err, _ = motion_compensated_change_error(gt_now + noise, gt_prev_view, gt_now, gt_prev_view, *args)
        torch.testing.assert_close(err[stable], noise[stable])
        edge_motion = motion.clone()
        edge_motion[:, :, 4, 0] = 0.0  # render column 4 stands still: columns 3-5 are at a motion edge
        _, stable = motion_compensated_change_error(gt_now, gt_prev_view, gt_now, gt_prev_view,
                                                    edge_motion, z, z.clone(), 2.0, 2.0)
        self.assertFalse(bool(stable[0, :, 6:12].any()))
        self.assertTrue(bool(stable[0, :, :6].all()) and bool(stable[0, :, 12:14].all()))
        previous_z = z.clone()
        previous_z[:, 2, 4] = 0.9  # something nearer stood where render pixel (3, 2) came from
        _, stable = motion_compensated_change_error(gt_now, gt_prev_view, gt_now, gt_prev_view,
                                                    motion, z, previous_z, 2.0, 2.0)
        self.assertFalse(bool(stable[0, 2:8, 4:10].any()))  # render pixels (2..4, 1..3)
        self.assertTrue(bool(stable[0, 8:, :14].all()))

    def test_unroll_with_given_heads_equals_the_network(self):
        # The output-pass oracle (scripts/research/oracle_output_pass.py) feeds heads itself: handed
        # the network's own heads it must reproduce the network's outputs exactly, and a change to
        # the history weight of frame 0 must reach frame 1 through the history (the recurrence).
        m = SwinUp(ModelConfig.make("lite"))
        m.init_seeded(1)
        clip = ProceduralScenes("cpu", seed=5).batch(1, 3, 32, hdr=False)
        heads = []

        def record(k, st):
            h = m(st.slots, k)
            heads.append(h.detach().clone())
            return h
        with torch.no_grad():
            reference, _, _ = unroll(m, clip)
            recorded, _, _ = unroll(m, clip, heads=record)
            replayed, _, _ = unroll(None, clip, heads=lambda k, st: heads[k])
        self.assertTrue(torch.equal(reference, recorded))
        self.assertTrue(torch.equal(reference, replayed))
        def frame1_keeps_half(k, st):
            h = heads[k].clone()
            if k == 1:
                h[..., 7] = 0.0  # alpha = sigmoid(0): frame 1 blends half of frame 0's output in
            return h
        heads0 = torch.nn.Parameter(heads[0].clone())
        out, _, _ = unroll(None, clip, heads=lambda k, st: heads0 if k == 0 else frame1_keeps_half(k, st))
        out[:, 1].sum().backward()
        self.assertGreater(float(heads0.grad[..., 4:8].abs().sum()), 0.0)  # frame 0's output pass


class HeldOutSceneTest(unittest.TestCase):
    def test_training_refuses_the_held_out_scene(self):
        self.assertTrue(holds_held_out_scene(["/d/seq_gas_station", "/d/seq_breakfast_room_2x"]))
        self.assertFalse(holds_held_out_scene(["/d/seq_gas_station", "/d/seq_fence_pan"]))
        with contextlib.redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
            train_main(["--data", "/d/seq_breakfast_room_2x", "--max-steps", "1"])
        self.assertIn("breakfast_room is the held-out check", err.getvalue())


class AverageCheckpointsTest(unittest.TestCase):
    def test_mean_of_branches_keeps_their_common_past_once(self):
        # Two branches continued from one chunk: every tensor becomes the mean (rounded to the
        # checkpoint's dtype once), the shared chunk counts once in the history and the steps.
        past = {"date": "2026-12-01", "start_step": 0, "steps": 100, "minutes": 5.0, "device": "NVIDIA H200"}
        a_chunk = dict(past, start_step=100, steps=30, lr=3e-4)
        b_chunk = dict(past, start_step=100, steps=50, lr=1e-4)
        nets = [SwinUp(ModelConfig.make("lite")) for _ in range(2)]
        nets[0].init_seeded(1)
        nets[1].init_seeded(2)
        with tempfile.TemporaryDirectory() as tmp:
            paths = [os.path.join(tmp, n) for n in ("a.pt", "b.pt")]
            save_checkpoint(paths[0], nets[0], 130, [past, a_chunk])
            save_checkpoint(paths[1], nets[1], 150, [past, b_chunk])
            ck = average_checkpoints(paths)
            self.assertEqual(ck["step"], 180)
            self.assertEqual(ck["history"][:3], [past, a_chunk, b_chunk])
            self.assertIn("weights averaged over 2 checkpoints", ck["history"][3]["note"])
            saved = [torch.load(p)["params"] for p in paths]
            for name, t in ck["params"].items():
                self.assertEqual(t.dtype, saved[0][name].dtype)
                expected = ((saved[0][name].double() + saved[1][name].double()) / 2).to(t.dtype)
                self.assertTrue(torch.equal(t, expected), name)
            differ = sum(int((saved[0][n] != saved[1][n]).any()) for n in saved[0])
            self.assertGreater(differ, 10)  # the two inputs really differ
            out = os.path.join(tmp, "mean.pt")
            torch.save(ck, out)
            m = SwinUp(ModelConfig.make("lite"))
            step, history = load_checkpoint(out, m)  # a training run can resume from the mean
            self.assertEqual(step, 180)
            self.assertIn("mean of", describe_training("lite", step, history))

    def test_weighted_mean_interpolates(self):
        # --weights 3 1: every tensor is 3/4 of the first plus 1/4 of the second, the history
        # records the shares, and the description calls it an interpolation.
        nets = [SwinUp(ModelConfig.make("lite")) for _ in range(2)]
        nets[0].init_seeded(3)
        nets[1].init_seeded(4)
        chunk = {"date": "2026-12-01", "start_step": 0, "steps": 10, "minutes": 1.0, "device": "NVIDIA H200"}
        with tempfile.TemporaryDirectory() as tmp:
            paths = [os.path.join(tmp, n) for n in ("a.pt", "b.pt")]
            save_checkpoint(paths[0], nets[0], 10, [chunk])
            save_checkpoint(paths[1], nets[1], 10, [dict(chunk, lr=1e-4)])
            ck = average_checkpoints(paths, weights=[3, 1])
            self.assertEqual(ck["history"][-1]["shares"], [0.75, 0.25])
            self.assertIn("interpolated over 2 checkpoints", ck["history"][-1]["note"])
            self.assertIn("share 0.75", ck["history"][-1]["note"])
            saved = [torch.load(p)["params"] for p in paths]
            moved = 0
            for name, t in ck["params"].items():
                expected = ((3 * saved[0][name].double() + saved[1][name].double()) / 4).to(t.dtype)
                self.assertTrue(torch.equal(t, expected), name)
                half = ((saved[0][name].double() + saved[1][name].double()) / 2).to(t.dtype)
                moved += int(not torch.equal(t, half))
            self.assertGreater(moved, 10)  # not the plain mean
            self.assertIn("interpolated between 2 checkpoints", describe_training("lite", ck["step"], ck["history"]))
            with self.assertRaisesRegex(ValueError, "1 weights for 2 checkpoints"):
                average_checkpoints(paths, weights=[1])
            with self.assertRaisesRegex(ValueError, "finite number > 0"):
                average_checkpoints(paths, weights=[1, 0])

    def test_refuses_what_cannot_be_averaged(self):
        with tempfile.TemporaryDirectory() as tmp:
            lite, full = SwinUp(ModelConfig.make("lite")), SwinUp(ModelConfig.make("full"))
            save_checkpoint(os.path.join(tmp, "l.pt"), lite, 1, [])
            save_checkpoint(os.path.join(tmp, "f.pt"), full, 1, [])
            with self.assertRaisesRegex(ValueError, "at least 2"):
                average_checkpoints([os.path.join(tmp, "l.pt")])
            with self.assertRaisesRegex(ValueError, "variant full"):
                average_checkpoints([os.path.join(tmp, "l.pt"), os.path.join(tmp, "f.pt")])
            torch.save({"format": "something else"}, os.path.join(tmp, "x.pt"))
            with self.assertRaisesRegex(ValueError, "not a swinup training checkpoint"):
                average_checkpoints([os.path.join(tmp, "l.pt"), os.path.join(tmp, "x.pt")])
            broken = torch.load(os.path.join(tmp, "l.pt"))
            name = next(iter(broken["params"]))
            broken["params"][name] = broken["params"][name].clone().fill_(float("inf"))
            torch.save(broken, os.path.join(tmp, "inf.pt"))
            with self.assertRaisesRegex(ValueError, "not finite"):
                average_checkpoints([os.path.join(tmp, "l.pt"), os.path.join(tmp, "inf.pt")])


class ExrTest(unittest.TestCase):
    def test_reader_matches_openexr(self):
        if writer_or_skip_reason()[0] is None:
            self.skipTest(writer_or_skip_reason()[1])
        with tempfile.TemporaryDirectory() as d:
            ys, xs = np.mgrid[0:37, 0:21].astype(np.float32)
            r, g = xs * 0.25 - ys, (xs * ys) / 7
            z = xs / np.float32(3) + ys * np.float32(1000)
            for comp in ("none", "zips", "zip"):
                path = os.path.join(d, f"{comp}.exr")
                write_exr(path, {"R": r, "G": g, "Z": z}, compression=comp, float_channels=("Z",))
                img = read_exr(path)
                np.testing.assert_array_equal(img["R"], r.astype(np.float16).astype(np.float32))
                np.testing.assert_array_equal(img["G"], g.astype(np.float16).astype(np.float32))
                np.testing.assert_array_equal(img["Z"], z.astype(np.float32))


if __name__ == "__main__":
    unittest.main()
