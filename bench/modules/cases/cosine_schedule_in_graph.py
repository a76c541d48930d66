import math
import torch
import torch.nn as nn


def cosine_lr(step, base_lr, warmup_steps, total_steps, min_ratio=0.1):
    """Warmup + cosine decay, written with tensor ops so it can live inside the compiled step."""
    step = step.float()
    warm = step / max(1, warmup_steps)
    progress = ((step - warmup_steps) / max(1, total_steps - warmup_steps)).clamp(0.0, 1.0)
    cos = 0.5 * (1.0 + torch.cos(math.pi * progress))
    decay = min_ratio + (1 - min_ratio) * cos
    return base_lr * torch.where(step < warmup_steps, warm, decay)


class SGDWithSchedule(nn.Module):
    def __init__(self, params, base_lr=0.1, warmup=3, total=20):
        super().__init__()
        self.params = list(params)
        self.base_lr, self.warmup, self.total = base_lr, warmup, total
        self.register_buffer("step", torch.zeros((), dtype=torch.long))

    @torch.no_grad()
    def forward(self):
        lr = cosine_lr(self.step, self.base_lr, self.warmup, self.total)
        for p in self.params:
            if p.grad is not None:
                p.sub_(lr * p.grad)
        self.step += 1
        return lr


def main():
    torch.manual_seed(0)
    lin = nn.Linear(6, 1)
    sched_opt = SGDWithSchedule(lin.parameters())
    sched_opt.compile(fullgraph=True)
    x, y = torch.randn(12, 6), torch.randn(12, 1)
    lrs = []
    for _ in range(5):
        lin.zero_grad()
        nn.functional.mse_loss(lin(x), y).backward()
        lrs.append(sched_opt())
    return torch.stack(lrs), lin.weight.detach().clone()


if __name__ == "__main__":
    print(main())
