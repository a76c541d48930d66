import argparse

import torch
import torch.nn.functional as F

from seg_model import SegNet


def criterion(outputs, target, aux_weight=0.5):
    losses = {name: F.cross_entropy(x, target, ignore_index=255) for name, x in outputs.items()}
    if len(losses) == 1:
        return losses["out"]
    return losses["out"] + aux_weight * losses["aux"]


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--aux", action="store_true")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--steps", type=int, default=2)
    return p.parse_args(argv)


def main(argv=()):
    args = parse_args(list(argv))
    torch.manual_seed(0)
    model = SegNet(return_aux=args.aux, verbose=args.verbose)
    model = torch.compile(model, fullgraph=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images = torch.randn(2, 3, 16, 16)
    target = torch.randint(0, 3, (2, 16, 16))
    target[:, :2] = 255
    for _ in range(args.steps):
        loss = criterion(model(images), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.detach()


if __name__ == "__main__":
    main()
