"""A clip's burn-in frames run without gradient (train.py --burn-in), and the network's weights
are quantised once a clip (SwinUp.weight_cache): the cache must keep the gradient of the weights
for the scored frames after them. Filled by the first (burn-in) frame under torch.no_grad, it
did not, and with burn-in no weight matrix and no bias table received a gradient."""
import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from swinup.data import ProceduralScenes  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.spec import ModelConfig  # noqa: E402
from swinup.training.recurrence import unroll  # noqa: E402


class BurnInGradients(unittest.TestCase):
    def test_every_parameter_gets_a_gradient_after_burn_in_frames(self):
        model = SwinUp(ModelConfig.make("lite", masks=True))
        model.init_seeded(1)
        clip = ProceduralScenes("cpu", seed=2).batch(1, 3, 32, hdr=True)
        clip["masks"] = torch.rand(clip["masks"].shape, generator=torch.Generator().manual_seed(3))
        for burn_in in (0, 2):
            model.zero_grad(set_to_none=True)
            _, spatial, temporal = unroll(model, clip, burn_in=burn_in)
            (spatial + temporal).backward()
            for name in ("embed.weight", "mask_embed.weight", "head.linear.weight", "enc1.rel_bias"):
                grad = model.p(name).grad
                self.assertIsNotNone(grad, f"{name}, burn-in {burn_in}")
                self.assertGreater(float(grad.abs().sum()), 0.0, f"{name}, burn-in {burn_in}")


if __name__ == "__main__":
    unittest.main()
