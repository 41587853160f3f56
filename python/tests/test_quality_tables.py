"""The docs' table scripts: quality_table.py's per-frame margins pool squared errors as `swinup
eval` does and split the sequence where they say; arm_table.py pairs each arm with its control and
reports their differences."""
import json
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "scripts"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "scripts", "research"))
import arm_table  # noqa: E402
import quality_table  # noqa: E402


def method(name, frame_psnrs):
    return {"name": name, "frame_psnr_db": frame_psnrs, "psnr_db": quality_table.pooled_psnr(frame_psnrs),
            "ssim": 0.9, "temporal_error": 0.01}


class FrameMarginsTest(unittest.TestCase):
    def test_pooled_psnr_pools_squared_errors(self):
        self.assertAlmostEqual(quality_table.pooled_psnr([30.0] * 5), 30.0, places=12)
        # Errors 1e-3 and 1e-4 pool to 5.5e-4, not to the mean of the two PSNRs (35 dB).
        self.assertAlmostEqual(quality_table.pooled_psnr([30.0, 40.0]), -10 * math.log10(5.5e-4), places=12)

    def test_parts_split_the_sequence(self):
        # swinup is 1 dB ahead in frames 0-7, 2 dB in 8-15, 3 dB from 16 on (20 frames in all).
        taau = [30.0] * 20
        swinup = [31.0] * 8 + [32.0] * 8 + [33.0] * 4
        results = {"fence_2x": {"lite": {"methods": [method("taau", taau), method("swinup", swinup)]}}}
        row = quality_table.frames_table(results).split("\n")[2]
        cells = [c.strip() for c in row.strip("|").split("|")]
        self.assertEqual(cells[:2], ["fence_2x", "lite"])
        self.assertEqual(cells[3:], ["+1.00", "+2.00", "+3.00"])
        self.assertEqual(cells[2], f"{quality_table.pooled_psnr(swinup) - 30.0:+.2f}")

    def test_a_variant_without_taau_is_left_out(self):
        results = {"moire_3x": {"full": {"methods": [method("swinup", [30.0] * 16)]}}}
        self.assertEqual(len(quality_table.frames_table(results).split("\n")), 2)  # the header only


class ArmTableTest(unittest.TestCase):
    def write(self, root, arm, rows):
        os.makedirs(os.path.join(root, arm))
        with open(os.path.join(root, arm, "score_python.jsonl"), "w") as f:
            for sequence, psnr, temporal in rows:
                f.write(json.dumps({"checkpoint": f"{arm}.pt", "sequence": sequence, "psnr": psnr,
                                    "temporal": temporal, "seconds": 1.0}) + "\n")

    def test_differences_and_order(self):
        with tempfile.TemporaryDirectory() as root:
            self.write(root, "A", [("moire_3x", 26.70, 0.0300), ("room_2x_ldr", 36.60, 0.0080)])
            self.write(root, "C", [("moire_3x", 26.50, 0.0250), ("room_2x_ldr", 36.70, 0.0080)])
            lines = arm_table.pair_table(arm_table.load_scores(root), [("A", "C")]).split("\n")
        self.assertEqual(len(lines), 4)
        self.assertTrue(lines[2].startswith("| breakfast_room_2x_ldr |"))  # breakfast_room first
        self.assertIn("-0.100 / +0.0%", lines[2])
        self.assertTrue(lines[3].startswith("| moire_3x |"))
        self.assertIn("+0.200 / +20.0%", lines[3])

    def test_a_missing_arm_is_named(self):
        with tempfile.TemporaryDirectory() as root:
            self.write(root, "A", [("fence_2x", 29.7, 0.019)])
            with self.assertRaises(SystemExit) as e:
                arm_table.pair_table(arm_table.load_scores(root), [("A", "B")])
        self.assertIn("B", str(e.exception))


if __name__ == "__main__":
    unittest.main()
