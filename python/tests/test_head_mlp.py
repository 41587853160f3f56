"""The head MLP as part of the network (docs/model-spec.md, "The head MLP"; ModelConfig.head_mlp):
its zero start is exactly the network without it (both variants, both modes); it trains, and
touches only head outputs 0-7; --experiment-lr-scale 0 holds a fitted one fixed while the rest
trains; checkpoints and weights files carry it (format 3), a model without it refuses one that
has it, and a version-2 weights file reads as a network without it."""
import json
import os
import sys
import tempfile
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from swinup import export  # noqa: E402
from swinup.training.checkpoint import load_checkpoint, model_for_checkpoint, read_checkpoint, save_checkpoint  # noqa: E402
from swinup.training.optimizer import parameter_groups  # noqa: E402
from swinup.agreement import staged_procedural_frame  # noqa: E402
from swinup.model import HEAD_MLP_PREFIX, SwinUp  # noqa: E402
from swinup.spec import ModelConfig, model_tensors  # noqa: E402
from weights_file import metadata, set_format_version  # noqa: E402
from swinup.weights_io import WeightsError, read_weights, write_weights  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def committed(variant, exact, head_mlp):
    """The shipped variant's network without its head MLP (when it has one) and without its mask
    embedding (lite's is trained), with a zero-started head MLP when asked for."""
    model = SwinUp(ModelConfig.make(variant, head_mlp=head_mlp), exact=exact)
    if head_mlp:
        model.init_head_mlp(3)
    _, tensors, _ = read_weights(os.path.join(ROOT, "weights", f"{variant}.safetensors"))
    tensors = {k: v for k, v in tensors.items() if not k.startswith(("head_mlp.", "mask_embed."))}
    model.load_tensors(tensors, fix_scales=True)  # the MLP keeps its start
    return model


def mlp_params(model):
    return {k: p for k, p in model.params.items() if k.startswith(HEAD_MLP_PREFIX)}


class HeadMlpTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.staged = staged_procedural_frame(1, 64, torch.device("cpu"))

    def test_tensors_follow_the_head(self):
        names = [t.name for t in model_tensors(ModelConfig.make("lite", head_mlp=True))]
        plain = [t.name for t in model_tensors(ModelConfig.make("lite"))]
        self.assertEqual(names[:len(plain)], plain)
        self.assertEqual(names[len(plain):], [f"head_mlp.fc{i}.{p}" for i in (1, 2, 3)
                                              for p in ("weight", "scale", "bias")])
        shapes = {t.name: t.shape for t in model_tensors(ModelConfig.make("full", head_mlp=True))}
        self.assertEqual((shapes["head_mlp.fc1.weight"], shapes["head_mlp.fc2.weight"],
                          shapes["head_mlp.fc3.weight"]), ((64, 48), (64, 64), (8, 64)))

    def test_zero_start_is_the_network_without_it(self):
        for variant in ("lite", "full"):
            for exact in (False, True):
                with torch.no_grad():
                    plain = committed(variant, exact, False)(self.staged, 1)
                    with_mlp = committed(variant, exact, True)(self.staged, 1)
                self.assertTrue(torch.equal(plain, with_mlp), f"{variant} exact={exact}")

    def test_it_changes_outputs_0_to_7_only(self):
        model = committed("lite", True, True)
        with torch.no_grad():
            before = model(self.staged, 0)
            model.p("head_mlp.fc3.weight").normal_(0.0, 0.05, generator=torch.Generator().manual_seed(2))
            model.p("head_mlp.fc3.bias").fill_(0.01)
            after = model(self.staged, 0)
        self.assertTrue(torch.equal(after[..., 8:], before[..., 8:]))
        self.assertGreater(float((after[..., :8] - before[..., :8]).abs().min()), 0.0)

    def test_a_zero_rate_holds_a_fitted_head_mlp_fixed(self):
        model = committed("lite", False, True)
        with torch.no_grad():
            model.p("head_mlp.fc3.weight").normal_(0.0, 0.05, generator=torch.Generator().manual_seed(2))
        fitted = {k: v.detach().clone() for k, v in mlp_params(model).items()}
        network = model.p("head.linear.bias").detach().clone()
        groups = parameter_groups(model, 0.0)
        self.assertEqual({id(p) for p in groups[1]["params"]}, {id(p) for p in mlp_params(model).values()})
        opt = torch.optim.AdamW(groups, lr=1e-2, weight_decay=0.0)
        for g in opt.param_groups:
            g["lr"] = 1e-2 * g["lr_scale"]  # as train.py's schedule sets it every step
        before = model(self.staged, 0).detach()
        loss = (model(self.staged, 0) - before - 1.0).square().mean()
        loss.backward()
        self.assertGreater(float(model.p("head_mlp.fc3.weight").grad.abs().max()), 0.0)  # a gradient ...
        opt.step()
        for k, v in mlp_params(model).items():  # ... and it does not move
            self.assertTrue(torch.equal(v, fitted[k]), k)
        self.assertGreater(float((model.p("head.linear.bias") - network).abs().max()), 0.0)

    def test_checkpoints_and_weights_files_carry_it(self):
        model = committed("lite", False, True)
        with torch.no_grad():
            model.p("head_mlp.fc3.weight").normal_(0.0, 0.05, generator=torch.Generator().manual_seed(4))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "lite.pt")
            save_checkpoint(path, model, 5, [])
            self.assertTrue(read_checkpoint(path)["head_mlp"])
            with self.assertRaisesRegex(ValueError, "head MLP"):
                load_checkpoint(path, SwinUp(ModelConfig.make("lite")))
            restored = model_for_checkpoint(path)
            self.assertTrue(restored.cfg.head_mlp)
            for k, p in mlp_params(model).items():
                self.assertTrue(torch.equal(p, restored.params[k]), k)  # f32 in the checkpoint: exact
            out = os.path.join(d, "lite.safetensors")
            export.main(["--variant", "lite", "--checkpoint", path, "--out", out])
            cfg, tensors, _ = read_weights(out)
            self.assertTrue(cfg.head_mlp)
            meta = metadata(out)
            self.assertEqual(meta["format_version"], "5")
            self.assertTrue(json.loads(meta["config"])["head_mlp"])
            again = SwinUp(cfg, exact=True)
            again.load_tensors(tensors, fix_scales=True)
            exported = again.export_tensors()
            for name, a in tensors.items():
                self.assertTrue((exported[name] == a).all(), name)  # the file round-trips code for code

    def test_a_shift_raises_only_the_history_logit_of_a_fitted_checkpoint(self):
        sys.path.insert(0, os.path.join(ROOT, "python", "scripts", "research"))
        import fit_head_mlp
        from swinup.output_pass import ALPHA_LOGIT
        with tempfile.TemporaryDirectory() as d:
            fitted, plain, out = (os.path.join(d, n) for n in ("fitted.pt", "plain.pt", "shifted.pt"))
            save_checkpoint(fitted, committed("lite", False, True), 5, [])
            save_checkpoint(plain, committed("lite", False, False), 5, [])
            args = type("Args", (), {"checkpoint": fitted, "by": 0.25, "out": out})
            fit_head_mlp.shift(args)
            a, b = read_checkpoint(fitted), read_checkpoint(out)
            self.assertTrue(b["head_mlp"])
            self.assertEqual(b["history"][-1]["history_logit_shift"], 0.25)
            for k, p in a["params"].items():
                q = b["params"][k]
                if k == "head__linear__bias":
                    d_bias = q - p
                    self.assertAlmostEqual(float(d_bias[ALPHA_LOGIT]), 0.25, places=6)
                    d_bias[ALPHA_LOGIT] = 0.0
                    self.assertEqual(float(d_bias.abs().max()), 0.0)
                else:
                    self.assertTrue(torch.equal(p, q), k)
            with self.assertRaisesRegex(SystemExit, "no head MLP"):
                fit_head_mlp.shift(type("Args", (), {"checkpoint": plain, "by": 0.25, "out": out}))

    def test_a_network_with_it_starts_from_a_checkpoint_without_it(self):
        plain = committed("lite", False, False)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "lite.pt")
            save_checkpoint(path, plain, 3, [])
            model = SwinUp(ModelConfig.make("lite", head_mlp=True))
            model.init_head_mlp(1)
            self.assertEqual(load_checkpoint(path, model)[0], 3)
            with torch.no_grad():
                self.assertTrue(torch.equal(model(self.staged, 0), model_for_checkpoint(path)(self.staged, 0)))

    def test_a_network_without_it_refuses_a_file_with_it(self):
        model = committed("lite", False, True)
        with self.assertRaisesRegex(ValueError, "head_mlp.fc1"):
            SwinUp(ModelConfig.make("lite")).load_tensors(model.export_tensors(), fix_scales=True)

    def test_version_2_files_read_as_the_network_without_it(self):
        _, tensors, desc = read_weights(os.path.join(ROOT, "weights", "full.safetensors"))
        with tempfile.TemporaryDirectory() as d:
            v2 = os.path.join(d, "v2.safetensors")
            write_weights(v2, ModelConfig.make("full"), tensors, desc, version=2)
            self.assertFalse(read_weights(v2)[0].head_mlp)
            bad = os.path.join(d, "bad.safetensors")
            model = committed("lite", False, True)
            with self.assertRaisesRegex(ValueError, "format 2 has no head MLP"):
                write_weights(bad, model.cfg, model.export_tensors(), desc, version=2)
            write_weights(bad, model.cfg, model.export_tensors(), desc)
            set_format_version(bad, 2)
            with self.assertRaisesRegex(WeightsError, "head_mlp"):
                read_weights(bad)


if __name__ == "__main__":
    unittest.main()
