"""A sampler gets a temperature per step; the compiled code branches on it (greedy below 0.5)."""
import torch


def sample_logits(logits, temperature):
    if temperature < 0.5:
        return logits.argmax(-1).float()
    return torch.softmax(logits / temperature, -1).max(-1).values


def main():
    torch.manual_seed(0)
    sample = torch.compile(sample_logits, backend="eager")
    logits = torch.randn(4, 20)
    outs = []
    for i in range(10):
        temperature = 0.1 * (i + 1)
        outs.append(sample(logits, temperature))  # recompile: scalar-arg-varies
    return outs


if __name__ == "__main__":
    main()
