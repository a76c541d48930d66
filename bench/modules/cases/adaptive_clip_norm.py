import torch
import torch.nn as nn


class SafeBatchNorm1d(nn.BatchNorm1d):
    """BatchNorm that falls back to the running statistics for degenerate batches."""

    def forward(self, x):
        if self.training and x.shape[0] > 1:
            var = x.var(dim=0, unbiased=False)
            if (var < 1e-8).any():
                # a constant feature in this batch; avoid dividing by ~0
                return nn.functional.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                                                False, 0.0, self.eps)
        return super().forward(x)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.bn = SafeBatchNorm1d(6)
        self.out = nn.Linear(6, 2)

    def forward(self, x):
        return self.out(torch.relu(self.bn(self.fc(x))))


def main():
    torch.manual_seed(0)
    model = torch.compile(Head())
    x = torch.randn(8, 6)
    return model(x), model.bn.running_mean.clone()


if __name__ == "__main__":
    main()
