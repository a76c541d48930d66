"""A DDIM-style sampler: the compiled denoiser gets the timestep and guidance scale as Python floats."""
import math

import torch
import torch.nn as nn


class Denoiser(nn.Module):
    def __init__(self, channels=3, hidden=16, emb=8):
        super().__init__()
        self.emb = emb
        self.time_mlp = nn.Sequential(nn.Linear(emb, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
        self.conv_in = nn.Conv2d(channels, hidden, 3, padding=1)
        self.conv_mid = nn.Conv2d(hidden, hidden, 3, padding=1)
        self.conv_out = nn.Conv2d(hidden, channels, 3, padding=1)

    def timestep_embedding(self, t):
        half = self.emb // 2
        freqs = torch.exp(-math.log(10000.0) * torch.arange(half) / half)
        args = t * freqs
        return torch.cat([torch.sin(args), torch.cos(args)])

    def forward(self, x, t, guidance):
        temb = self.time_mlp(self.timestep_embedding(t))[None, :, None, None]
        h = torch.relu(self.conv_in(x) + temb)
        h = torch.relu(self.conv_mid(h))
        eps = self.conv_out(h)
        return eps * guidance


def alpha_bar(t, total):
    return math.cos((t / total + 0.008) / 1.008 * math.pi / 2) ** 2


@torch.no_grad()
def sample(model, steps=8, total=1000, guidance=1.5, shape=(1, 3, 8, 8)):
    denoise = torch.compile(model, backend="eager")
    g = torch.Generator().manual_seed(3)
    x = torch.randn(shape, generator=g)
    timesteps = [total - 1 - i * (total // steps) for i in range(steps)]
    for i, t in enumerate(timesteps):
        a_t = alpha_bar(t, total)
        a_prev = alpha_bar(timesteps[i + 1], total) if i + 1 < steps else 1.0
        eps = denoise(x, float(t), guidance)  # recompile: scalar-arg-varies
        x0 = (x - math.sqrt(1 - a_t) * eps) / math.sqrt(a_t)
        x = math.sqrt(a_prev) * x0 + math.sqrt(1 - a_prev) * eps
    return x


def main():
    torch.manual_seed(0)
    model = Denoiser().eval()
    return [sample(model)]


if __name__ == "__main__":
    main()
