# Names torch's documentation uses in its examples without making them
# (docs/protocol.md §7 Stage 2, prelude): the optimizer of torch.optim's
# learning-rate scheduler examples ("Assuming optimizer uses lr = 0.05 for all
# groups"), made as the CosineAnnealingWarmRestarts example makes one. An example that uses it
# unbound, and whose docstring, imports and aliases do not give it, gets the
# statement after its import lines.
import torch

optimizer = torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.05)
