"""Training and export never write the shipped files (python/checkpoints/<variant>.pt,
weights/<variant>.safetensors): a plain run writes into its own new run folder, starting from the
shipped checkpoint read only; --resume continues a run; export writes beside the run's checkpoint
and refuses to write over a file without --force; promote is the one step that replaces the
shipped pair, and only with a weights file exported from the checkpoint beside it. The shipped
files are hashed before and after every test here; promote runs on copies in a temporary tree."""
import contextlib
import hashlib
import io
import os
import shutil
import sys
import tempfile
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from swinup import export, promote, shipped, train  # noqa: E402
from swinup.training import options, run_folder  # noqa: E402
from swinup.training.checkpoint import read_checkpoint, write_checkpoint  # noqa: E402
from swinup.weights_io import read_weights, write_weights  # noqa: E402

# Two CPU steps at most: 2.5D layers, one 32x32 crop, two frames.
TINY = ["--procedural", "1", "--batch", "1", "--crop", "32", "--frames", "2", "--warmup", "1"]
SHIPPED = [shipped.checkpoint("lite"), shipped.weights("lite")]


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def quiet(fn, *args):
    """Runs fn(*args) with its output captured: (stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        fn(*args)
    return out.getvalue(), err.getvalue()


def refused(test, fn, argv, message):
    """fn(argv) must stop with an argparse error containing message."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err), test.assertRaises(SystemExit):
        fn(argv)
    test.assertIn(message, err.getvalue())


class ShippedFilesUntouched(unittest.TestCase):
    """Checks after each test that the shipped files are what they were before it."""

    def setUp(self):
        self.before = {p: digest(p) for p in SHIPPED}
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)
        for path, before in self.before.items():
            self.assertEqual(digest(path), before, f"{path} changed")


class TrainingRuns(ShippedFilesUntouched):
    def setUp(self):
        super().setUp()
        self.runs = os.path.join(self.tmp, "runs")
        self.saved_runs, run_folder.RUNS = run_folder.RUNS, self.runs  # python/runs, redirected

    def tearDown(self):
        run_folder.RUNS = self.saved_runs
        super().tearDown()

    def test_a_plain_run_writes_a_new_run_folder_from_the_shipped_checkpoint(self):
        out, _ = quiet(train.main, TINY + ["--max-steps", "1"])
        folders = os.listdir(self.runs)
        self.assertEqual(len(folders), 1, folders)
        self.assertRegex(folders[0], r"^lite-\d{8}T\d{6}Z$")
        written = os.path.join(self.runs, folders[0], "lite.pt")
        self.assertIn(f"saved {written} at step", out)
        self.assertNotIn(os.path.realpath(written), [os.path.realpath(p) for p in SHIPPED])
        # Started from the shipped checkpoint: its steps and history, one chunk more.
        start, run = read_checkpoint(shipped.checkpoint("lite")), read_checkpoint(written)
        self.assertEqual(run["step"], start["step"] + 1)
        self.assertEqual(run["history"][:-1], start["history"])
        self.assertEqual(run["history"][-1]["steps"], 1)

    def test_a_planned_run_never_writes_a_shipped_file(self):
        args = options.parser().parse_args([])
        plan = run_folder.plan(args)
        self.assertEqual(plan.start_checkpoint, shipped.checkpoint("lite"))
        self.assertTrue(plan.checkpoint.startswith(self.runs + os.sep), plan.checkpoint)
        self.assertFalse(shipped.is_shipped(plan.checkpoint))
        # A run folder that is the shipped checkpoints' folder is refused before anything runs.
        for variant in shipped.VARIANTS:
            refused(self, train.main, TINY + ["--variant", variant, "--max-steps", "1", "--run-dir",
                                              os.path.dirname(shipped.checkpoint(variant))], "is a shipped file")
        refused(self, train.main, TINY + ["--max-steps", "1", "--optimizer-state", shipped.checkpoint("full")],
                "is a shipped file")
        self.assertFalse(os.path.exists(self.runs))

    def test_resume_continues_a_run_and_a_new_run_refuses_its_folder(self):
        run = os.path.join(self.tmp, "run")
        quiet(train.main, TINY + ["--max-steps", "1", "--run-dir", run])
        first = read_checkpoint(os.path.join(run, "lite.pt"))
        refused(self, train.main, TINY + ["--max-steps", "1", "--run-dir", run], f"--resume {run}")
        out, _ = quiet(train.main, TINY + ["--max-steps", "1", "--resume", run])
        self.assertIn("(resumed)", out)
        second = read_checkpoint(os.path.join(run, "lite.pt"))
        self.assertEqual(second["step"], first["step"] + 1)
        self.assertEqual(second["history"][:-1], first["history"])
        refused(self, train.main, TINY + ["--resume", run, "--start", shipped.checkpoint("lite")], "--resume")
        refused(self, train.main, TINY + ["--resume", run, "--variant", "full"], "no full checkpoint")

    def test_the_old_checkpoint_option_is_refused_by_name(self):
        refused(self, train.main, TINY + ["--checkpoint", os.path.join(self.tmp, "x.pt")], "--checkpoint is gone")

    def test_an_explicit_start_that_is_missing_is_refused(self):
        refused(self, train.main, TINY + ["--start", os.path.join(self.tmp, "none.pt")], "no such start file")


class Export(ShippedFilesUntouched):
    def run_folder_with_checkpoint(self):
        run = os.path.join(self.tmp, "run")
        os.makedirs(run)
        shutil.copyfile(shipped.checkpoint("lite"), os.path.join(run, "lite.pt"))
        return run

    def test_export_writes_beside_the_run_checkpoint_and_refuses_to_overwrite(self):
        run = self.run_folder_with_checkpoint()
        out = os.path.join(run, "lite.safetensors")
        quiet(export.main, [run])
        self.assertEqual(read_weights(out)[0].variant, "lite")
        with open(out, "wb") as f:
            f.write(b"not a weights file")
        refused(self, export.main, [run], "exists: give --force")
        with open(out, "rb") as f:
            self.assertEqual(f.read(), b"not a weights file")  # untouched
        quiet(export.main, [run, "--force"])
        self.assertEqual(read_weights(out)[0].variant, "lite")

    def test_export_needs_a_destination_and_never_writes_the_shipped_weights(self):
        refused(self, export.main, [], "give a run folder")
        refused(self, export.main, ["--out", shipped.weights("lite"), "--force"], "is a shipped file")
        refused(self, export.main, ["--variant", "full", "--out", shipped.weights("full"), "--force"],
                "is a shipped file")

    def test_writers_refuse_shipped_paths(self):
        with self.assertRaisesRegex(ValueError, "is a shipped file"):
            write_checkpoint(shipped.checkpoint("lite"), {})
        cfg, tensors, desc = read_weights(shipped.weights("lite"))
        with self.assertRaisesRegex(ValueError, "is a shipped file"):
            write_weights(shipped.weights("lite"), cfg, tensors, desc)


class Promote(ShippedFilesUntouched):
    """promote on a temporary tree holding copies of the shipped files (--repo)."""

    def setUp(self):
        super().setUp()
        self.repo = os.path.join(self.tmp, "repo")
        for path in SHIPPED:
            copy = os.path.join(self.repo, os.path.relpath(path, shipped.ROOT))
            os.makedirs(os.path.dirname(copy), exist_ok=True)
            shutil.copyfile(path, copy)
        self.shipped_copies = [shipped.checkpoint("lite", self.repo), shipped.weights("lite", self.repo)]

    def trained_run(self):
        """A run folder whose checkpoint differs from the shipped one (one weight moved), exported."""
        run = os.path.join(self.tmp, "run")
        os.makedirs(run)
        record = read_checkpoint(shipped.checkpoint("lite"))
        name = "head__linear__bias"
        record["params"][name] = record["params"][name].clone()
        record["params"][name][7] += 0.25  # the history weight's logit
        write_checkpoint(os.path.join(run, "lite.pt"), record)
        quiet(export.main, [run])
        return run

    def test_promote_replaces_the_shipped_pair_with_the_run(self):
        run = self.trained_run()
        refused(self, promote.main, [run, "--repo", os.path.join(self.tmp, "nowhere")], "not a swinup repository")
        out, _ = quiet(promote.main, [run, "--repo", self.repo])
        self.assertIn("replaced", out)
        for name, copy in zip(("lite.pt", "lite.safetensors"), self.shipped_copies):
            self.assertEqual(digest(copy), digest(os.path.join(run, name)))
            self.assertNotEqual(digest(copy), self.before[shipped.checkpoint("lite") if name.endswith(".pt")
                                                          else shipped.weights("lite")])

    def test_promote_refuses_weights_not_exported_from_the_checkpoint(self):
        run = self.trained_run()
        record = read_checkpoint(os.path.join(run, "lite.pt"))
        record["params"]["head__linear__bias"][7] += 0.25  # trained on after the export
        write_checkpoint(os.path.join(run, "lite.pt"), record)
        refused(self, promote.main, [run, "--repo", self.repo], "is not the export of")
        os.remove(os.path.join(run, "lite.safetensors"))
        refused(self, promote.main, [run, "--repo", self.repo], "export the run first")
        for copy, path in zip(self.shipped_copies, SHIPPED):
            self.assertEqual(digest(copy), self.before[path])  # nothing replaced

    def test_promote_refuses_a_checkpoint_with_an_experiment(self):
        run = self.trained_run()
        record = read_checkpoint(os.path.join(run, "lite.pt"))
        record["history_clip"] = {"gain": torch.tensor(1.0), "bias": torch.tensor(-4.0)}
        write_checkpoint(os.path.join(run, "lite.pt"), record)
        refused(self, promote.main, [run, "--repo", self.repo], "history clip")


if __name__ == "__main__":
    unittest.main()
