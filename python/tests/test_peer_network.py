"""The peer benchmark's network (scripts/peer_bench.py): SwinUp(quantise=False) is the shipped
network with no rounding point. It must differ from the quantised network (every e4m3 and f16
rounding point is gone: almost no output keeps its bit pattern) and stay close to it (the same
weights, layers and order: relative RMS of the head's outputs within 8%; measured 2026-12-05: lite
4.0%, full 3.1%, and the bf16 copy the same to 0.1%), run in bfloat16, and refuse exact mode. The
quantised network itself is pinned by the golden data (test_reference.py)."""
import os
import sys
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
from peer_bench import staged_input  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.shipped import weights  # noqa: E402
from swinup.weights_io import read_weights  # noqa: E402


def head_outputs(variant: str, quantise: bool, dtype=torch.float32) -> torch.Tensor:
    cfg, tensors, _ = read_weights(weights(variant))
    model = SwinUp(cfg, quantise=quantise)
    model.load_tensors(tensors, fix_scales=True)
    model.requires_grad_(False).to(dtype)
    with torch.no_grad():
        return model(staged_input(32, 64, "cpu").to(dtype), 1).float()


class PeerNetwork(unittest.TestCase):
    def test_unquantised_network_is_the_same_network_without_rounding(self):
        for variant in ("lite", "full"):
            quantised = head_outputs(variant, True)
            plain = head_outputs(variant, False)
            relative = float((plain - quantised).norm() / quantised.norm())
            self.assertGreater(relative, 1e-4, variant)
            self.assertLess(relative, 0.08, variant)
            used = quantised[..., :8]  # outputs 8-15 are reserved rows: zero in both
            self.assertLess(float((plain[..., :8] == used).float().mean()), 0.01, variant)
            bf16 = head_outputs(variant, False, torch.bfloat16)
            self.assertTrue(torch.isfinite(bf16).all(), variant)
            self.assertLess(float((bf16 - quantised).norm() / quantised.norm()), 0.08, variant)

    def test_exact_mode_has_no_unquantised_form(self):
        cfg, _, _ = read_weights(weights("lite"))
        with self.assertRaises(ValueError):
            SwinUp(cfg, exact=True, quantise=False)


if __name__ == "__main__":
    unittest.main()
