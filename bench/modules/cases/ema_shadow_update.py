import torch
import torch.nn as nn


class ModelEMA:
    """Exponential moving average of a model's weights (timm / YOLO style)."""

    def __init__(self, model: nn.Module, decay: float = 0.999, warmup: int = 10):
        self.decay = decay
        self.warmup = warmup
        self.updates = 0
        self.shadow = {k: v.detach().clone() for k, v in model.state_dict().items()}

    @torch.no_grad()
    def _update(self, shadow, params, d):
        for k, v in params.items():
            if v.dtype.is_floating_point:
                shadow[k].mul_(d).add_(v.detach(), alpha=1.0 - d)
            else:
                shadow[k].copy_(v)

    def update(self, model: nn.Module):
        self.updates += 1
        d = self.decay * (1 - torch.exp(torch.tensor(-self.updates / self.warmup)))
        self._compiled_update(self.shadow, model.state_dict(), d)

    def compile(self):
        self._compiled_update = torch.compile(self._update, fullgraph=True)
        return self


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))
    ema = ModelEMA(model).compile()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(16, 8)
    for _ in range(4):
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema.update(model)
    return {k: v.clone() for k, v in ema.shadow.items() if v.dtype.is_floating_point}


if __name__ == "__main__":
    print(main())
