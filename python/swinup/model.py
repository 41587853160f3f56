"""The swinup network (docs/model-spec.md) in PyTorch, fake-quantised exactly like the kernels.

Tensors are channels-last: [B, H, W, C], tokens row-major (y, x) as in the C++ code. Two modes:
- exact=True (golden data, validation): the `exact` precision mode's formulas (exact_math.py),
  GEMM and attention sums formed exactly in float64 and rounded once to float32 (the sum of e4m3 x
  e4m3 products of a K <= 512 GEMM is exact in float64; the C++ code sums in float32 in some
  order, so it differs by float32 accumulation rounding only), and the sums model-spec.md orders
  (RMSNorm's sum of squares, the softmax denominator) in that order in float32.
- exact=False (training): torch's smooth functions and float32 sums, same quantisation points.
Both round to e4m3 / f16 at every point the spec names, with straight-through gradients.
"""
import contextlib
import functools

import numpy as np
import torch
from torch import nn

from . import exact_math as xm
from .layers import uniform_weight
from .quant import (e4m3_decode, e4m3_codes, pow2_scale_for, round_e4m3_ste, round_f16,
                    round_f16_ste)
from .spec import (HEAD_MLP_OUTPUTS, HEAD_OUTPUTS, RMS_EPS, SHIFT, SLOTS, WINDOW, ModelConfig,
                   model_tensors)

F32 = torch.float32


def _key(name: str) -> str:
    return name.replace(".", "__")


HEAD_MLP_PREFIX = _key("head_mlp.")  # the head MLP's parameter keys (model.params, checkpoints)
MASK_EMBED_PREFIX = _key("mask_embed.")  # the mask embedding's (docs/masks.md)


def space_to_depth(x: torch.Tensor) -> torch.Tensor:
    """[B, H, W, C] -> [B, H/2, W/2, 4C], channel (dy*2 + dx)*C + c (merge and lite embed)."""
    b, h, w, c = x.shape
    return x.view(b, h // 2, 2, w // 2, 2, c).permute(0, 1, 3, 2, 4, 5).reshape(b, h // 2, w // 2, 4 * c)


def depth_to_space(x: torch.Tensor) -> torch.Tensor:
    """[B, H, W, 4C] -> [B, 2H, 2W, C], channel (dy*2 + dx)*C + c to sub-token (dy, dx)."""
    b, h, w, c4 = x.shape
    c = c4 // 4
    return x.view(b, h, w, 2, 2, c).permute(0, 1, 3, 2, 4, 5).reshape(b, 2 * h, 2 * w, c)


def _windows(x: torch.Tensor) -> torch.Tensor:
    """[B, H, W, C] -> [B, H/4 * W/4, 16, C] (windows row-major, tokens row-major inside)."""
    b, h, w, c = x.shape
    return (x.view(b, h // WINDOW, WINDOW, w // WINDOW, WINDOW, c).permute(0, 1, 3, 2, 4, 5)
            .reshape(b, (h // WINDOW) * (w // WINDOW), WINDOW * WINDOW, c))


def _unwindows(x: torch.Tensor, h: int, w: int) -> torch.Tensor:
    b, _, _, c = x.shape
    return (x.view(b, h // WINDOW, w // WINDOW, WINDOW, WINDOW, c).permute(0, 1, 3, 2, 4, 5)
            .reshape(b, h, w, c))


@functools.lru_cache(maxsize=64)
def shift_mask(h: int, w: int, device) -> torch.Tensor:
    """[nW, 16, 16] bool, True where query i may attend key j in the rolled grid: Swin's regions
    [0, N-4), [N-4, N-2), [N-2, N) per axis, same (y-region, x-region) only."""
    def regions(n):
        r = torch.zeros(n, dtype=torch.int64, device=device)
        r[n - WINDOW:n - SHIFT] = 1
        r[n - SHIFT:] = 2
        return r
    ids = (regions(h)[:, None] * 3 + regions(w)[None, :]).view(1, h, w, 1).to(F32)
    win = _windows(ids)[0, :, :, 0]  # [nW, 16]
    return win[:, :, None] == win[:, None, :]


def exact_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a @ b summed exactly (float64; inputs are e4m3 or f16 values) and rounded once to f32."""
    return torch.matmul(a.to(torch.float64), b.to(torch.float64)).to(F32)


def seq_sum_last(x: torch.Tensor) -> torch.Tensor:
    """float32 sum over the last axis in index order (the order model-spec.md fixes)."""
    acc = torch.zeros_like(x[..., 0])
    for i in range(x.shape[-1]):
        acc = acc + x[..., i]
    return acc


class SwinUp(nn.Module):
    def __init__(self, cfg: ModelConfig, exact: bool = False, quantise: bool = True):
        """quantise=False: the same network with no rounding point at all (weights as given,
        activations in the parameters' dtype), for the peer benchmark (scripts/peer_bench.py:
        the network in bf16 with torch.compile); never for training, export or golden data."""
        super().__init__()
        if exact and not quantise:
            raise ValueError("SwinUp: exact mode is the quantised network's; quantise=False has no exact form")
        self.cfg = cfg
        self.exact = exact
        self.quantise = quantise
        self.specs = model_tensors(cfg)
        self.params = nn.ParameterDict()
        # Fixed per-channel scales (from a weights file): used instead of re-deriving them from
        # the master weights, so that a loaded file is reproduced code for code.
        self.fixed_scale = {}
        for s in self.specs:
            if not s.name.endswith(".scale"):  # scales derive from the weights (or are fixed)
                self.params[_key(s.name)] = nn.Parameter(torch.zeros(s.shape, dtype=F32))
        self.blocks = cfg.blocks()
        # 1 / sqrt(d) per head width, in float32 as the kernels form it; made here, as Python
        # floats, because reading a tensor's value inside the forward pass would split a compiled
        # graph (compile_forward) at every attention.
        self._inv_sqrt_d = {}
        for blk in self.blocks:
            d = blk.channels // blk.heads
            self._inv_sqrt_d[d] = float(torch.tensor(1.0, dtype=F32) / torch.sqrt(torch.tensor(float(d), dtype=F32)))
        # Per-step cache of the quantised weights (see weight_cache); None outside one.
        self._quantised = None
        # The forward pass compiled by torch.compile (see compile_forward); None: eager.
        self._compiled = None

    # ---- weights ----------------------------------------------------------------------------
    def p(self, name: str) -> torch.Tensor:
        return self.params[_key(name)]

    def init_seeded(self, seed: int):
        """A deterministic initialisation for training from scratch (uniform +-sqrt(3/in) weights,
        zero biases and bias tables, unit gains, reserved head rows 8..15 zero)."""
        g = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for s in self.specs:
                if s.name.endswith(".scale"):
                    continue
                t = self.p(s.name)
                if s.name.endswith(".weight"):
                    t.copy_(uniform_weight(*s.shape, g))
                elif s.name.endswith(".gain"):
                    t.fill_(1.0)
                else:
                    t.zero_()
            self.p("head.linear.weight")[8:].zero_()
            if self.cfg.head_mlp:  # zero: the network starts as exactly the network without it
                self.p("head_mlp.fc3.weight").zero_()
            if self.cfg.masks:  # zero too (docs/masks.md): the masks start with no effect
                self.p("mask_embed.weight").zero_()
        self.fixed_scale = {}

    def init_head_mlp(self, seed: int):
        """The head MLP's start when it is trained from a network without one: seeded uniform fc1
        and fc2, zero biases and a zero fc3, so that the network starts as exactly the network
        without it (the C++ weights_make_initial does the same)."""
        g = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for layer in ("fc1", "fc2", "fc3"):
                w = self.p(f"head_mlp.{layer}.weight")
                w.copy_(uniform_weight(*w.shape, g) if layer != "fc3" else torch.zeros_like(w))
                self.p(f"head_mlp.{layer}.bias").zero_()
                self.fixed_scale.pop(f"head_mlp.{layer}.weight", None)

    def load_tensors(self, tensors: dict, fix_scales: bool):
        """Loads a weights file's tensors (weights_io.read_weights). fix_scales keeps the file's
        scales so that the forward pass uses exactly its codes (golden data); training passes
        False and re-derives power-of-two scales from the master weights as they move. A network
        with the head MLP loads a file without one: its MLP keeps what it holds (init_head_mlp)."""
        tensors = dict(tensors)
        mask_names = [n for n in tensors if n.startswith("mask_embed.")]
        if mask_names and not self.cfg.masks:
            # A network without the mask embedding reads a file whose mask_embed does nothing
            # without masks (zero weights and bias: the shipped weights' start) as the same network.
            if any(np.any(np.asarray(tensors[n]) != 0) for n in ("mask_embed.weight", "mask_embed.bias")):
                raise ValueError("load_tensors: the file's mask_embed is not zero, and this network has none "
                                 "(build it with ModelConfig.make(variant, masks=True))")
            for n in mask_names:
                del tensors[n]
        unknown = sorted(set(tensors) - {s.name for s in self.specs})
        if unknown:  # e.g. a file's head MLP, which this network (without one) would drop
            raise ValueError(f"load_tensors: tensors this network does not have: {', '.join(unknown[:3])}")
        with torch.no_grad():
            self.fixed_scale = {}
            for s in self.specs:
                if s.name not in tensors and (s.name.startswith("head_mlp.") or s.name.startswith("mask_embed.")):
                    continue  # a file without them: the layer keeps its start (zero for mask_embed)
                a = tensors[s.name]
                if s.dtype == "F8_E4M3":
                    codes = torch.from_numpy(np.ascontiguousarray(a))
                    scale = torch.from_numpy(np.asarray(tensors[s.name[:-len("weight")] + "scale"],
                                                        dtype=np.float32))
                    self.p(s.name).copy_(e4m3_decode(codes) * scale[:, None])
                    if fix_scales:
                        self.fixed_scale[s.name] = scale.clone()
                elif s.name.endswith(".scale"):
                    continue
                else:
                    self.p(s.name).copy_(torch.from_numpy(np.asarray(a, dtype=np.float32)))

    def export_tensors(self) -> dict:
        """-> {name: numpy array} as the weights file stores them."""
        out = {}
        with torch.no_grad():
            for s in self.specs:
                if s.dtype == "F8_E4M3":
                    w = self.p(s.name).detach().cpu().to(F32)
                    scale = self._scale(s.name, w)
                    out[s.name] = e4m3_codes(w / scale[:, None]).numpy()
                    out[s.name[:-len("weight")] + "scale"] = scale.numpy().astype(np.float32)
                elif s.name.endswith(".scale"):
                    continue
                elif s.dtype == "F16":
                    out[s.name] = self.p(s.name).detach().cpu().to(torch.float16).numpy()
                else:
                    out[s.name] = self.p(s.name).detach().cpu().to(F32).numpy()
        return out

    def _scale(self, wname: str, w: torch.Tensor) -> torch.Tensor:
        s = self.fixed_scale.get(wname)
        return s.to(w.device) if s is not None else pow2_scale_for(w)

    @contextlib.contextmanager
    def weight_cache(self):
        """Inside, each weight is quantised (scale, e4m3 with its straight-through gradient) and
        each bias table rounded to f16 once, and every frame of an unrolled clip reuses them: the
        same values and the same gradients (the frames' gradients meet at the shared tensor), with
        the quantisation's kernels run once a step instead of once a frame. Training is bound by
        kernel launches, so this matters; the weights must not change inside. The cache is
        filled on entry, in the caller's gradient mode. Filled by the first frame that used a
        weight, it took that frame's mode, and a clip's burn-in frames run under torch.no_grad:
        in every clip with burn-in the cached weights carried no gradient, so the weight
        matrices and bias tables trained only on the batches drawn without burn-in (one in N + 1
        under --burn-in N), the biases and gains on all (from 76d3d9b, 2026-11-30, to 2026-12-05;
        not with --compile, which filled the cache on entry already, because the compiled code
        must only read it: a cache filled inside the compiled region would be a side effect that
        changes between frames and recompiles). tests/test_burn_in_gradients.py."""
        self._quantised = {}
        try:
            self.fill_weight_cache()
            yield
        finally:
            self._quantised = None

    def fill_weight_cache(self):
        """Quantises every weight and rounds every bias table into the open weight_cache now."""
        if self._quantised is None:
            raise RuntimeError("fill_weight_cache: no weight_cache is open")
        for s in self.specs:
            if s.dtype == "F8_E4M3":
                self._quantised_weight(s.name[:-len(".weight")])
            elif s.name.endswith(".rel_bias"):
                self._rel_bias(s.name[:-len(".rel_bias")])

    def compile_forward(self, mode=None):
        """Runs the forward pass through torch.compile from now on (train.py --compile; torch >=
        2). Training launches thousands of small kernels a frame; the compiler fuses the
        elementwise ones (roundings, norms, GELU, residual adds) into a few. One graph per frame
        parity (the only way the frame index enters) and per gradient mode. Fast mode only:
        fusion reorders float32 arithmetic, which exact mode must not do. `mode`: torch.compile's
        (None: its default; scripts/peer_bench.py passes its --compile-mode)."""
        if self.exact:
            raise ValueError("compile_forward: exact mode keeps the C++ order of every sum; compile fast mode only")
        if not hasattr(torch, "compile"):
            raise RuntimeError(f"compile_forward needs torch >= 2.0 (torch.compile); this is torch {torch.__version__}")
        # Inductor drops a float32 -> float16 -> float32 round trip inside a fused kernel, and
        # those round trips are model.md's f16 rounding points (q/k/v, the softmax's
        # exponentials, the residual stream, the relative-position bias). emulate_precision_casts
        # did not keep them (2026-12-02, check_compile.py --ops on the H200: 93.7% of the
        # probe unrounded), so quant.round_f16 rounds with integer operations on the bits while
        # compiling; after that the H200 check passed for lite. The setting stays for the float8
        # round trip of quant.round_e4m3, which it matched bit for bit with. It is process-wide
        # and read when a graph is compiled.
        import torch._inductor.config as inductor_config
        inductor_config.emulate_precision_casts = True
        self._compiled = torch.compile(self.forward, dynamic=False, mode=mode)

    def run(self, staged: torch.Tensor, frame_index: int, masks=None) -> torch.Tensor:
        """The forward pass, compiled if compile_forward was called (then called with the frame's
        parity, which gives the same shifts, so that frames share two graphs)."""
        if masks is None:  # the call of a network without masks, as before format 5
            return self(staged, frame_index) if self._compiled is None else self._compiled(staged, frame_index % 2)
        if self._compiled is None:
            return self(staged, frame_index, masks=masks)
        return self._compiled(staged, frame_index % 2, masks=masks)

    def _rel_bias(self, name: str) -> torch.Tensor:
        """Block `name`'s relative-position bias tables [heads, 16, 16], rounded to f16."""
        return self._cached(name + ".rel_bias", lambda: self._f16(self.p(name + ".rel_bias")))

    def _cached(self, key: str, make):
        if self._quantised is None:
            return make()
        if key not in self._quantised:
            self._quantised[key] = make()
        return self._quantised[key]

    def _e4m3(self, x: torch.Tensor) -> torch.Tensor:
        """An e4m3 rounding point (straight-through gradient); nothing with quantise=False."""
        return round_e4m3_ste(x) if self.quantise else x

    def _f16(self, x: torch.Tensor) -> torch.Tensor:
        """An f16 rounding point (straight-through gradient); nothing with quantise=False."""
        return round_f16_ste(x) if self.quantise else x

    def _quantised_weight(self, name: str):
        """(e4m3 values of w / scale with a straight-through gradient, scale [out]); with
        quantise=False (w, None)."""
        if not self.quantise:
            return self.p(name + ".weight"), None

        def make():
            w = self.p(name + ".weight")
            scale = self._scale(name + ".weight", w)
            return round_e4m3_ste(w / scale[:, None]), scale
        return self._cached(name + ".weight", make)

    # ---- layers -----------------------------------------------------------------------------
    def linear(self, name: str, x: torch.Tensor) -> torch.Tensor:
        """y = scale * sum_k(wq[o,k] x[k]) + bias, x already e4m3; f32 out (exact mode: t =
        acc*scale, then y = t + bias, two roundings, no fma, as the kernels do)."""
        wq, scale = self._quantised_weight(name)
        if scale is None:  # quantise=False: a plain linear layer
            return torch.nn.functional.linear(x, wq, self.p(name + ".bias"))
        if self.exact:
            return exact_matmul(x, wq.t()) * scale + self.p(name + ".bias")
        # Fast mode: one kernel for the scale and the bias (it may fuse them into an fma, which
        # the exact formula must not; training does not need the last bit, and is launch-bound).
        return torch.addcmul(self.p(name + ".bias"), torch.matmul(x, wq.t()), scale)

    def rmsnorm_e4m3(self, name: str, x: torch.Tensor) -> torch.Tensor:
        """(x * (1 / sqrt(mean(x^2) + 2^-13))) * gain, then e4m3."""
        if self.exact:
            mean = seq_sum_last(x * x) / float(x.shape[-1])
            inv = 1.0 / torch.sqrt(mean + RMS_EPS)
        else:  # the same formula in fewer kernels (rsqrt may differ from 1 / sqrt in the last bit)
            inv = torch.rsqrt(x.square().mean(-1) + RMS_EPS)
        return self._e4m3((x * inv[..., None]) * self.p(name + ".gain"))

    def attention(self, name: str, heads: int, qkv: torch.Tensor, shifted: bool) -> torch.Tensor:
        """qkv: [B, H, W, 3C] f16 values -> attention output [B, H, W, C] rounded to e4m3."""
        b, h, w, c3 = qkv.shape
        c = c3 // 3
        d = c // heads
        if shifted:
            qkv = torch.roll(qkv, shifts=(-SHIFT, -SHIFT), dims=(1, 2))
        win = _windows(qkv)  # [B, nW, 16, 3C]
        nw = win.shape[1]
        win = win.view(b, nw, 16, 3, heads, d).permute(3, 0, 4, 1, 2, 5)  # [3, B, h, nW, 16, d]
        q, k, v = win[0], win[1], win[2]
        inv_sqrt_d = self._inv_sqrt_d[d]
        rel = self._rel_bias(name)  # [h, 16, 16]
        if self.exact:
            s = exact_matmul(q, k.transpose(-1, -2))
        else:
            s = torch.matmul(q, k.transpose(-1, -2))
        s = s * inv_sqrt_d + rel[None, :, None, :, :]
        mask = shift_mask(h, w, qkv.device)[None, None] if shifted else None
        if mask is not None:
            s = torch.where(mask, s, torch.full_like(s, -float("inf")))
        m = s.amax(dim=-1, keepdim=True).detach() if not self.exact else s.amax(dim=-1, keepdim=True)
        z = (s - m) * xm.LOG2E
        if mask is not None:
            z = torch.where(mask, z, torch.zeros_like(z))  # keep masked lanes finite
        p = self._f16(xm.fn("exp2", z, self.exact))
        if mask is not None:
            p = torch.where(mask, p, torch.zeros_like(p))  # masked pairs: p = 0 exactly
        l = seq_sum_last(p) if self.exact else p.sum(-1)
        o = exact_matmul(p, v) if self.exact else torch.matmul(p, v)
        o = o / l[..., None]
        o = o.permute(0, 2, 3, 1, 4).reshape(b, nw, 16, c)  # heads back into channels
        o = _unwindows(o, h, w)
        if shifted:
            o = torch.roll(o, shifts=(SHIFT, SHIFT), dims=(1, 2))
        return self._e4m3(o)

    def block(self, spec, x: torch.Tensor, shifted: bool) -> torch.Tensor:
        n = spec.name
        qkv = self._f16(self.linear(n + ".qkv", self.rmsnorm_e4m3(n + ".norm1", x)))
        a = self.attention(n, spec.heads, qkv, shifted)
        x = self._f16(x + self.linear(n + ".proj", a))
        hdn = self.linear(n + ".fc1", self.rmsnorm_e4m3(n + ".norm2", x))
        hdn = self._e4m3(xm.fn("gelu", hdn, self.exact))
        return self._f16(x + self.linear(n + ".fc2", hdn))

    def merge(self, name: str, x: torch.Tensor) -> torch.Tensor:
        return self._f16(self.linear(name + ".linear", self.rmsnorm_e4m3(name + ".norm", space_to_depth(x))))

    def expand(self, name: str, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        y = depth_to_space(self.linear(name + ".linear", self.rmsnorm_e4m3(name + ".norm", x)))
        return self._f16(y + skip)

    # ---- the network ------------------------------------------------------------------------
    def mask_embed(self, masks, shape):
        """What mask_embed adds to the first layer's f32 output (docs/masks.md): its output of the
        masks (lite: [B, H/2, W/2, 8] of space_to_depth, full: [B, H, W, 2], e4m3 values), or its
        bias alone when the frame has no mask (absent masks are zero)."""
        if masks is None:
            return self.p("mask_embed.bias").expand(*shape[:-1], -1)
        return self.linear("mask_embed", masks)

    def forward(self, staged: torch.Tensor, frame_index: int, hook=None, masks=None) -> torch.Tensor:
        """staged: [B, H, W, 16] e4m3 slot values on the padded grid (H, W multiples of 32).
        masks: [B, H, W, 2] (reactive, transparency) e4m3 values on the same grid
        (staging.Staged.mask_slots), or None: no mask (read only with cfg.masks).
        Returns the head's raw outputs [B, H, W, 16] (f32). hook(name, tensor) sees each layer's
        output in execution order (the names of the CPU Network's layer hook); if it returns a
        tensor, the network continues from that instead (teacher forcing, for measurements)."""
        b, h, w, c = staged.shape
        if c != SLOTS or h % 32 or w % 32:
            raise ValueError(f"staged must be [B, H, W, {SLOTS}] with H, W multiples of 32, got "
                             f"{list(staged.shape)}")
        hook = hook or (lambda name, t: None)
        order = {blk.name: i for i, blk in enumerate(self.blocks)}
        specs = {blk.name: blk for blk in self.blocks}

        def named(name, y):
            replaced = hook(name, y)  # a hook may return a tensor to continue with instead
            return y if replaced is None else replaced

        def blk(name, x):
            return named(name, self.block(specs[name], x, (order[name] + frame_index) % 2 == 1))

        if self.cfg.variant == "lite":
            x1 = self.linear("embed", space_to_depth(staged))
            if self.cfg.masks:
                x1 = x1 + self.mask_embed(None if masks is None else space_to_depth(masks), x1.shape)
            x1 = named("embed", self._f16(x1))
        else:
            e0 = self.linear("embed0", staged)
            if self.cfg.masks:
                e0 = e0 + self.mask_embed(masks, e0.shape)
            e0 = named("embed0", self._e4m3(torch.relu(e0)))
            x0 = named("embed1", self._f16(self.linear("embed1", e0)))
            x0 = blk("enc0", x0)
            x1 = named("merge0", self.merge("merge0", x0))
        x1 = blk("enc1", x1)
        x2 = named("merge1", self.merge("merge1", x1))
        x2 = blk("enc2", x2)
        x3 = named("merge2", self.merge("merge2", x2))
        for i in range(self.cfg.tube_blocks):
            x3 = blk(f"tube{i}", x3)
        y2 = blk("dec2", named("expand2", self.expand("expand2", x3, x2)))
        y1 = blk("dec1", named("expand1", self.expand("expand1", y2, x1)))
        if self.cfg.variant == "lite":
            skip = self.linear("skip0", staged)
            pixel_mlp = getattr(self, "pixel_mlp", None)
            if pixel_mlp is not None:  # an experiment no backend runs (research/pixel_mlp.py)
                skip = skip + pixel_mlp(staged)
            y0 = named("expand0", self.expand("expand0", y1, skip))
        else:
            y0 = blk("dec0", named("expand0", self.expand("expand0", y1, x0)))
        normalised = self.rmsnorm_e4m3("head.norm", y0)
        out = self.linear("head.linear", normalised)
        if self.cfg.head_mlp:  # adds to outputs 0-7 only (8-15 stay the linear head's, bit for bit)
            added = self.head_mlp_add(normalised, staged)
            out = torch.cat([out[..., :HEAD_MLP_OUTPUTS] + added, out[..., HEAD_MLP_OUTPUTS:]], dim=-1)
        return named("head", out)

    def head_mlp_add(self, normalised: torch.Tensor, slots: torch.Tensor) -> torch.Tensor:
        """The head MLP (docs/model-spec.md, "The head MLP"): normalised [..., 32] (the head's
        RMSNorm output, e4m3 values) and the staged slots [..., 16] -> fc1 -> ReLU -> e4m3 -> fc2
        -> ReLU -> e4m3 -> fc3, what it adds to head outputs 0-7 [..., 8] (f32)."""
        x = torch.cat([normalised, slots], dim=-1)
        h1 = self._e4m3(torch.relu(self.linear("head_mlp.fc1", x)))
        h2 = self._e4m3(torch.relu(self.linear("head_mlp.fc2", h1)))
        return self.linear("head_mlp.fc3", h2)
