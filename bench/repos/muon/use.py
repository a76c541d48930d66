"""KellerJordan/Muon: the README's usage (hidden weights with Muon, the rest with the auxiliary Adam, in one
optimizer; the single-device variant SingleDeviceMuonWithAuxAdam, as no process group runs here), with the
optimizer step compiled as PyTorch's "compiling the optimizer" recipe does (`@torch.compile` on a function
calling `opt.step()`), and the model compiled too; a small MLP with embed / body / head, random data.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from muon import SingleDeviceMuonWithAuxAdam


class Net(nn.Module):
    def __init__(self, vocab=64, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.body = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.LayerNorm(dim), nn.Linear(dim, dim))
        self.head = nn.Linear(dim, vocab)

    def forward(self, x):
        return self.head(self.body(self.embed(x)))


def main():
    torch.manual_seed(0)
    model = Net()
    hidden_weights = [p for p in model.body.parameters() if p.ndim >= 2]
    hidden_gains_biases = [p for p in model.body.parameters() if p.ndim < 2]
    nonhidden_params = [*model.head.parameters(), *model.embed.parameters()]
    param_groups = [
        dict(params=hidden_weights, use_muon=True, lr=0.02, weight_decay=0.01),
        dict(params=hidden_gains_biases + nonhidden_params, use_muon=False, lr=3e-4, betas=(0.9, 0.95),
             weight_decay=0.01),
    ]
    optimizer = SingleDeviceMuonWithAuxAdam(param_groups)
    model = torch.compile(model)

    @torch.compile(fullgraph=False)
    def opt_step():
        optimizer.step()

    for _ in range(3):
        x = torch.randint(0, 64, (4, 8))
        loss = F.cross_entropy(model(x).flatten(0, 1), x.roll(1, dims=1).flatten())
        loss.backward()
        opt_step()
        optimizer.zero_grad(set_to_none=True)
    return loss.detach()


if __name__ == "__main__":
    main()
