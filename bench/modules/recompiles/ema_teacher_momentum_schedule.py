"""A self-distillation trainer whose compiled EMA update reads a momentum the trainer object ramps each step."""
import math

import torch
import torch.nn as nn


def make_net():
    return nn.Sequential(nn.Linear(12, 24), nn.GELU(), nn.Linear(24, 8))


class DistillTrainer:
    def __init__(self, total_steps, base_momentum=0.99):
        self.student = make_net()
        self.teacher = make_net()
        self.teacher.load_state_dict(self.student.state_dict())
        for p in self.teacher.parameters():
            p.requires_grad_(False)
        self.opt = torch.optim.SGD(self.student.parameters(), lr=0.1)
        self.total_steps = total_steps
        self.base_momentum = base_momentum
        self.momentum = base_momentum
        self.ema = torch.compile(self.ema_update, backend="eager")

    def ema_update(self):
        with torch.no_grad():
            for pt, ps in zip(self.teacher.parameters(), self.student.parameters()):
                pt.mul_(self.momentum).add_(ps.detach(), alpha=1 - self.momentum)

    def step(self, step, x):
        t_out = self.teacher(x).softmax(-1)
        s_out = self.student(x).log_softmax(-1)
        loss = -(t_out * s_out).sum(-1).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        # cosine ramp of the teacher momentum toward 1
        self.momentum = 1 - (1 - self.base_momentum) * (math.cos(math.pi * step / self.total_steps) + 1) / 2  # recompile: object-attr-mutated
        self.ema()
        return loss.detach()


@torch.no_grad()
def agreement(trainer, x):
    return (trainer.teacher(x).argmax(-1) == trainer.student(x).argmax(-1)).float().mean()


def main():
    torch.manual_seed(0)
    trainer = DistillTrainer(total_steps=10)
    g = torch.Generator().manual_seed(5)
    losses = [trainer.step(s, torch.randn(6, 12, generator=g)) for s in range(10)]
    return losses + [agreement(trainer, torch.randn(6, 12, generator=g))]


if __name__ == "__main__":
    main()
