import torch
import torch.nn as nn


class MCDropoutModel(nn.Module):
    """Monte-Carlo dropout at test time; each pass reseeds so the ensemble is reproducible."""

    def __init__(self, p=0.3, seed=1234):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Dropout(p), nn.Linear(32, 1))
        self.seed = seed

    def forward(self, x, sample_idx: int):
        torch.manual_seed(self.seed + sample_idx)
        return self.body(x)


def mc_predict(model, x, n_samples=4):
    model.train()  # keep dropout on
    preds = torch.stack([model(x, i) for i in range(n_samples)])
    return preds.mean(0), preds.std(0)


def main():
    model = MCDropoutModel()
    compiled = torch.compile(model)
    torch.manual_seed(0)
    x = torch.randn(5, 6)
    with torch.no_grad():
        return mc_predict(compiled, x)


if __name__ == "__main__":
    main()
