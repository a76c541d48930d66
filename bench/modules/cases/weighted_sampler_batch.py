import torch
from torch.utils.data import WeightedRandomSampler


def class_balanced_weights(labels: torch.Tensor, num_classes: int, beta: float = 0.999) -> torch.Tensor:
    """Effective-number class weights (Cui et al.), one weight per sample."""
    counts = torch.zeros(num_classes).scatter_add_(0, labels, torch.ones_like(labels, dtype=torch.float))
    effective = 1.0 - torch.pow(beta, counts)
    w = (1.0 - beta) / effective.clamp_min(1e-8)
    w = w / w.sum() * num_classes
    return w[labels]


@torch.compile(fullgraph=True)
def draw_batch(features, sample_weights, batch_size: int):
    idx = torch.multinomial(sample_weights, batch_size, replacement=True)
    return features[idx], idx


def main():
    torch.manual_seed(0)
    labels = torch.cat([torch.zeros(50, dtype=torch.long), torch.ones(8, dtype=torch.long), torch.full((2,), 2)])
    feats = torch.randn(60, 5)
    w = class_balanced_weights(labels, 3)
    sampler = WeightedRandomSampler(w, num_samples=12, replacement=True, generator=torch.Generator().manual_seed(0))
    idx_from_sampler = torch.tensor(list(sampler))
    batch, idx = draw_batch(feats, w, 16)
    return torch.bincount(labels[idx], minlength=3), batch.sum(), idx_from_sampler
if __name__ == "__main__":
    print(main())
