"""PyTorch reference of the swinup network (docs/model-spec.md), quantised exactly like the
kernels, with straight-through gradients so that it can be trained."""
