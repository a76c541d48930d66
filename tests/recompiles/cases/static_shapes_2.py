"""dynamic=False on a text encoder fed unpadded sequences of growing length."""
import torch


@torch.compile(backend="eager", dynamic=False)
def encode(tokens, table):
    return table[tokens].mean(0)


def main():
    torch.manual_seed(0)
    table = torch.randn(100, 8)
    outs = []
    for length in range(3, 13):
        tokens = torch.randint(0, 100, (length,))  # recompile: shape-varies-static
        outs.append(encode(tokens, table))  # recompile: shape-varies-static
    return outs


if __name__ == "__main__":
    main()
