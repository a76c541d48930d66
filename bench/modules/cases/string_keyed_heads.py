import torch
import torch.nn as nn


class MultiTaskModel(nn.Module):
    TASKS = ("sentiment", "topic", "toxicity")

    def __init__(self, dim=16, n_out=None):
        super().__init__()
        n_out = n_out or {"sentiment": 3, "topic": 5, "toxicity": 1}
        self.trunk = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.heads = nn.ModuleDict({f"head_{t}": nn.Linear(dim, n_out[t]) for t in self.TASKS})

    def forward(self, x, tasks=None):
        h = self.trunk(x)
        tasks = tasks or self.TASKS
        out = {}
        for name in tasks:
            key = "head_{}".format(name)
            logits = self.heads[key](h)
            out[name.upper() + "_logits"] = logits
            out["%s/prob" % name] = logits.softmax(-1) if logits.shape[-1] > 1 else logits.sigmoid()
        return {k.lower().replace("/", "_"): v for k, v in sorted(out.items())}


def main():
    torch.manual_seed(0)
    model = torch.compile(MultiTaskModel())
    x = torch.randn(4, 16)
    return model(x), model(x, tasks=("topic",))


if __name__ == "__main__":
    main()
