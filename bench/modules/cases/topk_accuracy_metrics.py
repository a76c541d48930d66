from typing import Dict, Sequence

import torch


@torch.compile
def accuracy(output: torch.Tensor, target: torch.Tensor, topk: Sequence[int] = (1, 5)) -> Dict[str, torch.Tensor]:
    """Computes the accuracy over the k top predictions (as in the ImageNet reference script)."""
    maxk = min(max(topk), output.size(1))
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.reshape(1, -1).expand_as(pred))
    res = {}
    for k in topk:
        k = min(k, maxk)
        correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
        res[f"acc@{k}"] = correct_k.mul_(100.0 / batch_size)
    return res


class AverageMeter:
    def __init__(self, name, fmt=":f"):
        self.name, self.fmt = name, fmt
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        fmtstr = "{name} {val" + self.fmt + "} ({avg" + self.fmt + "})"
        return fmtstr.format(**self.__dict__)


def main():
    torch.manual_seed(0)
    top1, top5 = AverageMeter("Acc@1", ":6.2f"), AverageMeter("Acc@5", ":6.2f")
    for _ in range(3):
        logits = torch.randn(32, 10)
        target = torch.randint(0, 10, (32,))
        res = accuracy(logits, target, topk=(1, 5))
        top1.update(res["acc@1"].item(), 32)
        top5.update(res["acc@5"].item(), 32)
    return torch.tensor([top1.avg, top5.avg])


if __name__ == "__main__":
    print(main())
