"""lucidrains/denoising-diffusion-pytorch: the README's usage (`model = Unet(dim=64, dim_mults=(1, 2, 4, 8),
flash_attn=True)`, `diffusion = GaussianDiffusion(model, image_size=128, timesteps=1000)`, `loss = diffusion(
training_images)`, `loss.backward()`, `diffusion.sample(batch_size=4)`), with the diffusion module compiled
(`diffusion = torch.compile(diffusion)`) for training, a self-conditioned Unet (`self_condition=True`, the
`random() < 0.5` branch of p_losses) and, for sampling, the Unet compiled inside the diffusion
(`diffusion.model = torch.compile(diffusion.model)`, 5 DDIM steps); small sizes, random images.
einops, torchvision, PIL, ema_pytorch and accelerate are not installed: a small einops (rearrange / repeat /
reduce and layers.torch.Rearrange for the patterns on this path; Dynamo traces through it as torch 2.13 traces
through einops 0.8.2; checked against einops 0.8.2 under fullgraph=True), and import-only placeholder modules for
the others (the package imports them at the top; only Trainer uses them).
"""
import random
import sys
import types

import torch
from torch import nn


# --- stand-ins: einops (small, traced through), torchvision / PIL / ema_pytorch / accelerate (import only)
def _groups(side, ell=None):
    out, cur = [], None
    for tok in side.replace("(", " ( ").replace(")", " ) ").split():
        if tok == "(":
            cur = []
        elif tok == ")":
            out.append(cur)
            cur = None
        elif cur is not None:
            cur.append(tok)
        elif tok == "...":
            out.append(["<...>"])
        else:
            out.append([tok])
    if ell is not None:
        expanded = []
        for g in out:
            if g == ["<...>"]:
                for j in range(ell):
                    expanded.append([f"_e{j}"])
            elif "..." in g:
                names = []
                for n in g:
                    if n == "...":
                        for j in range(ell):
                            names.append(f"_e{j}")
                    else:
                        names.append(n)
                expanded.append(names)
            else:
                expanded.append(g)
        out = expanded
    return out


def _prod(values):
    out = 1
    for v in values:
        out = out * v
    return out


def _einops(x, pattern, reduction, sizes):
    left, right = pattern.split("->")
    lg = _groups(left.strip())
    ell = x.dim() - (len(lg) - 1) if ["<...>"] in lg else 0
    lg = _groups(left.strip(), ell)
    rg = _groups(right.strip(), ell)
    known = dict(sizes)
    for g, dim in zip(lg, x.shape):
        names = [n for n in g if n != "1"]
        unknown = [n for n in names if n not in known]
        if len(unknown) == 1:
            known[unknown[0]] = dim // _prod([known[n] for n in names if n in known])
    left_elem = [n for g in lg for n in g if n != "1"]
    right_elem = [n for g in rg for n in g if n != "1"]
    x = x.reshape([known[n] for n in left_elem])
    gone = [i for i, n in enumerate(left_elem) if n not in right_elem]
    if gone:
        if reduction == "mean":
            x = x.mean(dim=gone)
        elif reduction == "sum":
            x = x.sum(dim=gone)
        elif reduction == "max":
            x = x.amax(dim=gone)
        else:
            x = x.amin(dim=gone)
        left_elem = [n for n in left_elem if n in right_elem]
    x = x.permute([left_elem.index(n) for n in right_elem if n in left_elem])
    for i, n in enumerate(right_elem):
        if n not in left_elem:
            x = x.unsqueeze(i)
    x = x.expand([known[n] for n in right_elem])
    return x.reshape([_prod([known[n] for n in g if n != "1"]) for g in rg])


def rearrange(tensor, pattern, /, **axes_lengths):  # an axis may be called `x`
    return _einops(tensor, pattern, None, axes_lengths)


def repeat(tensor, pattern, /, **axes_lengths):
    return _einops(tensor, pattern, None, axes_lengths)


def reduce(tensor, pattern, reduction, /, **axes_lengths):
    return _einops(tensor, pattern, reduction, axes_lengths)


class Rearrange(nn.Module):
    def __init__(self, pattern, **sizes):
        super().__init__()
        self.pattern, self.sizes = pattern, sizes

    def forward(self, x):
        return rearrange(x, self.pattern, **self.sizes)


def _placeholder(attr):
    if attr.startswith("__"):
        raise AttributeError(attr)
    return type(attr, (), {})


def _module(name, **attrs):
    mod = types.ModuleType(name)
    mod.__getattr__ = _placeholder
    for k, v in attrs.items():
        setattr(mod, k, v)
    sys.modules[name] = mod
    return mod


_module("einops", rearrange=rearrange, repeat=repeat, reduce=reduce, pack=None, unpack=None)
_module("einops.layers")
_module("einops.layers.torch", Rearrange=Rearrange)
for _name in ("torchvision", "PIL", "ema_pytorch", "accelerate"):
    _module(_name)
# --- end of stand-ins

from denoising_diffusion_pytorch import GaussianDiffusion, Unet  # noqa: E402


def main():
    torch.manual_seed(0)
    random.seed(0)  # p_losses draws `random() < 0.5` for self-conditioning
    model = Unet(dim=16, dim_mults=(1, 2), flash_attn=True, self_condition=True)
    diffusion = GaussianDiffusion(model, image_size=16, timesteps=20, sampling_timesteps=5)
    opt = torch.optim.Adam(diffusion.parameters(), lr=1e-4)
    compiled = torch.compile(diffusion)
    for _ in range(3):
        training_images = torch.rand(2, 3, 16, 16)  # images are normalized from 0 to 1
        loss = compiled(training_images)
        loss.backward()
        opt.step()
        opt.zero_grad()
    diffusion.model = torch.compile(diffusion.model)
    sampled_images = diffusion.sample(batch_size=2)
    return loss.detach(), sampled_images


if __name__ == "__main__":
    main()
