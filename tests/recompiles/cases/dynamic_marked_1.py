"""Near-miss: mark_dynamic on the batch dimension of every batch before the call."""
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = torch.compile(nn.Sequential(nn.Linear(12, 12), nn.GELU()), backend="eager")
    outs = []
    for batch in (8, 6, 7, 5, 9, 4, 3, 10):
        x = torch.randn(batch, 12)
        torch._dynamo.mark_dynamic(x, 0)
        outs.append(model(x).mean(0))
    return outs


if __name__ == "__main__":
    main()
