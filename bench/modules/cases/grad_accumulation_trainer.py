"""Gradient accumulation with a compiled model; the loop (backward, step, zero_grad) is plain Python."""
import math

import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 32), nn.SiLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


class Trainer:
    def __init__(self, model, accum_steps=4, lr=3e-3, max_grad_norm=1.0):
        self.model = torch.compile(model)
        self.raw_model = model
        self.accum_steps = accum_steps
        self.max_grad_norm = max_grad_norm
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.global_step = 0
        self.history = []

    def fit(self, xs, ys, epochs=1):
        n_micro = len(xs)
        for epoch in range(epochs):
            running = 0.0
            for i, (x, y) in enumerate(zip(xs, ys)):
                pred = self.model(x)
                loss = nn.functional.mse_loss(pred, y) / self.accum_steps
                loss.backward()
                running += loss.item()
                if (i + 1) % self.accum_steps == 0 or i + 1 == n_micro:
                    gn = torch.nn.utils.clip_grad_norm_(self.raw_model.parameters(), self.max_grad_norm)
                    if math.isfinite(gn.item()):
                        self.opt.step()
                    self.opt.zero_grad(set_to_none=True)
                    self.global_step += 1
                    self.history.append(running)
                    running = 0.0
        return self.history


def main():
    torch.manual_seed(0)
    xs = [torch.randn(8, 16) for _ in range(8)]
    ys = [x.sum(-1) * 0.1 for x in xs]
    trainer = Trainer(Regressor())
    hist = trainer.fit(xs, ys, epochs=2)
    return torch.tensor(hist)


if __name__ == "__main__":
    print(main())
