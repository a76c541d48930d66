"""A top-k filter gets k from a curriculum that grows every step (k is a size inside the graph)."""
import torch


def topk_mean(scores, k):
    return scores.topk(k, dim=-1).values.mean(-1)


def main():
    torch.manual_seed(0)
    fn = torch.compile(topk_mean, backend="eager")
    scores = torch.randn(3, 32)
    outs = []
    for step in range(10):
        outs.append(fn(scores, 2 + step))  # recompile: scalar-arg-varies
    return outs


if __name__ == "__main__":
    main()
