"""A run cut into chunks trains exactly as one long run: with --optimizer-state (the moments and the
float32 master weights), --schedule-steps (the learning rate by the run's steps, not each chunk's)
and the data drawn per step (training/batches.step_seed), two chunks of N steps each (the second
--resume'd) end with the weights, moments and step counts of one chunk of 2N steps, bit for bit.
Runs on the CPU: the 2.5D-layer generator, 32x32 crops, lite from the shipped weights file."""
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
from swinup.training.batches import step_seed  # noqa: E402
from swinup.training.schedule import learning_rate_by_step  # noqa: E402

WEIGHTS = shipped.weights("lite")
N = 2  # steps a chunk


class ExactResume(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def run_chunk(self, run, steps, resume, extra=()):
        start = ["--resume", run] if resume else ["--run-dir", run, "--init-weights", WEIGHTS]
        argv = ["--variant", "lite", "--procedural", "1", "--batch", "1", "--crop", "32", "--frames", "2",
                "--burn-in", "1", "--augment", "--max-steps", str(steps), "--warmup", "3", "--decay",
                "--lr", "2e-3", "--optimizer-state", os.path.join(run, "lite.opt"), *start, *extra]
        with contextlib.redirect_stdout(io.StringIO()):
            train.main(argv)
        return torch.load(os.path.join(run, "lite.opt"))

    def assert_same_state(self, a, b):
        self.assertEqual(a["step"], b["step"])
        for name in a["params"]:
            self.assertTrue(torch.equal(a["params"][name], b["params"][name]), name)
        sa, sb = a["optimizer"]["state"], b["optimizer"]["state"]
        self.assertEqual(sorted(sa), sorted(sb))
        for k in sa:
            for what in ("step", "exp_avg", "exp_avg_sq"):
                self.assertTrue(torch.equal(torch.as_tensor(sa[k][what]), torch.as_tensor(sb[k][what])), (k, what))

    def test_two_chunks_of_n_steps_equal_one_of_2n(self):
        schedule = ["--schedule-steps", str(2 * N)]
        one = self.run_chunk(os.path.join(self.dir, "one"), 2 * N, False, schedule)
        cut = os.path.join(self.dir, "cut")
        self.run_chunk(cut, N, False, schedule)
        two = self.run_chunk(cut, N, True, schedule)
        self.assertEqual(two["step"], 2 * N)
        self.assert_same_state(one, two)
        # The checkpoints (f16 weights of the same master weights) agree too.
        a = torch.load(os.path.join(self.dir, "one", "lite.pt"))["params"]
        b = torch.load(os.path.join(cut, "lite.pt"))["params"]
        for name in a:
            self.assertTrue(torch.equal(a[name], b[name]), name)

    def test_without_the_step_schedule_the_chunks_differ(self):
        # The chunk schedule warms up again in the second chunk: the test above can fail.
        one = self.run_chunk(os.path.join(self.dir, "one"), 2 * N, False)
        cut = os.path.join(self.dir, "cut")
        self.run_chunk(cut, N, False)
        two = self.run_chunk(cut, N, True)
        differs = any(not torch.equal(one["params"][n], two["params"][n]) for n in one["params"])
        self.assertTrue(differs)


class StepSchedule(unittest.TestCase):
    def test_the_rate_depends_on_the_runs_step_alone(self):
        self.assertAlmostEqual(learning_rate_by_step(1.0, 4, False, 10, 0), 0.25)
        self.assertAlmostEqual(learning_rate_by_step(1.0, 4, False, 10, 7), 1.0)
        self.assertAlmostEqual(learning_rate_by_step(1.0, 0, True, 10, 10), 0.05)
        self.assertAlmostEqual(learning_rate_by_step(1.0, 0, True, 10, 5), 0.05 + 0.95 * 0.5)

    def test_each_step_draws_its_own_stream(self):
        self.assertNotEqual(step_seed(1, 0, 5), step_seed(1, 0, 6))
        self.assertNotEqual(step_seed(1, 0, 5), step_seed(1, 1, 5))
        self.assertNotEqual(step_seed(1, 0, 5), step_seed(2, 0, 5))


if __name__ == "__main__":
    unittest.main()
