"""fit_head_mlp.py: the head MLP fitted to what the oracle adds to the network's channels 4-7 keeps
its outputs 0-3 (the recurrent features) at zero, gets close to an addition that a head MLP can
make, and is written into a copy of a training checkpoint that the network then loads."""
import importlib.util
import os
import sys
import tempfile
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, ".."))
from swinup.model import SwinUp  # noqa: E402
from swinup.spec import ModelConfig  # noqa: E402
from swinup.training.checkpoint import model_for_checkpoint, read_checkpoint  # noqa: E402

_spec = importlib.util.spec_from_file_location("fit_head_mlp", os.path.join(HERE, "..", "scripts", "research", "fit_head_mlp.py"))
fit_head_mlp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fit_head_mlp)


def features(n, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, 48, generator=g)


def reachable_addition(x):
    """An addition a head MLP can make: another head MLP's outputs 4-7 (with its own seed)."""
    target = SwinUp(ModelConfig.make("lite", head_mlp=True))
    target.init_head_mlp(5)
    with torch.no_grad():
        w3 = target.p("head_mlp.fc3.weight")
        w3.copy_(torch.randn(w3.shape, generator=torch.Generator().manual_seed(6)) * 0.1)
        return fit_head_mlp._forward(target, x)[:, fit_head_mlp.KERNEL]


class FitHeadTest(unittest.TestCase):
    def test_fits_a_reachable_addition_and_leaves_the_recurrent_outputs_alone(self):
        x = features(4096, 1)
        add = reachable_addition(x)
        head, left = fit_head_mlp.fit_head(x, add, steps=300, batch=1024)
        self.assertLess(left, 0.3)  # from 1.0 at the zero start
        w3, b3 = head.p("head_mlp.fc3.weight"), head.p("head_mlp.fc3.bias")
        self.assertTrue(torch.equal(w3[:4], torch.zeros_like(w3[:4])))
        self.assertTrue(torch.equal(b3[:4], torch.zeros(4)))
        with torch.no_grad():
            self.assertTrue(torch.equal(fit_head_mlp._forward(head, x)[:, :4], torch.zeros(4096, 4)))

    def test_fit_writes_a_checkpoint_the_network_loads(self):
        start = os.path.join(ROOT, "python", "checkpoints", "lite.pt")
        with tempfile.TemporaryDirectory() as tmp:
            files = []
            for i in range(2):  # two sequences' worth of records
                x = features(512, 10 + i)
                path = os.path.join(tmp, f"f{i}.pt")
                torch.save({"sequence": f"seq{i}", "variant": "lite", "x": x, "add": reachable_addition(x),
                            "oracle": [0.0, 0.0]}, path)
                files.append(path)
            out = os.path.join(tmp, "fitted.pt")
            sys.argv = ["fit_head_mlp.py", "fit", *files, "--checkpoint", start, "--out", out,
                        "--steps", "20", "--batch", "256"]
            fit_head_mlp.main()
            ck = read_checkpoint(out, "lite")
            self.assertTrue(ck["head_mlp"])
            note = ck["history"][-1]["head_mlp_fit"]
            self.assertEqual((note["sequences"], note["pixels"], note["steps"]), (["seq0", "seq1"], 1024, 20))
            model = model_for_checkpoint(out)
            self.assertTrue(model.cfg.head_mlp)
            w3 = model.p("head_mlp.fc3.weight")
            self.assertTrue(torch.equal(w3, ck["params"]["head_mlp__fc3__weight"]))
            self.assertGreater(float(w3[4:].abs().sum()), 0.0)
            # The rest of the network is the start's, untouched (the start's own head MLP, when it
            # has one, is replaced by the fit).
            self.assertTrue(all(torch.equal(ck["params"][k], v)
                                for k, v in read_checkpoint(start, "lite")["params"].items()
                                if not k.startswith("head_mlp__")))

    def test_history_logit_shift_moves_only_the_history_weight_bias(self):
        start = os.path.join(ROOT, "python", "checkpoints", "lite.pt")
        with tempfile.TemporaryDirectory() as tmp:
            x = features(256, 3)
            path = os.path.join(tmp, "f.pt")
            torch.save({"sequence": "s", "variant": "lite", "x": x, "add": reachable_addition(x),
                        "oracle": [0.0, 0.0]}, path)
            out = os.path.join(tmp, "shifted.pt")
            sys.argv = ["fit_head_mlp.py", "fit", path, "--checkpoint", start, "--out", out, "--steps", "2",
                        "--batch", "64", "--history-logit-shift", "0.25"]
            fit_head_mlp.main()
            got = read_checkpoint(out, "lite")["params"]
            want = read_checkpoint(start, "lite")["params"]
            moved = got["head__linear__bias"] - want["head__linear__bias"]
            self.assertAlmostEqual(float(moved[fit_head_mlp.ALPHA_LOGIT]), 0.25, places=6)
            moved[fit_head_mlp.ALPHA_LOGIT] = 0.0
            self.assertEqual(float(moved.abs().max()), 0.0)
            self.assertTrue(all(torch.equal(got[k], v) for k, v in want.items()
                                if k != "head__linear__bias" and not k.startswith("head_mlp__")))
            self.assertEqual(read_checkpoint(out, "lite")["history"][-1]["head_mlp_fit"]["history_logit_shift"], 0.25)

    def test_fit_refuses_mixed_variants(self):
        with tempfile.TemporaryDirectory() as tmp:
            files = []
            for i, variant in enumerate(("lite", "full")):
                path = os.path.join(tmp, f"f{i}.pt")
                torch.save({"sequence": "s", "variant": variant, "x": features(8, i), "add": torch.zeros(8, 4),
                            "oracle": [0.0, 0.0]}, path)
                files.append(path)
            sys.argv = ["fit_head_mlp.py", "fit", *files, "--checkpoint", "x.pt", "--out", os.path.join(tmp, "o.pt")]
            with self.assertRaises(SystemExit) as caught:
                fit_head_mlp.main()
            self.assertIn("different variants", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
