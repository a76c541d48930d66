import torch
import torch.nn.functional as F


def batch_hard_triplet_loss(embeddings, labels, margin=0.3):
    """Batch-hard mining: hardest positive and hardest negative for every anchor."""
    dist = torch.cdist(embeddings, embeddings, p=2)
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    eye = torch.eye(labels.shape[0], dtype=torch.bool)
    pos_mask = same & ~eye
    neg_mask = ~same
    hardest_pos = (dist * pos_mask).amax(dim=1)
    hardest_neg = dist.masked_fill(~neg_mask, float("inf")).amin(dim=1)
    valid = pos_mask.any(1) & neg_mask.any(1)
    loss = F.relu(hardest_pos - hardest_neg + margin) * valid
    return loss.sum() / valid.sum().clamp_min(1)


triplet = torch.compile(batch_hard_triplet_loss, fullgraph=True)


def main():
    torch.manual_seed(0)
    emb = F.normalize(torch.randn(12, 8), dim=1).requires_grad_()
    labels = torch.arange(4).repeat_interleave(3)
    loss = triplet(emb, labels)
    loss.backward()
    return loss.detach(), emb.grad


if __name__ == "__main__":
    print(main())
