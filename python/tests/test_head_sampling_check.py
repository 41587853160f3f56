"""head_sampling_check.py's bilinear read of the head: on a head that is the same at every render
pixel it must give the specified output pass's frame exactly (so the swap touches nothing else),
and on a varying head a different one; the specified pass is restored afterwards."""
import importlib.util
import os
import sys
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import swinup.output_pass as op  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "head_sampling_check", os.path.join(HERE, "..", "scripts", "research", "head_sampling_check.py"))
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)


def frame(head, history=None):
    g = torch.Generator().manual_seed(5)
    tc = torch.rand(1, 6, 6, 3, generator=g)
    motion = torch.zeros(1, 6, 6, 2)
    jitter = torch.tensor([[0.2, -0.1]])
    return (head, tc, motion, jitter, history, 12, 12, 2.0, 2.0, history is not None, False)


class HeadSampling(unittest.TestCase):
    def test_a_uniform_head_gives_the_specified_frame(self):
        head = torch.zeros(1, 6, 6, 16)
        head[..., 4:8] = torch.tensor([-0.3, -0.8, 0.4, 0.5])
        history = torch.rand(1, 12, 12, 3, generator=torch.Generator().manual_seed(6))
        want = op.output_pass(*frame(head, history))
        got = check.interpolated_output_pass(*frame(head, history))
        for w, g in zip(want, got):
            self.assertTrue(torch.allclose(w, g, atol=1e-6))
        self.assertIs(op.gather, check.specified_gather)

    def test_a_varying_head_gives_another_frame(self):
        head = torch.zeros(1, 6, 6, 16)
        head[..., 4:8] = torch.randn(1, 6, 6, 4, generator=torch.Generator().manual_seed(7))
        want, _, _ = op.output_pass(*frame(head))
        got, _, _ = check.interpolated_output_pass(*frame(head))
        self.assertGreater(float((want - got).abs().max()), 1e-3)
        self.assertIs(op.gather, check.specified_gather)


if __name__ == "__main__":
    unittest.main()
