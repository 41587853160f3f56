"""Experiments no backend runs (docs/model-spec.md is what the backends run): modules a training
run attaches to the network with train.py options (--display-refine, --pixel-mlp, --history-clip,
--sample-residual), kept in training checkpoints under their names and refused by export
(experiments.py). The studies that used them are recorded in docs/journal/."""
