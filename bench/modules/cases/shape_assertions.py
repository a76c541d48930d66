import torch
import torch.nn as nn


def check_image_batch(x: torch.Tensor, channels: int) -> None:
    if x.ndim != 4:
        raise ValueError(f"expected NCHW input, got shape {tuple(x.shape)}")
    if x.shape[1] != channels:
        raise ValueError(f"expected {channels} channels, got {x.shape[1]}")
    torch._assert(x.shape[-1] % 4 == 0, "width must be divisible by 4")


class UNetTiny(nn.Module):
    def __init__(self, in_ch=3, base=8, n_classes=2):
        super().__init__()
        self.in_ch = in_ch
        self.down1 = nn.Sequential(nn.Conv2d(in_ch, base, 3, padding=1), nn.ReLU())
        self.down2 = nn.Sequential(nn.Conv2d(base, base * 2, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(base * 2, base, 2, stride=2)
        self.head = nn.Conv2d(base * 2, n_classes, 1)

    def forward(self, x):
        check_image_batch(x, self.in_ch)
        d1 = self.down1(x)
        d2 = self.down2(nn.functional.max_pool2d(d1, 2))
        u = self.up(d2)
        assert u.shape[-2:] == d1.shape[-2:], (u.shape, d1.shape)
        out = self.head(torch.cat([u, d1], dim=1))
        assert out.shape[0] == x.shape[0]
        return out


def main():
    torch.manual_seed(0)
    net = torch.compile(UNetTiny(), fullgraph=True)
    return net(torch.randn(2, 3, 16, 16))


if __name__ == "__main__":
    main()
