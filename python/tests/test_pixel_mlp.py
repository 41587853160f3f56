"""The pixel-level MLP experiment (swinup/pixel_mlp.py): it starts as exactly lite without it, it
trains from there, and a checkpoint that holds it cannot reach a weights file, a checkpoint mean or
a model without it; full refuses it."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from swinup import export, experiments, train  # noqa: E402
from swinup.agreement import staged_procedural_frame  # noqa: E402
from swinup.average_checkpoints import average_checkpoints  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.spec import ModelConfig  # noqa: E402
from swinup.weights_io import read_weights  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def committed_lite(exact):
    model = SwinUp(ModelConfig.make("lite"), exact=exact)
    _, tensors, _ = read_weights(os.path.join(ROOT, "weights", "lite.safetensors"))
    model.load_tensors(tensors, fix_scales=True)
    return model


class PixelMLPTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.staged = staged_procedural_frame(1, 64, torch.device("cpu"))

    def test_untrained_mlp_is_lite_without_it(self):
        for exact in (False, True):
            model = committed_lite(exact)
            with torch.no_grad():
                plain = model(self.staged, 0)
                experiments.attach(model, "pixel_mlp", seed=3)
                with_mlp = model(self.staged, 0)
            self.assertTrue(torch.equal(plain, with_mlp), f"exact={exact}")

    def test_it_trains_from_the_zero_start(self):
        model = committed_lite(False)
        model.requires_grad_(False)
        experiments.attach(model, "pixel_mlp", seed=3)
        mlp = model.pixel_mlp
        with torch.no_grad():
            before = model(self.staged, 0)
        target = before + torch.randn(before.shape, generator=torch.Generator().manual_seed(1))
        opt = torch.optim.Adam(mlp.parameters(), lr=1e-2)
        loss = (model(self.staged, 0) - target).square().mean()
        loss.backward()
        self.assertGreater(float(mlp.w2.grad.abs().max()), 0.0)  # the zero layer gets a gradient
        self.assertEqual(float(mlp.w1.grad.abs().max()), 0.0)     # and the first none through it yet
        opt.step()
        opt.zero_grad()
        for _ in range(3):
            loss = (model(self.staged, 0) - target).square().mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
        with torch.no_grad():
            after = model(self.staged, 0)
        self.assertGreater(float((after - before).abs().max()), 1e-3)

    def test_its_parameters_train_at_their_own_rate(self):
        model = committed_lite(False)
        plain = train.parameter_groups(model, 10.0)
        self.assertEqual(len(plain), 1)  # nothing attached: one group at the network's rate
        experiments.attach(model, "pixel_mlp", seed=3)
        groups = train.parameter_groups(model, 10.0)
        self.assertEqual([g["lr_scale"] for g in groups], [1.0, 10.0])
        self.assertEqual({id(p) for p in groups[1]["params"]}, {id(p) for p in model.pixel_mlp.parameters()})
        network = {id(p) for p in groups[0]["params"]}
        self.assertEqual(network, {id(p) for p in plain[0]["params"]})  # every other parameter, once
        self.assertEqual(len(network) + len(groups[1]["params"]), len(list(model.parameters())))

    def test_checkpoints_holding_it_stay_out_of_weights_files(self):
        model = SwinUp(ModelConfig.make("lite"))
        model.init_seeded(1)
        experiments.attach(model, "pixel_mlp", seed=2)
        with torch.no_grad():
            model.pixel_mlp.w2.fill_(0.25)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "lite.pt")
            train.save_checkpoint(path, model, 7, [])
            with self.assertRaisesRegex(ValueError, "pixel-level MLP"):
                train.load_checkpoint(path, SwinUp(ModelConfig.make("lite")))
            restored = SwinUp(ModelConfig.make("lite"))
            experiments.attach(restored, "pixel_mlp", seed=9)
            self.assertEqual(train.load_checkpoint(path, restored)[0], 7)
            self.assertTrue(torch.equal(restored.pixel_mlp.w1, model.pixel_mlp.w1))
            self.assertTrue(torch.equal(restored.pixel_mlp.w2, model.pixel_mlp.w2))
            out = os.path.join(d, "lite.safetensors")
            with contextlib.redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
                export.main(["--variant", "lite", "--checkpoint", path, "--out", out])
            self.assertIn("pixel-level MLP", err.getvalue())
            self.assertFalse(os.path.exists(out))
            with self.assertRaisesRegex(ValueError, "pixel-level MLP"):
                average_checkpoints([path, path])

    def test_full_refuses_it(self):
        with contextlib.redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
            train.main(["--variant", "full", "--pixel-mlp", "--max-steps", "1"])
        self.assertIn("--pixel-mlp is lite's", err.getvalue())


if __name__ == "__main__":
    unittest.main()
