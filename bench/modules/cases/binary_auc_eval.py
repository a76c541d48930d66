import torch


def roc_auc(scores, labels):
    """Mann-Whitney U formulation of ROC AUC (ties get average rank)."""
    order = torch.argsort(scores)
    ranks = torch.empty_like(scores)
    ranks[order] = torch.arange(1, scores.numel() + 1, dtype=scores.dtype)
    n_pos = labels.sum()
    n_neg = labels.numel() - n_pos
    sum_pos = (ranks * labels).sum()
    return (sum_pos - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg).clamp_min(1)


def average_precision(scores, labels):
    order = torch.argsort(scores, descending=True)
    l = labels[order]
    tp = torch.cumsum(l, 0)
    precision = tp / torch.arange(1, l.numel() + 1, dtype=scores.dtype)
    return (precision * l).sum() / l.sum().clamp_min(1)


@torch.compile(fullgraph=True)
def eval_binary(logits, labels):
    probs = torch.sigmoid(logits)
    labels = labels.float()
    return {
        "auc": roc_auc(probs, labels),
        "ap": average_precision(probs, labels),
        "brier": ((probs - labels) ** 2).mean(),
    }


def main():
    g = torch.Generator().manual_seed(0)
    labels = torch.randint(0, 2, (200,), generator=g)
    logits = labels * 1.5 + torch.randn(200, generator=g)
    return eval_binary(logits, labels)


if __name__ == "__main__":
    print(main())
