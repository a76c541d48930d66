import torch
import torch.nn as nn


class PatchEmbed(nn.Module):
    def __init__(self, img_size=16, patch=4, in_chans=3, dim=32):
        super().__init__()
        self.num_patches = (img_size // patch) ** 2
        self.proj = nn.Conv2d(in_chans, dim, patch, patch)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class MaskedEncoder(nn.Module):
    """MAE-style encoder: keeps a random subset of patches per sample."""

    def __init__(self, dim=32, mask_ratio=0.75, depth=2):
        super().__init__()
        self.patch_embed = PatchEmbed(dim=dim)
        self.pos = nn.Parameter(torch.zeros(1, self.patch_embed.num_patches, dim))
        self.blocks = nn.ModuleList([nn.TransformerEncoderLayer(dim, 4, dim * 2, dropout=0.0, batch_first=True)
                                     for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.mask_ratio = mask_ratio

    def random_masking(self, x):
        N, L, D = x.shape
        len_keep = int(L * (1 - self.mask_ratio))
        noise = torch.rand(N, L, device=x.device)
        ids_shuffle = torch.argsort(noise, dim=1)
        ids_restore = torch.argsort(ids_shuffle, dim=1)
        ids_keep = ids_shuffle[:, :len_keep]
        x_masked = torch.gather(x, dim=1, index=ids_keep.unsqueeze(-1).repeat(1, 1, D))
        mask = torch.ones([N, L], device=x.device)
        mask[:, :len_keep] = 0
        mask = torch.gather(mask, dim=1, index=ids_restore)
        return x_masked, mask, ids_restore

    def forward(self, imgs):
        x = self.patch_embed(imgs) + self.pos
        x, mask, ids_restore = self.random_masking(x)
        for blk in self.blocks:
            x = blk(x)
        return self.norm(x), mask, ids_restore


def main():
    torch.manual_seed(0)
    enc = MaskedEncoder().eval()
    enc = torch.compile(enc, fullgraph=True)
    latent, mask, ids = enc(torch.randn(2, 3, 16, 16))
    return latent, mask, ids


if __name__ == "__main__":
    main()
