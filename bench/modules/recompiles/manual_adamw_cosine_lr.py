"""A hand-written AdamW step compiled once and fed the cosine-scheduled learning rate as a Python float."""
import math

import torch
import torch.nn as nn


def adamw_step(params, grads, exp_avgs, exp_avg_sqs, lr, step, beta1=0.9, beta2=0.999, eps=1e-8, wd=0.01):
    bias1 = 1 - beta1 ** step
    bias2 = 1 - beta2 ** step
    for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs):
        p.mul_(1 - lr * wd)
        m.lerp_(g, 1 - beta1)
        v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        denom = (v / bias2).sqrt().add_(eps)
        p.addcdiv_(m, denom, value=-lr / bias1)


def cosine_lr(step, total, base=3e-3, warmup=2):
    if step < warmup:
        return base * (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return base * 0.5 * (1 + math.cos(math.pi * progress))


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def main():
    torch.manual_seed(0)
    model = Regressor()
    params = [p for p in model.parameters()]
    exp_avgs = [torch.zeros_like(p) for p in params]
    exp_avg_sqs = [torch.zeros_like(p) for p in params]
    opt_step = torch.compile(adamw_step, backend="eager")
    x, y = torch.randn(64, 10), torch.randn(64)
    total = 10
    losses = []
    for step in range(total):
        loss = ((model(x) - y) ** 2).mean()
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            opt_step(params, list(grads), exp_avgs, exp_avg_sqs, cosine_lr(step, total), step + 1)  # recompile: scalar-arg-varies
        losses.append(loss.detach())
    return losses


if __name__ == "__main__":
    main()
