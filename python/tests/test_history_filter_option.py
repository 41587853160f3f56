"""train.py --experiment-history-filter: a chunk trains through the named filter of the output
pass's history and records it in the checkpoint; without the option it is Lanczos-3, the filter
of every backend. Runs two-step trainings on the CPU (32x32 crops)."""
import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from swinup import output_pass as op  # noqa: E402
from swinup import sampling as sm  # noqa: E402
from swinup import train  # noqa: E402


class HistoryFilterOption(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.ckpt = os.path.join(self.dir, "lite.pt")

    def tearDown(self):
        op.use_history_filter("lanczos3")  # other tests in this process run the specified pass
        shutil.rmtree(self.dir)

    def chunk(self, *extra):
        argv = ["--variant", "lite", "--procedural", "1", "--batch", "1", "--crop", "32", "--frames", "3",
                "--max-steps", "2", "--warmup", "1", "--run-dir", self.dir, *extra]
        with contextlib.redirect_stdout(io.StringIO()):
            train.main(argv)
        return torch.load(self.ckpt, map_location="cpu")["history"][-1]

    def test_catmull_rom_is_used_and_recorded(self):
        record = self.chunk("--experiment-history-filter", "catmull-rom")
        self.assertIs(op.history_sample, sm.catmull_rom_sample)
        self.assertEqual(record.get("history_filter"), "catmull-rom")

    def test_the_default_is_the_backends_lanczos3(self):
        op.use_history_filter("catmull-rom")  # as a previous chunk in this process left it
        record = self.chunk()
        self.assertIs(op.history_sample, sm.lanczos3_sample)
        self.assertNotIn("history_filter", record)

    def test_an_unknown_filter_is_refused(self):
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
            self.chunk("--experiment-history-filter", "bicubic")


if __name__ == "__main__":
    unittest.main()
