"""shift_head_outputs.py moves exactly the history weight's logit and the two log2 sigmas, in the
last bias that feeds them, and leaves every other tensor and the input alone."""
import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts", "research"))
import shift_head_outputs as sho  # noqa: E402


class ShiftHeadOutputs(unittest.TestCase):
    def test_moves_only_the_named_outputs(self):
        tensors = {"head.linear.bias": np.zeros(16, np.float32), "head_mlp.fc3.bias": np.ones(8, np.float32),
                   "other": np.arange(4, dtype=np.float32)}
        out = sho.shifted(tensors, True, 0.25, -0.5)
        expected = np.ones(8, np.float32)
        expected[7] += 0.25
        expected[4] -= 0.5
        expected[5] -= 0.5
        np.testing.assert_array_equal(out["head_mlp.fc3.bias"], expected)
        np.testing.assert_array_equal(out["head.linear.bias"], np.zeros(16, np.float32))
        np.testing.assert_array_equal(tensors["head_mlp.fc3.bias"], np.ones(8, np.float32))  # input kept
        without_mlp = sho.shifted(tensors, False, 1.0, 0.0)
        self.assertEqual(float(without_mlp["head.linear.bias"][7]), 1.0)
        self.assertEqual(float(without_mlp["head.linear.bias"].sum()), 1.0)


if __name__ == "__main__":
    unittest.main()
