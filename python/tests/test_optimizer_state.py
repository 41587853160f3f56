"""train.py --optimizer-state: chunks chained on one machine continue the optimiser (its moments
and step count) and the float32 master weights; a side file of another step is not used, a
foreign file is refused by name. Runs two-step trainings on the CPU (2.5D layers, 32x32 crops): the
first a new run in a temporary run folder, the later ones continuing it (--resume)."""
import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from swinup import shipped, train  # noqa: E402

WEIGHTS = shipped.weights("lite")


def adam_steps(side):
    return {int(s["step"]) for s in side["optimizer"]["state"].values()}


class OptimizerState(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.ckpt = os.path.join(self.dir, "lite.pt")
        self.side = os.path.join(self.dir, "lite.opt")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def chunk(self, side=None, warmup=1, extra=()):
        # The first chunk starts from the shipped weights file (step 0), the later ones continue it.
        run = (["--resume", self.dir] if os.path.exists(self.ckpt)
               else ["--run-dir", self.dir, "--init-weights", WEIGHTS])
        argv = ["--variant", "lite", "--procedural", "1", "--batch", "1", "--crop", "32", "--frames", "2",
                "--max-steps", "2", "--warmup", str(warmup), *run,
                "--optimizer-state", side or self.side, *extra]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            train.main(argv)
        return out.getvalue()

    def test_chained_chunks_continue_the_optimiser(self):
        self.chunk()
        side = torch.load(self.side)
        self.assertEqual(side["step"], 2)
        self.assertEqual(adam_steps(side), {2})
        # The side file's float32 weights are the checkpoint's before its f16 rounding.
        ck = torch.load(self.ckpt)
        for name, p in side["params"].items():
            self.assertEqual(p.dtype, torch.float32)
            self.assertTrue(torch.equal(p.to(ck["params"][name].dtype), ck["params"][name]), name)
        first = self.side + ".step2"
        shutil.copy(self.side, first)

        log = self.chunk(warmup=0)
        self.assertIn("continued", log)
        side = torch.load(self.side)
        self.assertEqual(side["step"], 4)
        self.assertEqual(adam_steps(side), {4})

        # The step-2 file does not belong to the step-4 checkpoint: fresh moments.
        log = self.chunk(side=first)
        self.assertIn("starting with fresh moments", log)
        self.assertEqual(adam_steps(torch.load(first)), {2})
        self.assertEqual(torch.load(first)["step"], 6)

    def test_an_experiment_added_or_rescaled_between_chunks(self):
        self.chunk()
        # The side file has one parameter group, this run two: fresh moments, not a crash.
        log = self.chunk(warmup=0, extra=["--pixel-mlp", "--experiment-lr-scale", "10"])
        self.assertIn("starting with fresh moments", log)
        # The shipped lite has the head MLP (trained with the experiments' rate, like them).
        self.assertEqual(torch.load(self.side)["experiments"], ["head_mlp", "pixel_mlp"])
        # The same experiments: continued, at this run's multiple of the learning rate.
        log = self.chunk(warmup=0, extra=["--pixel-mlp", "--experiment-lr-scale", "5"])
        self.assertIn("continued", log)
        groups = torch.load(self.side)["optimizer"]["param_groups"]
        self.assertEqual([g["lr_scale"] for g in groups], [1.0, 5.0])

    def test_a_foreign_file_is_refused(self):
        self.chunk()
        foreign = os.path.join(self.dir, "copy.pt")
        shutil.copy(self.ckpt, foreign)
        with self.assertRaisesRegex(ValueError, "not a swinup optimiser-state file"):
            self.chunk(side=foreign)

    def test_the_checkpoint_itself_is_refused(self):
        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
            self.chunk(side=self.ckpt)
        self.assertFalse(os.path.exists(self.ckpt))


if __name__ == "__main__":
    unittest.main()
