import torch
import torch.nn as nn


class ProbCalibrator(nn.Module):
    """Temperature scaling with runtime sanity checks on the values."""

    def __init__(self, strict=True):
        super().__init__()
        self.log_t = nn.Parameter(torch.zeros(()))
        self.strict = strict

    def forward(self, logits, labels=None):
        probs = torch.softmax(logits / self.log_t.exp(), dim=-1)
        if self.strict:
            assert torch.all(probs >= 0) and torch.all(probs <= 1), "probabilities out of range"
            torch._assert(torch.allclose(probs.sum(-1), torch.ones(probs.shape[0])), "rows must sum to 1")
        if labels is not None:
            assert labels.max() < logits.shape[-1], "label index out of range"
            return nn.functional.nll_loss(probs.clamp_min(1e-12).log(), labels)
        return probs


def main():
    torch.manual_seed(0)
    calib = torch.compile(ProbCalibrator())
    logits = torch.randn(6, 3)
    labels = torch.randint(0, 3, (6,))
    return calib(logits, labels), calib(logits)


if __name__ == "__main__":
    main()
