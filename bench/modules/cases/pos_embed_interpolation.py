import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ViTEmbed(nn.Module):
    """Patch + position embedding that interpolates the position grid for other image sizes (DINO)."""

    def __init__(self, img_size=16, patch=4, dim=24):
        super().__init__()
        self.patch = patch
        self.proj = nn.Conv2d(3, dim, patch, patch)
        n = (img_size // patch) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, n + 1, dim) * 0.02)

    def interpolate_pos_encoding(self, x, w, h):
        npatch = x.shape[1] - 1
        N = self.pos_embed.shape[1] - 1
        if npatch == N and w == h:
            return self.pos_embed
        class_pos = self.pos_embed[:, 0]
        patch_pos = self.pos_embed[:, 1:]
        dim = x.shape[-1]
        w0, h0 = w // self.patch, h // self.patch
        side = int(math.sqrt(N))
        patch_pos = F.interpolate(patch_pos.reshape(1, side, side, dim).permute(0, 3, 1, 2),
                                  size=(h0, w0), mode="bicubic", align_corners=False)
        patch_pos = patch_pos.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos.unsqueeze(0), patch_pos), dim=1)

    def forward(self, img):
        B, _, h, w = img.shape
        x = self.proj(img).flatten(2).transpose(1, 2)
        x = torch.cat((self.cls_token.expand(B, -1, -1), x), dim=1)
        return x + self.interpolate_pos_encoding(x, w, h)


def main():
    torch.manual_seed(0)
    embed = torch.compile(ViTEmbed(), fullgraph=True)
    a = embed(torch.randn(2, 3, 16, 16))
    b = embed(torch.randn(2, 3, 24, 24))
    return a, b


if __name__ == "__main__":
    main()
