import os
import tempfile

import torch
import torch.nn as nn


class AutoEncoder(nn.Module):
    def __init__(self, d=20, z=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, 10), nn.ReLU(), nn.Linear(10, z))
        self.dec = nn.Sequential(nn.Linear(z, 10), nn.ReLU(), nn.Linear(10, d))

    def forward(self, x):
        return self.dec(self.enc(x))


class Runner:
    def __init__(self, model, ckpt_dir, save_every=2):
        self.model = model
        self.ckpt_dir = ckpt_dir
        self.save_every = save_every
        self.opt = torch.optim.Adam(model.parameters(), lr=1e-2)

    def evaluate(self, x, step):
        recon = self.model(x)
        err = (recon - x).pow(2).mean(dim=1)
        if step % self.save_every == 0:
            path = os.path.join(self.ckpt_dir, f"step{step:04d}.pt")
            torch.save({"model": self.model.state_dict(), "step": step}, path)
        return err.mean()


def main():
    torch.manual_seed(0)
    x = torch.randn(32, 20)
    with tempfile.TemporaryDirectory() as d:
        runner = Runner(AutoEncoder(), d)
        evaluate = torch.compile(runner.evaluate)
        vals = [evaluate(x, s) for s in range(3)]
        n_files = len(os.listdir(d))
    return torch.stack(vals), n_files


if __name__ == "__main__":
    print(main())
