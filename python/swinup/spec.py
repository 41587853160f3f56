"""The network's structure, mirroring src/model/model_spec.{h,cpp} (the single source of truth for
names and shapes): variants, blocks in execution order and the weight tensors in file order."""
from dataclasses import dataclass, field
import json

SLOTS = 16
HEAD_OUTPUTS = 16
WINDOW = 4
WINDOW_TOKENS = 16
SHIFT = 2
PAD_MULTIPLE = 32
RMS_EPS = 1.0 / 8192.0
# 2 (2026-11-30): staging slots 3-5 hold t(history) - t(colour), jitter-aware blend; 3
# (2026-12-02): the config says whether the network has the head MLP; a version-2 file is a network
# without it (src/model/model_spec.h); 4 (2026-12-04): the config carries still_history_shift, added
# to the history weight's logit where a render pixel's dilated motion is exactly zero (0 in older
# files); 5 (2026-12-05): the config says whether the network reads the reactive and transparency
# masks (`masks`, the layer `mask_embed`; docs/masks.md); older files are networks without it.
FORMAT_VERSION = 5
OLDEST_FORMAT_VERSION = 2
MAX_STILL_HISTORY_SHIFT = 8.0  # src/model/model_spec.h kMaxStillHistoryShift
# The head MLP (docs/model-spec.md, "The head MLP"): the head's 32 normalised channels and the 16
# staged slots -> 64 -> 64 -> 8, added to head outputs 0-7.
HEAD_MLP_INPUTS = 32 + SLOTS
HEAD_MLP_HIDDEN = 64
HEAD_MLP_OUTPUTS = 8
# The mask embedding (docs/masks.md): lite 2x2 pixels' (reactive, transparency) pairs, index
# (dy*2 + dx)*2 + k -> C1, added to embed's f32 output; full one pixel's pair -> C0, added to
# embed0's.
MASK_INPUTS = 2


@dataclass
class BlockSpec:
    name: str
    level: int
    channels: int
    heads: int


@dataclass
class ModelConfig:
    variant: str = "lite"
    tube_blocks: int = 4
    channels: list = field(default_factory=lambda: [32, 64, 96, 128])
    heads: list = field(default_factory=lambda: [2, 2, 4, 4])
    head_mlp: bool = False
    # Added to head output 7's logit at render pixels whose dilated motion is exactly zero
    # (docs/model-spec.md, "Output pass"; weights format 4); an inference-time constant of the
    # exported network, which training does not see (export.py sets it).
    still_history_shift: float = 0.0
    # Whether the network reads the masks through mask_embed (weights format 5).
    masks: bool = False

    def mask_embed_shape(self):
        """(inputs, outputs) of mask_embed: lite 8 -> C1, full 2 -> C0."""
        if self.variant == "lite":
            return 4 * MASK_INPUTS, self.channels[1]
        return MASK_INPUTS, self.channels[0]

    def blocks(self):
        b = []

        def add(name, level):
            b.append(BlockSpec(name, level, self.channels[level], self.heads[level]))
        if self.variant == "full":
            add("enc0", 0)
        add("enc1", 1)
        add("enc2", 2)
        for i in range(self.tube_blocks):
            add(f"tube{i}", 3)
        add("dec2", 2)
        add("dec1", 1)
        if self.variant == "full":
            add("dec0", 0)
        return b

    def to_json(self, version: int = FORMAT_VERSION) -> str:
        # Same keys and order as ModelConfig::to_json (nlohmann sorts keys alphabetically); format
        # 2 had no head_mlp key.
        d = {"channels": self.channels, "head_mlp": self.head_mlp, "head_outputs": HEAD_OUTPUTS, "heads": self.heads,
             "masks": self.masks, "slots": SLOTS, "still_history_shift": float(self.still_history_shift),
             "tube_blocks": self.tube_blocks, "variant": self.variant, "window": WINDOW}
        if version < 4:
            if self.still_history_shift != 0.0:
                raise ValueError("weights formats 2 and 3 have no still-pixel history shift")
            del d["still_history_shift"]
        if version < 3:
            if self.head_mlp:
                raise ValueError("weights format 2 has no head MLP")
            del d["head_mlp"]
        if version < 5:
            if self.masks:
                raise ValueError("weights formats 2 to 4 have no mask embedding")
            del d["masks"]
        return json.dumps(d, separators=(",", ":"))

    @staticmethod
    def make(variant: str, head_mlp: bool = False, still_history_shift: float = 0.0,
             masks: bool = False) -> "ModelConfig":
        if variant not in ("lite", "full"):
            raise ValueError(f"variant must be 'lite' or 'full', not {variant!r}")
        return ModelConfig(variant=variant, head_mlp=bool(head_mlp), still_history_shift=float(still_history_shift),
                           masks=bool(masks))


@dataclass
class TensorSpec:
    name: str
    dtype: str  # "F8_E4M3", "F16", "F32"
    shape: tuple


def model_tensors(cfg: ModelConfig):
    """Every tensor of the model in the order model_tensors() of model_spec.cpp lists them."""
    t = []
    ch = cfg.channels

    def linear(name, n_in, n_out):
        t.append(TensorSpec(name + ".weight", "F8_E4M3", (n_out, n_in)))
        t.append(TensorSpec(name + ".scale", "F32", (n_out,)))
        t.append(TensorSpec(name + ".bias", "F32", (n_out,)))

    def norm(name, c):
        t.append(TensorSpec(name + ".gain", "F32", (c,)))

    blocks = {b.name: b for b in cfg.blocks()}

    def block(name):
        b = blocks[name]
        c = b.channels
        norm(name + ".norm1", c)
        linear(name + ".qkv", c, 3 * c)
        t.append(TensorSpec(name + ".rel_bias", "F16", (b.heads, WINDOW_TOKENS, WINDOW_TOKENS)))
        linear(name + ".proj", c, c)
        norm(name + ".norm2", c)
        linear(name + ".fc1", c, 4 * c)
        linear(name + ".fc2", 4 * c, c)

    def merge(name, c_in, c_out):
        norm(name + ".norm", 4 * c_in)
        linear(name + ".linear", 4 * c_in, c_out)

    def expand(name, c_in, c_out):
        norm(name + ".norm", c_in)
        linear(name + ".linear", c_in, 4 * c_out)

    if cfg.variant == "lite":
        linear("embed", 4 * SLOTS, ch[1])
        if cfg.masks:
            linear("mask_embed", *cfg.mask_embed_shape())
    else:
        linear("embed0", SLOTS, ch[0])
        if cfg.masks:
            linear("mask_embed", *cfg.mask_embed_shape())
        linear("embed1", ch[0], ch[0])
        block("enc0")
        merge("merge0", ch[0], ch[1])
    block("enc1")
    merge("merge1", ch[1], ch[2])
    block("enc2")
    merge("merge2", ch[2], ch[3])
    for i in range(cfg.tube_blocks):
        block(f"tube{i}")
    expand("expand2", ch[3], ch[2])
    block("dec2")
    expand("expand1", ch[2], ch[1])
    block("dec1")
    expand("expand0", ch[1], ch[0])
    if cfg.variant == "lite":
        linear("skip0", SLOTS, ch[0])
    else:
        block("dec0")
    norm("head.norm", ch[0])
    linear("head.linear", ch[0], HEAD_OUTPUTS)
    if cfg.head_mlp:
        linear("head_mlp.fc1", HEAD_MLP_INPUTS, HEAD_MLP_HIDDEN)
        linear("head_mlp.fc2", HEAD_MLP_HIDDEN, HEAD_MLP_HIDDEN)
        linear("head_mlp.fc3", HEAD_MLP_HIDDEN, HEAD_MLP_OUTPUTS)
    return t


def pad_to_grid(n: int) -> int:
    return (n + PAD_MULTIPLE - 1) // PAD_MULTIPLE * PAD_MULTIPLE
