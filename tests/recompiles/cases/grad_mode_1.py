"""Train steps with grad and validation steps under torch.no_grad() interleave on the same compiled model."""
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = torch.compile(nn.Linear(6, 6), backend="eager")
    x = torch.randn(2, 6)
    outs = []
    for step in range(8):
        if step % 2:
            with torch.no_grad():  # recompile: grad-mode-varies
                outs.append(model(x))
        else:
            outs.append(model(x).detach())
    return outs


if __name__ == "__main__":
    main()
