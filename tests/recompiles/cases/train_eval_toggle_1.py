"""Validation every other step: model.train() / model.eval() flip the module's `training` flag."""
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.0), nn.Linear(8, 2))
    compiled = torch.compile(model, backend="eager")
    x = torch.randn(4, 8)
    outs = []
    for step in range(8):
        if step % 2:
            model.eval()  # recompile: module-attr-mutated
        else:
            model.train()
        outs.append(compiled(x))
    return outs


if __name__ == "__main__":
    main()
