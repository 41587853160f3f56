"""The MLP experiment pixel_mlp.py (a ReLU layer in lite's skip0; the head MLP, once an experiment
too, is part of the network now: test_head_mlp.py). It starts as exactly the network without it,
trains from its zero start, trains at its own learning rate, and a checkpoint that holds it cannot
reach a weights file, a checkpoint mean or a model without it; full refuses it."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from swinup import export, train  # noqa: E402
from swinup.research import experiments  # noqa: E402
from swinup.training.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402
from swinup.training.optimizer import parameter_groups  # noqa: E402
from swinup.agreement import staged_procedural_frame  # noqa: E402
from swinup.average_checkpoints import average_checkpoints  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.spec import ModelConfig  # noqa: E402
from swinup.weights_io import read_weights  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def committed(variant, exact):
    cfg, tensors, _ = read_weights(os.path.join(ROOT, "weights", f"{variant}.safetensors"))
    model = SwinUp(cfg, exact=exact)  # with the head MLP when the shipped network has it
    model.load_tensors(tensors, fix_scales=True)
    return model


def committed_lite(exact):
    return committed("lite", exact)


# experiment: (variants it attaches to, its zero-started last weight, its first weight)
MLPS = {"pixel_mlp": (("lite",), "w2", "w1")}


class MLPExperimentsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.staged = staged_procedural_frame(1, 64, torch.device("cpu"))

    def test_untrained_mlp_is_the_network_without_it(self):
        for name, (variants, _, _) in MLPS.items():
            for variant in variants:
                for exact in (False, True):
                    model = committed(variant, exact)
                    with torch.no_grad():
                        plain = model(self.staged, 1)
                        experiments.attach(model, name, seed=3)
                        with_mlp = model(self.staged, 1)
                    self.assertTrue(torch.equal(plain, with_mlp), f"{name} {variant} exact={exact}")

    def test_it_trains_from_the_zero_start(self):
        for name, (_, last, first) in MLPS.items():
            with self.subTest(name):
                model = committed_lite(False)
                model.requires_grad_(False)
                experiments.attach(model, name, seed=3)
                mlp = getattr(model, name)
                with torch.no_grad():
                    before = model(self.staged, 0)
                target = before + torch.randn(before.shape, generator=torch.Generator().manual_seed(1))
                opt = torch.optim.Adam(mlp.parameters(), lr=1e-2)
                loss = (model(self.staged, 0) - target).square().mean()
                loss.backward()
                self.assertGreater(float(getattr(mlp, last).grad.abs().max()), 0.0)  # the zero layer
                self.assertEqual(float(getattr(mlp, first).grad.abs().max()), 0.0)   # none through it yet
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
        model = SwinUp(ModelConfig.make("lite"))  # without the head MLP (a group of its own too)
        model.init_seeded(1)
        plain = parameter_groups(model, 10.0)
        self.assertEqual(len(plain), 1)  # nothing attached: one group at the network's rate
        experiments.attach(model, "pixel_mlp", seed=3)
        groups = parameter_groups(model, 10.0)
        self.assertEqual([g["lr_scale"] for g in groups], [1.0, 10.0])
        self.assertEqual({id(p) for p in groups[1]["params"]}, {id(p) for p in model.pixel_mlp.parameters()})
        network = {id(p) for p in groups[0]["params"]}
        self.assertEqual(network, {id(p) for p in plain[0]["params"]})  # every other parameter, once
        self.assertEqual(len(network) + len(groups[1]["params"]), len(list(model.parameters())))

    def test_checkpoints_holding_it_stay_out_of_weights_files(self):
        for name in MLPS:
            with self.subTest(name):
                self.check_refusals(name, experiments.describe(name).split(" experiment")[0][4:])

    def check_refusals(self, name, what):
        model = SwinUp(ModelConfig.make("lite"))
        model.init_seeded(1)
        experiments.attach(model, name, seed=2)
        with torch.no_grad():
            for p in getattr(model, name).parameters():
                p.fill_(0.25)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "lite.pt")
            save_checkpoint(path, model, 7, [])
            with self.assertRaisesRegex(ValueError, what):
                load_checkpoint(path, SwinUp(ModelConfig.make("lite")))
            restored = SwinUp(ModelConfig.make("lite"))
            experiments.attach(restored, name, seed=9)
            self.assertEqual(load_checkpoint(path, restored)[0], 7)
            for (k, a), b in zip(getattr(model, name).state_dict().items(),
                                 getattr(restored, name).state_dict().values()):
                self.assertTrue(torch.equal(a, b), k)
            out = os.path.join(d, "lite.safetensors")
            with contextlib.redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
                export.main(["--variant", "lite", "--checkpoint", path, "--out", out])
            self.assertIn(what, err.getvalue())
            self.assertFalse(os.path.exists(out))
            with self.assertRaisesRegex(ValueError, what):
                average_checkpoints([path, path])

    def test_full_refuses_it(self):
        with contextlib.redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
            train.main(["--variant", "full", "--pixel-mlp", "--max-steps", "1"])
        self.assertIn("--pixel-mlp is lite's", err.getvalue())


if __name__ == "__main__":
    unittest.main()
