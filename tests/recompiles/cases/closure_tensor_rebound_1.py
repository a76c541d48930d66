"""Near-miss: the compiled closure reads `bias`, rebound to a fresh tensor of the same shape each step."""
import torch


def main():
    torch.manual_seed(0)
    bias = torch.zeros(3)

    def forward(x):
        return x + bias

    fn = torch.compile(forward, backend="eager")
    outs = []
    for step in range(10):
        outs.append(fn(torch.randn(2, 3)))
        bias = bias + 0.1
    return outs


if __name__ == "__main__":
    main()
