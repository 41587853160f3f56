"""device_arms.sh's memory plan (gpu_jobs.sh, train_gib): the GiB a training's ranks take on a GPU,
from the measured per-rank model, and the refusal, before anything runs, of arms that cannot fit
on their GPU together (a call on 2026-12-02 planned 110 GiB of the H200's 140 by peak
allocations alone, and lost its control arm to an out-of-memory error)."""
import os
import subprocess
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts")
ROOT = os.path.dirname(os.path.dirname(SCRIPTS))
H200_MIB = 143771  # nvidia-smi's memory.total on the H200


def train_gib(*args):
    out = subprocess.run(["bash", "-c", f'source "{SCRIPTS}/gpu_jobs.sh"; train_gib "$@"', "x", *args],
                         check=True, capture_output=True, text=True)
    return int(out.stdout)


class TrainGibTest(unittest.TestCase):
    def test_measured_ranks(self):
        # Peaks measured on the H200 plus 5 GiB a rank beyond them (context and allocator cache).
        self.assertEqual(train_gib("lite", "1", "--batch", "8", "--crop", "128"), 24)   # peak 19
        self.assertEqual(train_gib("full", "1", "--batch", "6", "--crop", "128"), 27)   # peak 21
        self.assertEqual(train_gib("full", "1", "--batch", "14", "--crop", "128"), 43)  # peak 38

    def test_ranks_crop_and_last_option_count(self):
        one = train_gib("lite", "1", "--batch", "8", "--crop", "128")
        self.assertEqual(train_gib("lite", "3", "--batch", "8", "--crop", "128"), 3 * one)
        # A quarter of the area: the per-clip part shrinks, the fixed part stays.
        self.assertEqual(train_gib("lite", "1", "--batch", "8", "--crop", "64"), 14)
        # COMMON comes first, the arm's options after: the last --batch is the one train.py uses.
        self.assertEqual(train_gib("lite", "1", "--batch", "16", "--crop", "128", "--batch", "8"), one)
        self.assertEqual(train_gib("lite", "1"), train_gib("lite", "1", "--batch", "16", "--crop", "96"))

    def test_experiments_add_a_gib_a_rank(self):
        base = train_gib("lite", "2", "--batch", "8", "--crop", "128")
        self.assertEqual(train_gib("lite", "2", "--batch", "8", "--crop", "128", "--head-mlp"), base + 2)


class RefusalTest(unittest.TestCase):
    def run_arms(self, *arms):
        with tempfile.TemporaryDirectory() as tmp:
            smi = os.path.join(tmp, "nvidia-smi")  # one H200, as the device's nvidia-smi reports it
            with open(smi, "w") as f:
                f.write(f'#!/bin/sh\ncase "$*" in *-L*) echo "GPU 0: NVIDIA H200";; '
                        f'*) echo {H200_MIB};; esac\n')
            os.chmod(smi, 0o755)
            env = dict(os.environ, PATH=f"{tmp}:{os.environ['PATH']}", SWINUP_BIN=os.path.join(tmp, "bin"),
                       OUT=os.path.join(tmp, "out"), WORK=os.path.join(tmp, "work"),
                       DATA=os.path.join(tmp, "data"), COMMON="--crop 128")
            done = subprocess.run(["bash", os.path.join(SCRIPTS, "research", "device_arms.sh"), "5", *arms],
                                  env=env, capture_output=True, text=True, timeout=60)
            return done, os.path.exists(os.path.join(tmp, "data"))

    def test_the_plan_of_2026_12_02_is_refused_before_anything_runs(self):
        lite = "python/checkpoints/lite.pt"
        full = "python/checkpoints/full.pt"
        done, rendered = self.run_arms(
            f"LHC|lite|{lite}|--batch 8|2", f"LHM|lite|{lite}|--batch 8 --head-mlp|2",
            f"FHC|full|{full}|--batch 6|1", f"FHM|full|{full}|--batch 6 --head-mlp|1")
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn("plan about 153 GiB, more than its 140 GiB", done.stderr)
        self.assertFalse(rendered, "the training data must not be rendered for a refused plan")

    def test_a_plan_that_fits_goes_on_and_scoring_arms_plan_nothing(self):
        # Weights files are only scored and a missing start is skipped: neither is in the plan.
        # The plan fits, so the script goes on (to the rendering, which stops it here: no renderer).
        done, _ = self.run_arms("L|lite|python/checkpoints/lite.pt|--batch 8|1",
                                   "W|lite|weights/lite.safetensors|", "X|lite|/no/such.pt|--batch 64|8")
        self.assertIn("arm L: about 24 GiB on GPU 0", done.stdout)
        self.assertNotIn("arm W: about", done.stdout)
        self.assertNotIn("arm X: about", done.stdout)
        self.assertNotIn("more than its", done.stderr)
        self.assertIn("render", done.stdout)

    def test_no_training_data_when_no_arm_trains(self):
        # A weights file is only scored and a missing start is skipped: nothing to train on.
        done, rendered = self.run_arms("W|lite|weights/lite.safetensors|", "X|lite|/no/such.pt|--batch 8")
        self.assertIn("arm X: no start checkpoint", done.stdout)
        self.assertFalse(rendered, done.stdout + done.stderr)


if __name__ == "__main__":
    unittest.main()
