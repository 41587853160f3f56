"""Training of the network through its recurrence, one concern a module; python -m swinup.train
(../train.py) puts them together:

options.py        the command line and its checks
run_folder.py     where a run starts (the shipped checkpoint, read only) and where it writes
start.py          the network a run starts from, with the head MLP and experiments it asks for
parallel.py       data-parallel ranks: devices, the gradient mean, the common stop
batches.py        the clips a step trains on (sequence folders, 2.5D layers, burn-in, mirrors)
recurrence.py     a clip unrolled through staging, the network and the output pass
losses.py         the spatial, display and temporal terms of a clip
schedule.py       the learning rate along a chunk (warm-up, cosine decay)
optimizer.py      AdamW's parameter groups and the optimiser-state side file
trained_parameters.py  which parameters train (--train-only), never mask_embed.bias
checkpoint.py     training checkpoints: written atomically, read back checked
history.py        the chunk record a checkpoint keeps and the weights file's one-line summary
held_out.py       the held-out scene, never trained or fitted on
reserved_rows.py  head outputs 8-15 kept zero unless an experiment reads them
loop.py           the steps of one chunk
"""
