import torch
import torch.nn as nn
from torch.func import functional_call, grad, vmap


class LogReg(nn.Module):
    def __init__(self, d=5):
        super().__init__()
        self.lin = nn.Linear(d, 1)

    def forward(self, x):
        return self.lin(x).squeeze(-1)


def make_per_sample_grad(model):
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss_fn(p, x, y):
        logits = functional_call(model, p, (x.unsqueeze(0),))
        return nn.functional.binary_cross_entropy_with_logits(logits, y.unsqueeze(0))

    @torch.compile(fullgraph=True)
    def per_sample(x, y):
        g = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, x, y)
        norms = torch.stack([v.flatten(1).norm(dim=1) for v in g.values()], dim=1).norm(dim=1)
        return g, norms

    return per_sample


def main():
    torch.manual_seed(0)
    model = LogReg()
    fn = make_per_sample_grad(model)
    x = torch.randn(6, 5)
    y = (torch.rand(6) > 0.5).float()
    g, norms = fn(x, y)
    return g["lin.weight"], norms


if __name__ == "__main__":
    main()
