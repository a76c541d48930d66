from collections.abc import Mapping, Sequence

import torch
import torch.nn as nn


def apply_to_collection(data, fn):
    """Recursively apply `fn` to every tensor in nested dicts / lists / tuples (Lightning-style)."""
    if isinstance(data, torch.Tensor):
        return fn(data)
    if isinstance(data, Mapping):
        return {k: apply_to_collection(v, fn) for k, v in data.items()}
    if isinstance(data, Sequence) and not isinstance(data, str):
        return type(data)(apply_to_collection(v, fn) for v in data)
    return data


def tree_depth(data, depth=0):
    if isinstance(data, Mapping):
        return max((tree_depth(v, depth + 1) for v in data.values()), default=depth + 1)
    if isinstance(data, (list, tuple)):
        return max((tree_depth(v, depth + 1) for v in data), default=depth + 1)
    return depth


class BatchNormalizer(nn.Module):
    def __init__(self, mean=0.5, std=0.25):
        super().__init__()
        self.mean, self.std = mean, std

    def forward(self, batch):
        out = apply_to_collection(batch, lambda t: (t - self.mean) / self.std)
        out["depth"] = tree_depth(batch)
        return out


def main():
    torch.manual_seed(0)
    norm = torch.compile(BatchNormalizer(), fullgraph=True)
    batch = {"image": torch.rand(2, 3, 4, 4), "meta": {"scale": torch.rand(2), "name": "x"},
             "crops": [torch.rand(2, 3, 2, 2), torch.rand(2, 3, 2, 2)]}
    out = norm(batch)
    return out["image"], out["meta"]["scale"], out["crops"][1], out["depth"]


if __name__ == "__main__":
    main()
