"""Progressive growing: the generator is called with the current resolution stage as an int argument."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class UpBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x):
        return F.leaky_relu(self.conv(F.interpolate(x, scale_factor=2.0, mode="nearest")), 0.2)


class Generator(nn.Module):
    def __init__(self, latent=16, ch=8, stages=4):
        super().__init__()
        self.ch = ch
        self.fc = nn.Linear(latent, ch * 4 * 4)
        self.blocks = nn.ModuleList(UpBlock(ch) for _ in range(stages))
        self.to_rgb = nn.ModuleList(nn.Conv2d(ch, 3, 1) for _ in range(stages + 1))

    def forward(self, z, stage):
        x = self.fc(z).view(-1, self.ch, 4, 4)
        for block in self.blocks[:stage]:
            x = block(x)
        return torch.tanh(self.to_rgb[stage](x))


def main():
    torch.manual_seed(0)
    gen = Generator()
    disc_score = nn.Linear(3, 1)
    opt = torch.optim.Adam(gen.parameters(), lr=1e-3)
    g_step = torch.compile(gen, backend="eager")
    losses = []
    schedule = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    for it, stage in enumerate(schedule):
        z = torch.randn(2, 16)
        img = g_step(z, stage)  # recompile: scalar-arg-varies
        loss = -disc_score(img.mean((-2, -1))).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return losses


if __name__ == "__main__":
    main()
