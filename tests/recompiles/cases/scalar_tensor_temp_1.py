"""Near-miss: temperature is kept as a tensor and the greedy/sampling choice is made outside the compiled code."""
import torch


def scaled_softmax(logits, temperature):
    return torch.softmax(logits / temperature, -1)


def main():
    torch.manual_seed(0)
    fn = torch.compile(scaled_softmax, backend="eager")
    logits = torch.randn(4, 20)
    outs = []
    for i in range(10):
        temperature = torch.full((), 0.1 * (i + 1))
        outs.append(fn(logits, temperature))
    return outs


if __name__ == "__main__":
    main()
