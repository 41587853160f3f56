"""Data parallelism: torchrun --nproc_per_node N -m swinup.train ... starts N ranks; each draws its
own batches, their gradients are averaged with one all_reduce a step, and rank 0 saves. Several
ranks can share one GPU (--dist-backend gloo; NCCL wants a GPU a rank): a step is launch-bound, so
ranks that launch side by side fill the GPU better than one larger batch does. One process alone
is a world of one, and none of this costs it anything."""
import os
from dataclasses import dataclass

import torch
import torch.distributed as dist


@dataclass
class Ranks:
    world: int  # ranks in all
    rank: int  # this process's; rank 0 prints and saves
    device: torch.device


def setup(exact: bool, backend=None) -> Ranks:
    """This process's rank (torchrun's environment; a world of one without it) and device, the
    process group joined when there are several."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if torch.cuda.is_available():
        index = local % torch.cuda.device_count()  # ranks share GPUs only when told to (gloo)
        torch.cuda.set_device(index)
        device = torch.device("cuda", index)
        # Fast mode: TF32 products (linear layers multiply e4m3 values, exact in TF32; attention's
        # f16 operands lose their last bit, training does not need it). Exact mode: true f32/f64.
        torch.backends.cuda.matmul.allow_tf32 = not exact
    else:
        device = torch.device("cpu")
    if world > 1:
        dist.init_process_group(backend or ("nccl" if device.type == "cuda" else "gloo"))
    return Ranks(world=world, rank=rank, device=device)


def broadcast_parameters(model, ranks: Ranks):
    """Every rank starts from rank 0's weights."""
    if ranks.world > 1:
        for p in model.parameters():
            dist.broadcast(p.data, 0)


def agree_to_stop(stop: bool, ranks: Ranks) -> bool:
    """Whether any rank stops: every rank must leave at the same step, or the others wait in
    all_reduce."""
    if ranks.world == 1:
        return stop
    flag = torch.tensor([1.0 if stop else 0.0], device=ranks.device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    return bool(flag.item() > 0)


def finish(ranks: Ranks):
    if ranks.world > 1:
        dist.destroy_process_group()


def device_label(device, world):
    """The chunk's device for the history: "NVIDIA H200", "NVIDIA H200 x2" for ranks on two GPUs,
    "NVIDIA H200, 3 ranks" for ranks sharing one (gloo)."""
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    if world == 1:
        return name
    gpus = min(world, torch.cuda.device_count()) if device.type == "cuda" else 1
    if gpus == world:
        return f"{name} x{world}"
    return f"{name}" + (f" x{gpus}" if gpus > 1 else "") + f", {world} ranks"


def average_gradients(params, world):
    """Data parallel: every rank's gradients become the mean over the ranks, in one all_reduce of
    one flat buffer (one collective a step instead of one for each of the network's 150 or so
    parameter tensors, most of them small; the two were not timed against each other). The buffer
    covers every parameter. A rank whose batch left one unused (its gradient None) would otherwise
    send a shorter buffer than the others: on the H200 (2026-12-01) a 3-rank run stopped when gloo
    found one rank's buffer shorter than its neighbour's, which only None gradients can make; with
    every parameter in the buffer the next run trained to the end."""
    params = list(params)
    for p in params:  # a parameter a rank's batch left unused: zeros, so that every rank's buffer matches
        if p.grad is None:
            p.grad = torch.zeros_like(p)
    grads = [p.grad for p in params]
    flat = torch.cat([g.reshape(-1) for g in grads])
    dist.all_reduce(flat)
    flat /= world
    offset = 0
    for g in grads:
        g.copy_(flat[offset:offset + g.numel()].view_as(g))
        offset += g.numel()
