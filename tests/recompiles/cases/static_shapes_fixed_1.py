"""Near-miss: dynamic=False, but every batch is padded to the same length first."""
import torch
import torch.nn.functional as F


@torch.compile(backend="eager", dynamic=False)
def encode(tokens, table):
    return table[tokens].mean(0)


def main():
    torch.manual_seed(0)
    table = torch.randn(100, 8)
    outs = []
    for length in range(3, 13):
        tokens = torch.randint(1, 100, (length,))
        tokens = F.pad(tokens, (0, 16 - length))
        outs.append(encode(tokens, table))
    return outs


if __name__ == "__main__":
    main()
