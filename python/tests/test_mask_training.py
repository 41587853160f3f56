"""Training with the reactive and transparency masks (docs/masks.md): a sequence's masks.NNNN.exr
reach the clips cropped, sub-sampled in time and mirrored exactly like the colour (a sequence
without them gives zero masks), the recurrence gives the network their staged e4m3 copy and the
output pass their staged values; train.py --masks --train-only mask_embed.weight moves that weight
alone, every other parameter bit for bit the start's and mask_embed.bias exactly zero; export
writes it as weights format 5, which the C++ CLI reads and runs (when one is built)."""
import contextlib
import io
import os
import random
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from sequence_writer import write_sequence, writer_or_skip_reason  # noqa: E402
from swinup import export, train  # noqa: E402
from swinup.data import SequenceFolder, batch_from_folders, mirror_clip  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.quant import round_e4m3  # noqa: E402
from swinup.spec import ModelConfig  # noqa: E402
from swinup.training import recurrence  # noqa: E402
from swinup.training.batches import ClipSource  # noqa: E402
from swinup.training.checkpoint import read_checkpoint, write_checkpoint  # noqa: E402
from swinup.training.options import parser  # noqa: E402
from swinup.weights_io import read_weights, write_weights, zero_mask_embed  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
W, H, N = 64, 32, 6  # render size (display 2x) and frames of the test sequences


def sequence_arrays(seed, masks_from_colour=True):
    """Random frames whose masks are the colour's first two channels (values k/64, exact in f16
    and in [0, 1]): wherever a clip's masks went, they must equal its colour's R and G."""
    rng = np.random.default_rng(seed)
    color = rng.integers(0, 65, (N, H, W, 3)).astype(np.float32) / 64
    depth = rng.uniform(0.1, 0.9, (N, H, W)).astype(np.float32)
    motion = np.round(rng.uniform(-2, 2, (N, H, W, 2)) * 8).astype(np.float32) / 8
    gt = rng.integers(0, 65, (N, 2 * H, 2 * W, 3)).astype(np.float32) / 64
    masks = color[..., :2].copy() if masks_from_colour else None
    return color, depth, motion, gt, masks


class MaskedSequences(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        _, why = writer_or_skip_reason()
        if why:
            raise unittest.SkipTest(why)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.masked = os.path.join(cls.tmp.name, "masked")
        write_sequence(cls.masked, *sequence_arrays(1), jitter=np.full((N, 2), 0.25))
        cls.unmasked = os.path.join(cls.tmp.name, "unmasked")
        write_sequence(cls.unmasked, *sequence_arrays(2)[:4])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assert_masks_follow_colour(self, clip, what=""):
        self.assertEqual(tuple(clip["masks"].shape), tuple(clip["color"].shape[:-1]) + (2,), what)
        self.assertTrue(torch.equal(clip["masks"], clip["color"][..., :2]), what)


class MaskData(MaskedSequences):
    def test_a_sequence_folder_reads_its_masks(self):
        seq = SequenceFolder(self.masked)
        self.assertTrue(seq.has_masks)
        _, _, _, _, masks = sequence_arrays(1)
        np.testing.assert_array_equal(seq.masks.float().numpy(), masks)

    def test_clips_crop_and_sub_sample_the_masks_with_the_colour(self):
        seq = SequenceFolder(self.masked)
        rng = random.Random(5)
        for _ in range(12):
            self.assert_masks_follow_colour(seq.clip(3, 32, 32, rng))
        clip = batch_from_folders([seq], 3, 4, 32, rng, "cpu")
        self.assert_masks_follow_colour(clip)

    def test_every_mirror_moves_the_masks_with_the_colour(self):
        clip = batch_from_folders([SequenceFolder(self.masked)], 2, 3, 32, random.Random(1), "cpu")
        for flip_x in (False, True):
            for flip_y in (False, True):
                for transpose in (False, True):
                    m = mirror_clip(clip, flip_x, flip_y, transpose)
                    self.assert_masks_follow_colour(m, f"flip_x={flip_x} flip_y={flip_y} transpose={transpose}")
                    if flip_x or flip_y or transpose:  # the masks did move
                        self.assertFalse(torch.equal(m["masks"], clip["masks"]))

    def test_training_batches_keep_the_masks_on_the_colour(self):
        """train.py's own batches (ClipSource: burn-in, crops, --augment's random mirrors)."""
        args = parser().parse_args(["--data", self.masked, "--procedural", "0", "--augment", "--crop", "32",
                                    "--frames", "2", "--burn-in", "2"])
        source = ClipSource(args, 0, 0, torch.device("cpu"))
        firsts = set()
        for _ in range(16):
            clip, _ = source.draw(2)
            self.assert_masks_follow_colour(clip)
            firsts.add(float(clip["masks"][0, 0, 0, 0, 0]))
        self.assertGreater(len(firsts), 1)  # the crops and mirrors did vary

    def test_a_sequence_without_masks_gives_zero_masks(self):
        seq = SequenceFolder(self.unmasked)
        self.assertFalse(seq.has_masks)
        clip = seq.clip(3, 32, 32, random.Random(0))
        self.assertTrue(torch.equal(clip["masks"], torch.zeros(3, 32, 32, 2)))

    def test_mask_values_outside_zero_to_one_are_refused_naming_the_file(self):
        color, depth, motion, gt, masks = sequence_arrays(3)
        masks[2, 5, 7, 1] = 1.5
        path = os.path.join(self.tmp.name, "bad")
        write_sequence(path, color, depth, motion, gt, masks)
        with self.assertRaisesRegex(ValueError, r"masks\.0002\.exr: transparency & composition \(G\) value 1\.5 "
                                                r"at pixel \(7, 5\) is outside \[0, 1\]"):
            SequenceFolder(path)


class Recorded:
    """Wraps a network's run() and the recurrence's output_pass to record the masks each gets."""

    def __init__(self, model):
        self.network, self.output_pass = [], []
        run, real_output_pass = model.run, recurrence.output_pass

        def recording_run(staged, k, masks=None):
            self.network.append(masks)
            return run(staged, k, masks=masks)

        def recording_output_pass(*a, **kw):
            self.output_pass.append(kw.get("masks"))
            return real_output_pass(*a, **kw)
        model.run = recording_run
        self.patch = mock.patch.object(recurrence, "output_pass", recording_output_pass)


class MasksThroughTheRecurrence(MaskedSequences):
    def clip(self):
        return batch_from_folders([SequenceFolder(self.masked)], 2, 3, 32, random.Random(2), "cpu")

    def test_the_network_gets_the_staged_e4m3_masks_and_the_output_pass_the_staged_values(self):
        clip = self.clip()
        model = SwinUp(ModelConfig.make("lite", masks=True))
        model.init_seeded(3)
        rec = Recorded(model)
        with rec.patch, torch.no_grad():
            recurrence.unroll(model, clip, burn_in=1)
        self.assertEqual(len(rec.network), 3)
        for k in range(3):
            # A 32 x 32 crop is its own padded grid: the network's masks are e4m3 of the staged ones.
            self.assertTrue(torch.equal(rec.network[k], round_e4m3(clip["masks"][:, k])), k)
            self.assertTrue(torch.equal(rec.output_pass[k], clip["masks"][:, k]), k)
        # The masks change the frame through mask_embed.
        with torch.no_grad():
            model.p("mask_embed.weight").normal_()
            with_masks = recurrence.unroll(model, clip)[0]
            without = recurrence.unroll(model, dict(clip, masks=torch.zeros_like(clip["masks"])))[0]
        self.assertGreater(float((with_masks - without).abs().max()), 1e-3)

    def test_a_network_without_mask_embed_still_has_its_output_pass_honour_the_masks(self):
        clip = self.clip()
        model = SwinUp(ModelConfig.make("lite"))
        model.init_seeded(3)
        rec = Recorded(model)
        with rec.patch, torch.no_grad():
            recurrence.unroll(model, clip)
        self.assertTrue(all(m is None for m in rec.network))
        for k in range(3):
            self.assertTrue(torch.equal(rec.output_pass[k], clip["masks"][:, k]), k)


def train_quietly(argv):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        train.main(argv)
    return out.getvalue()


def cli():
    """The swinup CLI to check exports with: $SWINUP_CLI, else build/tools/swinup/swinup."""
    path = os.environ.get("SWINUP_CLI") or os.path.join(ROOT, "build", "tools", "swinup", "swinup")
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


class TrainOnlyMaskEmbed(MaskedSequences):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.run_dir = os.path.join(cls.tmp.name, "run")
        cls.log = train_quietly(["--variant", "lite", "--data", cls.masked, "--procedural", "0", "--masks",
                                 "--train-only", "mask_embed.weight", "--max-steps", "3", "--crop", "32",
                                 "--batch", "2", "--frames", "2", "--warmup", "0", "--lr", "1e-2",
                                 "--run-dir", cls.run_dir])
        cls.start = read_checkpoint(os.path.join(ROOT, "python", "checkpoints", "lite.pt"), "lite")
        cls.trained = read_checkpoint(os.path.join(cls.run_dir, "lite.pt"), "lite")

    def test_only_mask_embed_weight_moves(self):
        self.assertIn("training only mask_embed.weight", self.log)
        # The shipped lite checkpoint has its mask_embed trained (2026-12-05): the run continues it.
        self.assertTrue(self.start["masks"])
        self.assertTrue(self.trained["masks"])
        params = self.trained["params"]
        self.assertEqual(set(params), set(self.start["params"]))
        self.assertFalse(torch.equal(params["mask_embed__weight"], self.start["params"]["mask_embed__weight"]))
        for name, t in self.start["params"].items():
            if name == "mask_embed__weight":
                continue
            self.assertEqual(params[name].dtype, t.dtype, name)
            self.assertTrue(torch.equal(params[name].view(torch.int16 if t.dtype == torch.float16 else torch.int32),
                                        t.view(torch.int16 if t.dtype == torch.float16 else torch.int32)),
                            f"{name} changed: it was frozen")
        self.assertGreater(int((params["mask_embed__weight"] != 0).sum()), 0)
        bias = params["mask_embed__bias"]
        self.assertTrue(torch.equal(bias.view(torch.int32), torch.zeros_like(bias).view(torch.int32)))
        self.assertEqual(self.trained["history"][-1]["train_only"], ["mask_embed.weight"])

    def test_export_writes_format_5_with_the_trained_mask_embed(self):
        out = os.path.join(self.tmp.name, "lite.safetensors")
        with contextlib.redirect_stdout(io.StringIO()):
            export.main(["--variant", "lite", "--checkpoint", os.path.join(self.run_dir, "lite.pt"), "--out", out,
                         "--force"])
        cfg, tensors, desc = read_weights(out)
        self.assertTrue(cfg.masks)
        self.assertIn("mask_embed trained", desc)
        self.assertEqual(tensors["mask_embed.weight"].shape, (64, 8))
        self.assertGreater(int((tensors["mask_embed.weight"] != 0).sum()), 0)
        self.assertTrue(np.all(tensors["mask_embed.bias"] == 0))
        decoded = SwinUp(cfg)
        decoded.load_tensors(tensors, fix_scales=True)
        w = self.trained["params"]["mask_embed__weight"].float()
        # e4m3 of the f16 master weight at its power-of-two row scale: within e4m3's half step.
        self.assertLess(float((decoded.p("mask_embed.weight") - w).abs().max()),
                        float(w.abs().max()) / 16 + 1e-12)
        exe = cli()
        if exe is None:
            self.skipTest("no swinup CLI (cmake --build build --target swinup_cli, or SWINUP_CLI): the "
                          "C++ side of the export is not checked here")
        plain = subprocess.run([exe, "eval", self.masked, "--backend", "cpu", "--methods", "swinup", "--no-flip"],
                               capture_output=True, text=True)
        trained = subprocess.run([exe, "eval", self.masked, "--weights", out, "--backend", "cpu", "--methods",
                                  "swinup", "--no-flip"], capture_output=True, text=True)
        self.assertEqual(trained.returncode, 0, trained.stderr)
        self.assertEqual(plain.returncode, 0, plain.stderr)
        row = [line for line in trained.stdout.splitlines() if line.startswith("swinup")]
        self.assertEqual(len(row), 1, trained.stdout)
        # The further trained mask_embed acts in the C++ network: other scores than the shipped weights'.
        self.assertNotEqual(row, [line for line in plain.stdout.splitlines() if line.startswith("swinup")])

    def test_export_refuses_a_nonzero_mask_embed_bias(self):
        record = dict(self.trained)
        record["params"] = dict(record["params"], mask_embed__bias=torch.full((64,), 0.5))
        path = os.path.join(self.tmp.name, "bias.pt")
        write_checkpoint(path, record)
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()) as err:
            export.main(["--variant", "lite", "--checkpoint", path, "--out", os.path.join(self.tmp.name, "b.st")])
        self.assertIn("mask_embed.bias is not zero", err.getvalue())

    def test_a_network_without_mask_embed_refuses_the_checkpoint(self):
        from swinup.training.checkpoint import load_checkpoint
        with self.assertRaisesRegex(ValueError, "mask embedding"):
            load_checkpoint(os.path.join(self.run_dir, "lite.pt"), SwinUp(ModelConfig.make("lite", head_mlp=True)))


class TrainOptions(MaskedSequences):
    def refused(self, argv, message):
        with tempfile.TemporaryDirectory() as d, self.assertRaises(SystemExit), \
                contextlib.redirect_stderr(io.StringIO()) as err, contextlib.redirect_stdout(io.StringIO()):
            train.main(["--variant", "lite", "--data", self.masked, "--max-steps", "1", "--crop", "32",
                        "--run-dir", os.path.join(d, "run")] + argv)
        self.assertIn(message, err.getvalue())

    def test_the_bias_and_unknown_names_are_refused(self):
        self.refused(["--masks", "--train-only", "mask_embed.bias"], "stays exactly zero")
        self.refused(["--masks", "--train-only", "mask_embed.weights"], "no such parameter")
        # From a start without the layer: a weights file whose mask_embed is the zero one of format 5
        # (both shipped checkpoints hold a trained layer since 2026-12-05).
        with tempfile.TemporaryDirectory() as d:
            cfg, tensors, _ = read_weights(os.path.join(ROOT, "weights", "full.safetensors"))
            start = os.path.join(d, "full_zero_mask_embed.safetensors")
            write_weights(start, cfg, dict(tensors, **zero_mask_embed(cfg)), "full, zero mask_embed")
            self.refused(["--variant", "full", "--init-weights", start, "--train-only", "mask_embed.weight"],
                         "needs --masks")

    def test_the_output_pass_trains_with_the_still_shift_asked_for_and_the_masks(self):
        seen = []
        real = recurrence.output_pass

        def recording(*a, **kw):
            seen.append((kw["still_shift"], kw["masks"]))
            return real(*a, **kw)
        for argv, shift in (([], 0.0), (["--still-history-shift", "0.75"], 0.75)):
            seen.clear()
            with tempfile.TemporaryDirectory() as d, mock.patch.object(recurrence, "output_pass", recording):
                train_quietly(["--variant", "lite", "--data", self.masked, "--procedural", "0", "--max-steps", "1",
                               "--crop", "32", "--batch", "1", "--frames", "2", "--run-dir", os.path.join(d, "run")]
                              + argv)
                chunk = read_checkpoint(os.path.join(d, "run", "lite.pt"))["history"][-1]
            self.assertEqual(len(seen), 2)
            self.assertTrue(all(s == shift for s, _ in seen), argv)
            self.assertTrue(all(m is not None and float(m.abs().sum()) > 0 for _, m in seen))
            self.assertEqual(chunk.get("still_history_shift", 0.0), shift)

    def test_without_train_only_everything_trains_but_the_mask_embed_bias(self):
        with tempfile.TemporaryDirectory() as d:
            run = os.path.join(d, "run")
            train_quietly(["--variant", "lite", "--data", self.masked, "--procedural", "0", "--masks",
                           "--max-steps", "2", "--crop", "32", "--batch", "1", "--frames", "2", "--warmup", "0",
                           "--run-dir", run])
            params = read_checkpoint(os.path.join(run, "lite.pt"))["params"]
        start = read_checkpoint(os.path.join(ROOT, "python", "checkpoints", "lite.pt"))["params"]
        self.assertFalse(torch.equal(params["embed__weight"], start["embed__weight"]))
        self.assertGreater(int((params["mask_embed__weight"] != 0).sum()), 0)
        self.assertTrue(torch.equal(params["mask_embed__bias"], torch.zeros(64)))


class TrainedParameters(unittest.TestCase):
    def test_an_optimiser_state_of_other_trained_parameters_is_not_continued(self):
        from swinup.training.optimizer import load_optimizer_state, parameter_groups, save_optimizer_state
        from swinup.training.trained_parameters import freeze_untrained
        model = SwinUp(ModelConfig.make("lite", masks=True))
        self.assertEqual(freeze_untrained(model, ["mask_embed.weight"]), ["mask_embed.weight"])
        opt = torch.optim.AdamW(parameter_groups(model))
        self.assertEqual([p for g in opt.param_groups for p in g["params"]], [model.p("mask_embed.weight")])
        with tempfile.TemporaryDirectory() as d:
            side = os.path.join(d, "opt.pt")
            save_optimizer_state(side, model, opt, 7)
            self.assertTrue(load_optimizer_state(side, model, opt, 7))
            trained = freeze_untrained(model)
            self.assertNotIn("mask_embed.bias", trained)
            self.assertIn("embed.weight", trained)
            self.assertFalse(load_optimizer_state(side, model, torch.optim.AdamW(parameter_groups(model)), 7))

    def test_a_weights_file_start_has_mask_embed_only_when_it_does_something(self):
        from swinup.training.start import has_mask_embed
        # Both shipped mask_embed layers are trained (2026-12-05); the zero layer of format 5 is not one.
        self.assertTrue(has_mask_embed(read_weights(os.path.join(ROOT, "weights", "lite.safetensors"))[1]))
        cfg, tensors, _ = read_weights(os.path.join(ROOT, "weights", "full.safetensors"))
        self.assertTrue(has_mask_embed(tensors))
        self.assertFalse(has_mask_embed(dict(tensors, **zero_mask_embed(cfg))))


class MaskedDataInTheHistory(unittest.TestCase):
    def test_scenes_with_particles_count_as_their_scene_and_the_mask_embed_as_trained(self):
        from swinup.training.history import data_name, describe_training
        self.assertEqual(data_name("/data/spinner_particles_own_2x/"), "spinner_particles")
        chunk = {"date": "2026-12-05", "device": "cpu", "steps": 3, "minutes": 1.0, "masks": True,
                 "data": ["fence_particles", "particles", "showcase", "spinner_particles"],
                 "train_only": ["mask_embed.weight"]}
        text = describe_training("lite", 5, [chunk])
        self.assertIn("+ mask_embed trained", text)
        self.assertIn("data 3 procedural scenes + particles,", text)
        # A chunk that trained other parameters only did not train mask_embed.
        other = dict(chunk, train_only=["head.linear.weight"])
        self.assertNotIn("mask_embed trained", describe_training("lite", 5, [other]))


if __name__ == "__main__":
    unittest.main()
