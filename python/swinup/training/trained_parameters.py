"""Which of the network's parameters a run trains: all of them, or only those train.py
--train-only names (the rest frozen: no gradient, no optimiser state, bit for bit what the start
held); and never mask_embed.bias, which stays exactly zero.

Why the bias never trains: the network adds mask_embed's output to its first layer's, and without
masks that output is the bias alone (docs/masks.md). A frame without masks must be computed as a
frame with zero masks, and the GPU backends, which make no mask plane for such a frame, refuse a
weights file whose mask_embed bias is not zero. Zero masks make a zero input, so a zero bias is
what lets them skip the layer; the bias is therefore never a parameter training may move."""
from ..model import _key

# Never trained (see above); export refuses a checkpoint where it is not zero.
NEVER_TRAINED = ("mask_embed.bias",)


def network_parameter_names(model) -> list:
    """The names train.py --train-only accepts: the network's parameters in the spec's dotted
    form (weights files' tensor names: "mask_embed.weight", "head.linear.bias", ...)."""
    return [s.name for s in model.specs if not s.name.endswith(".scale")]


def check_train_only(model, names) -> list:
    """The --train-only names, checked against the model; raises ValueError naming a name it does
    not have or one that is never trained."""
    known = network_parameter_names(model)
    for name in names:
        if name in NEVER_TRAINED:
            raise ValueError(f"--train-only {name}: it stays exactly zero (the GPU backends refuse a "
                             "non-zero mask_embed bias); train mask_embed.weight")
        if name not in known:
            hint = ("; the mask embedding needs --masks" if name.startswith("mask_embed.") else "")
            raise ValueError(f"--train-only {name}: the {model.cfg.variant} network has no such parameter"
                             f"{hint} (names as in weights files, e.g. {', '.join(known[:2])}, "
                             "mask_embed.weight)")
    if not names:
        raise ValueError("--train-only: name at least one parameter")
    return list(dict.fromkeys(names))


def freeze_untrained(model, train_only=None):
    """Sets requires_grad: with train_only (a list of names, check_train_only's), only those of
    the network's parameters train, and every other parameter of the model, the network's and any
    attached experiment's, is frozen; without it all train. NEVER_TRAINED is frozen either way.
    Returns the names of the network's parameters that train."""
    names = network_parameter_names(model)
    if train_only is not None:
        model.requires_grad_(False)
        trained = set(check_train_only(model, train_only))
    else:
        model.requires_grad_(True)
        trained = set(names)
    trained -= set(NEVER_TRAINED)
    for name in names:
        model.params[_key(name)].requires_grad_(name in trained)
    return [n for n in names if n in trained]


def trained_names(model) -> list:
    """The names of the network's parameters that train (requires_grad), in the spec's order."""
    return [n for n in network_parameter_names(model) if model.params[_key(n)].requires_grad]


def trainable(params):
    """The parameters among `params` that train (requires_grad)."""
    return [p for p in params if p.requires_grad]
