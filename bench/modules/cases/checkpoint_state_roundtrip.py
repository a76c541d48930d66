import io
import os
import tempfile

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(5, 5)
        self.b = nn.Linear(5, 1)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def save_checkpoint(model, opt, step, path):
    # compiled models carry an `_orig_mod.` prefix; store the clean names
    sd = getattr(model, "_orig_mod", model).state_dict()
    torch.save({"model": sd, "opt": opt.state_dict(), "step": step}, path)


def load_checkpoint(model, opt, path):
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    getattr(model, "_orig_mod", model).load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["opt"])
    return ckpt["step"]


def main():
    torch.manual_seed(0)
    model = torch.compile(Net())
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x, y = torch.randn(16, 5), torch.randn(16, 1)
    for _ in range(2):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "last.pt")
        save_checkpoint(model, opt, 2, path)
        model2 = torch.compile(Net())
        opt2 = torch.optim.Adam(model2.parameters(), lr=1e-2)
        step = load_checkpoint(model2, opt2, path)
    buf = io.BytesIO()
    torch.save(getattr(model2, "_orig_mod", model2).state_dict(), buf)
    return model2(x), torch.tensor(step), torch.tensor(len(buf.getvalue()) > 0)


if __name__ == "__main__":
    main()
