"""lucidrains/vit-pytorch: the README's ViT and SimpleViT (`v = ViT(...)`, `preds = v(img)`), its MAE
pre-training (`mae = MAE(encoder=v, ...)`, `loss = mae(images)`, `loss.backward()`) and NaViT on lists of
images of different resolutions (`preds = v(images)`), each compiled, small sizes.
einops and torchvision are not installed: a small einops (rearrange / repeat / layers.torch.Rearrange,
the patterns vit-pytorch uses; Dynamo traces through it as torch 2.13 traces through einops 0.8.2), and an
import-only torchvision (vit_pytorch/__init__.py imports dino.py, which imports it).  The stand-in was checked
against einops 0.8.2 (a wheel unpacked outside the venv): the same break sites.
"""
import sys
import types

import torch
from torch import nn


# --- stand-ins: einops and torchvision are not installed
def _groups(side, ndim=None):
    out, cur, depth = [], None, 0
    for tok in side.replace("(", " ( ").replace(")", " ) ").split():
        if tok == "(":
            cur = []
        elif tok == ")":
            out.append(cur)
            cur = None
        elif cur is not None:
            cur.append(tok)
        else:
            out.append([tok])
    if ndim is not None and ["..."] in out:
        i = out.index(["..."])
        k = ndim - (len(out) - 1)
        out[i:i + 1] = [[f"_e{j}"] for j in range(k)]
    return out


def _prod(values):
    out = 1
    for v in values:
        out = out * v
    return out


def _einops(x, pattern, **sizes):
    left, right = pattern.split("->")
    lg = _groups(left.strip(), x.dim())
    n_ellipsis = 0
    for g in lg:
        if g[0].startswith("_e"):
            n_ellipsis += 1
    rg = _groups(right.strip())
    if ["..."] in rg:
        i = rg.index(["..."])
        rg[i:i + 1] = [[f"_e{j}"] for j in range(n_ellipsis)]
    known = dict(sizes)
    for g, dim in zip(lg, x.shape):
        names = [n for n in g if n != "1"]
        unknown = [n for n in names if n not in known]
        if len(unknown) == 1:
            known[unknown[0]] = dim // _prod([known[n] for n in names if n in known])
    left_elem = [n for g in lg for n in g if n != "1"]
    right_elem = [n for g in rg for n in g if n != "1"]
    x = x.reshape([known[n] for n in left_elem])
    x = x.permute([left_elem.index(n) for n in right_elem if n in left_elem])
    for i, n in enumerate(right_elem):
        if n not in left_elem:
            x = x.unsqueeze(i)
    x = x.expand([known[n] for n in right_elem])
    return x.reshape([_prod([known[n] for n in g if n != "1"]) for g in rg])


def rearrange(x, pattern, **sizes):
    return _einops(x, pattern, **sizes)


def repeat(x, pattern, **sizes):
    return _einops(x, pattern, **sizes)


class Rearrange(nn.Module):
    def __init__(self, pattern, **sizes):
        super().__init__()
        self.pattern, self.sizes = pattern, sizes

    def forward(self, x):
        return rearrange(x, self.pattern, **self.sizes)


_einops_mod = types.ModuleType("einops")
_einops_mod.rearrange, _einops_mod.repeat = rearrange, repeat
_einops_layers = types.ModuleType("einops.layers")
_einops_torch = types.ModuleType("einops.layers.torch")
_einops_torch.Rearrange = Rearrange
_tv = types.ModuleType("torchvision")
_tv.transforms = types.ModuleType("torchvision.transforms")
for _name, _mod in (("einops", _einops_mod), ("einops.layers", _einops_layers), ("einops.layers.torch", _einops_torch),
                    ("torchvision", _tv), ("torchvision.transforms", _tv.transforms)):
    sys.modules[_name] = _mod
# --- end of stand-ins

from vit_pytorch import MAE, SimpleViT, ViT  # noqa: E402
from vit_pytorch.na_vit import NaViT  # noqa: E402


def main():
    torch.manual_seed(0)
    v = ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dropout=0.1,
            emb_dropout=0.1)
    img = torch.randn(2, 3, 32, 32)
    preds = torch.compile(v)(img)
    assert preds.shape == (2, 10)

    sv = SimpleViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64)
    preds2 = torch.compile(sv)(img)

    # MAE with a cls-pooled ViT fails in eager at this commit (mae.py indexes pos_embedding as 3-D, vit.py made
    # it 2-D): the encoder is mean-pooled, as SimpleViT is
    v = ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, pool='mean')
    mae = MAE(encoder=v, masking_ratio=0.75, decoder_dim=32, decoder_depth=1)
    mae = torch.compile(mae)
    opt = torch.optim.Adam(mae.parameters(), lr=3e-4)
    for _ in range(2):
        loss = mae(img)
        opt.zero_grad()
        loss.backward()
        opt.step()

    nv = NaViT(image_size=64, patch_size=16, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dropout=0.1,
               emb_dropout=0.1, token_dropout_prob=0.1)
    nv = torch.compile(nv)
    images = [[torch.randn(3, 64, 64), torch.randn(3, 32, 32)], [torch.randn(3, 32, 64), torch.randn(3, 64, 32)],
              [torch.randn(3, 16, 64)]]
    preds3 = nv(images)
    return preds, preds2, loss.detach(), preds3


if __name__ == "__main__":
    main()
