import torch
import torch.nn as nn
import torch._dynamo

torch._dynamo.config.capture_scalar_outputs = True


class RunningNormalizer(nn.Module):
    """Normalises rewards by a running std (PPO-style), reading scalars back as Python floats."""

    def __init__(self, eps=1e-8, clip=10.0):
        super().__init__()
        self.eps, self.clip = eps, clip
        self.register_buffer("var", torch.ones(()))
        self.register_buffer("count", torch.zeros(()))

    def forward(self, rewards):
        batch_var = rewards.var().item()
        n = rewards.numel()
        c = self.count.item()
        new_var = (self.var.item() * c + batch_var * n) / (c + n)
        self.var.fill_(new_var)
        self.count.add_(n)
        return torch.clamp(rewards / (new_var + self.eps) ** 0.5, -self.clip, self.clip)


def main():
    torch.manual_seed(0)
    norm = RunningNormalizer()
    step = torch.compile(norm)
    out = [step(torch.randn(16) * 3) for _ in range(3)]
    return torch.stack(out), norm.var.clone()


if __name__ == "__main__":
    main()
