import torch
import torch.nn as nn


class StreamingConfusion(nn.Module):
    """Confusion matrix + per-class precision/recall/F1 that stays on device and in one graph."""

    def __init__(self, num_classes: int, ignore_index: int = -100):
        super().__init__()
        self.num_classes = num_classes
        self.ignore_index = ignore_index
        self.register_buffer("cm", torch.zeros(num_classes, num_classes))

    def forward(self, logits, target):
        pred = logits.argmax(dim=-1)
        valid = target != self.ignore_index
        t = torch.where(valid, target, torch.zeros_like(target))
        idx = t * self.num_classes + pred
        counts = torch.zeros(self.num_classes * self.num_classes, device=logits.device)
        counts.scatter_add_(0, idx.flatten(), valid.flatten().float())
        self.cm += counts.view(self.num_classes, self.num_classes)
        return self.cm

    def summary(self):
        tp = self.cm.diag()
        precision = tp / self.cm.sum(0).clamp_min(1)
        recall = tp / self.cm.sum(1).clamp_min(1)
        f1 = 2 * precision * recall / (precision + recall).clamp_min(1e-12)
        return {"precision": precision, "recall": recall, "f1": f1, "macro_f1": f1.mean()}


def main():
    torch.manual_seed(0)
    metric = StreamingConfusion(5)
    step = torch.compile(metric, fullgraph=True)
    for _ in range(3):
        logits = torch.randn(40, 5)
        target = torch.randint(0, 5, (40,))
        target[::7] = -100
        step(logits, target)
    return metric.summary()


if __name__ == "__main__":
    print(main())
