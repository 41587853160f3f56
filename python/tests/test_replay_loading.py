"""oracle_output_pass.load_replay and replay_result, which the research replays
(scripts/research/*_check.py, *_replay.py, head_bias_sweep.py, oracle_*.py) start and report
through: the arguments reach the loaders, the device reaches both the network and the clip, and
the JSON line names what was replayed first."""
import argparse
import os
import sys
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "scripts", "research"))
import oracle_output_pass  # noqa: E402


class Network:
    def __init__(self):
        self.device = None

    def to(self, device):
        self.device = device
        return self


class Sequence:
    n = 7


def arguments():
    ap = argparse.ArgumentParser()
    oracle_output_pass.add_network_arguments(ap)
    ap.add_argument("--frames", type=int, default=0)
    return ap.parse_args(["seq_dir", "--variant", "full", "--weights", "w.safetensors", "--frames", "7"])


class LoadReplay(unittest.TestCase):
    def load(self, device):
        network = Network()
        with mock.patch.object(oracle_output_pass, "load_network", return_value=network) as load_network, \
                mock.patch.object(oracle_output_pass, "whole_sequence", return_value=(Sequence(), "clip")) as whole:
            model, seq, clip = oracle_output_pass.load_replay(arguments(), device)
        load_network.assert_called_once_with("full", "w.safetensors")
        whole.assert_called_once_with("seq_dir", 7, device)
        self.assertIs(model, network)
        self.assertEqual(clip, "clip")
        return model

    def test_without_a_device_the_network_stays_where_it_was_loaded(self):
        self.assertIsNone(self.load(None).device)

    def test_a_device_reaches_the_network_and_the_clip(self):
        self.assertEqual(self.load("cuda").device, "cuda")


class ReplayResult(unittest.TestCase):
    def test_names_what_was_replayed_then_the_scores_in_their_order(self):
        result = oracle_output_pass.replay_result(arguments(), Sequence(), psnr=30.5, temporal=0.01)
        self.assertEqual(list(result.items()),
                         [("sequence", "seq_dir"), ("variant", "full"), ("frames", 7), ("psnr", 30.5),
                          ("temporal", 0.01)])


if __name__ == "__main__":
    unittest.main()
