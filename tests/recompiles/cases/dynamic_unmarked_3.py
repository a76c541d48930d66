"""Default dynamic=None, and both the batch and the sequence length vary, at different times."""
import torch


def masked_mean(x, mask):
    return (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1)


def main():
    torch.manual_seed(0)
    fn = torch.compile(masked_mean, backend="eager")
    outs = []
    for batch, seq in ((4, 10), (4, 10), (6, 10), (5, 10), (5, 12), (5, 14), (7, 9), (3, 11)):
        x = torch.randn(batch, seq, 8)  # recompile: dynamic-dim-unmarked
        mask = (torch.rand(batch, seq) > 0.3).float()
        outs.append(fn(x, mask))
    return outs


if __name__ == "__main__":
    main()
