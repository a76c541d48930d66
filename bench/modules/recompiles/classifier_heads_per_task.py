"""Few-shot evaluation: a new prototype head is built for every episode with that episode's number of ways."""
import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, dim))

    def forward(self, x):
        return self.net(x)


class PrototypeHead(nn.Module):
    """Nearest-prototype classifier over `n_way` classes with `k_shot` support examples each."""

    def __init__(self, n_way, k_shot):
        super().__init__()
        self.n_way = n_way
        self.k_shot = k_shot

    def forward(self, support, query):
        protos = support.view(self.n_way, self.k_shot, -1).mean(1)
        return -torch.cdist(query, protos)


def episode_logits(backbone, head, support_x, query_x):
    return head(backbone(support_x), backbone(query_x))


def main():
    torch.manual_seed(0)
    backbone = Backbone().eval()
    run = torch.compile(episode_logits, backend="eager")
    g = torch.Generator().manual_seed(11)
    accs = []
    with torch.no_grad():
        for episode in range(10):
            n_way, k_shot = 2 + episode % 9, 2
            support = torch.randn(n_way * k_shot, 20, generator=g)  # recompile: dynamic-dim-unmarked
            query = torch.randn(6, 20, generator=g)
            head = PrototypeHead(n_way, k_shot)
            logits = run(backbone, head, support, query)  # recompile: new-object-per-call
            accs.append(logits.softmax(-1).max(-1).values.mean())
    return accs


if __name__ == "__main__":
    main()
