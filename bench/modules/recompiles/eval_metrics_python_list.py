"""An evaluator keeps per-batch scores in a Python list and recomputes running stats with a compiled helper."""
import torch
import torch.nn as nn


def running_stats(scores):
    stacked = torch.stack(scores)
    mean = stacked.mean()
    std = stacked.std() if len(scores) > 1 else torch.zeros(())
    return mean, std, stacked.max()


class Evaluator:
    def __init__(self, model):
        self.model = model
        self.scores = []
        self.stats = torch.compile(running_stats, backend="eager")
        self.history = []

    @torch.no_grad()
    def update(self, x, y):
        pred = self.model(x).argmax(-1)
        self.scores.append((pred == y).float().mean())
        mean, std, best = self.stats(self.scores)  # recompile: list-length-varies
        self.history.append((mean, std, best))

    def summary(self):
        if not self.history:
            return {}
        mean, std, best = self.history[-1]
        return {"batches": len(self.scores), "mean": float(mean), "std": float(std), "best": float(best)}

    def reset(self):
        self.scores.clear()
        self.history.clear()


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).eval()
    ev = Evaluator(model)
    g = torch.Generator().manual_seed(2)
    for _ in range(10):
        x = torch.randn(16, 8, generator=g)
        y = torch.randint(0, 4, (16,), generator=g)
        ev.update(x, y)
    summary = ev.summary()
    return ev.history + [summary["batches"]]


if __name__ == "__main__":
    main()
