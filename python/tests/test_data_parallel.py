"""Training's data parallelism (training/parallel.py): average_gradients turns every rank's gradients into the mean over
the ranks (one all_reduce of one flat buffer), and device_label names ranks that share a device.
Two gloo ranks run on the CPU."""
import os
import sys
import tempfile
import unittest

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from swinup.training.parallel import average_gradients, device_label  # noqa: E402

SHAPES = [(3, 4), (7,), (2, 2, 5), (1,)]


def rank_gradients(rank):
    """Gradients that differ per rank and per element (no two ranks agree anywhere)."""
    g = torch.Generator().manual_seed(100 + rank)
    return [torch.randn(shape, generator=g) for shape in SHAPES]


def _worker(rank, world, init_file, result_file):
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world)
    params = [torch.nn.Parameter(torch.zeros(shape)) for shape in SHAPES]
    for p, g in zip(params, rank_gradients(rank)):
        p.grad = g.clone()
    # A parameter only rank 1's batch used: rank 0's buffer must still match rank 1's.
    unused_on_0 = torch.nn.Parameter(torch.zeros(2))
    if rank == 1:
        unused_on_0.grad = torch.tensor([2.0, -4.0])
    params.append(unused_on_0)
    average_gradients(params, world)
    if rank == 0:
        torch.save([p.grad for p in params], result_file)
    dist.destroy_process_group()


class DataParallel(unittest.TestCase):
    def test_gradients_become_the_mean_over_ranks(self):
        world = 2
        with tempfile.TemporaryDirectory() as tmp:
            init_file, result_file = os.path.join(tmp, "init"), os.path.join(tmp, "grads.pt")
            mp.spawn(_worker, args=(world, init_file, result_file), nprocs=world, join=True)
            averaged = torch.load(result_file)
        expected = [sum(gs) / world for gs in zip(*(rank_gradients(r) for r in range(world)))]
        for got, want in zip(averaged[:-1], expected):
            self.assertEqual(got.shape, want.shape)
            torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-7)
        torch.testing.assert_close(averaged[-1], torch.tensor([1.0, -2.0]))

    def test_device_label(self):
        cpu = torch.device("cpu")
        self.assertEqual(device_label(cpu, 1), "cpu")
        self.assertEqual(device_label(cpu, 3), "cpu, 3 ranks")


if __name__ == "__main__":
    unittest.main()
