import torch


@torch.compile(backend="eager")
def export_step(x):
    print("exporting")
    return x + 1
