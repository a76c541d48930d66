import contextlib

import torch
import torch.nn as nn


@contextlib.contextmanager
def maybe_autocast(enabled: bool, dtype=torch.bfloat16):
    if enabled:
        with torch.autocast("cpu", dtype=dtype):
            yield
    else:
        yield


class FrozenStem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        with torch.no_grad():
            return torch.relu(self.conv(x))


class Model(nn.Module):
    def __init__(self, use_amp=True):
        super().__init__()
        self.stem = FrozenStem()
        self.head = nn.Conv2d(8, 2, 1)
        self.use_amp = use_amp

    def forward(self, x):
        feats = self.stem(x)
        ctx = maybe_autocast(self.use_amp) if self.training else contextlib.nullcontext()
        with ctx:
            out = self.head(feats)
        with torch.enable_grad():
            reg = self.head.weight.pow(2).sum()
        return out.float(), reg


def main():
    torch.manual_seed(0)
    model = Model()
    model.compile()
    x = torch.randn(2, 3, 6, 6)
    out, reg = model(x)
    model.eval()
    out_eval, _ = model(x)
    return out.detach(), reg.detach(), out_eval.detach()


if __name__ == "__main__":
    main()
