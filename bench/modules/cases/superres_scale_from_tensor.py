import torch
import torch.nn as nn
import torch.nn.functional as F


class MetaUpsampler(nn.Module):
    """Arbitrary-scale upsampler; the scale arrives as a tensor from the data pipeline."""

    def __init__(self, ch=4):
        super().__init__()
        self.body = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x, scale):
        s = scale.item()
        up = F.interpolate(x, scale_factor=s, mode="bilinear", align_corners=False)
        return up + self.body(up)


def main():
    torch.manual_seed(0)
    m = torch.compile(MetaUpsampler())
    return m(torch.randn(1, 4, 6, 6), torch.tensor(2.0))


if __name__ == "__main__":
    main()
