"""A GRU encoder over length-bucketed batches; the time dimension is marked dynamic before the first call."""
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, vocab=50, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.proj = nn.Linear(dim, dim)

    def forward(self, tokens, mask):
        h = torch.tanh(self.proj(self.emb(tokens)))
        h = h * mask[..., None]
        return h.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)


class Classifier(nn.Module):
    def __init__(self, encoder, classes=3):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(16, classes)

    def forward(self, tokens, mask):
        return self.head(self.encoder(tokens, mask))


def bucketed_batches(g, n=8, batch=4, buckets=(8, 12, 16, 24)):
    for i in range(n):
        length = buckets[i % len(buckets)]
        lens = torch.randint(1, length + 1, (batch,), generator=g)
        tokens = torch.randint(1, 50, (batch, length), generator=g)
        mask = (torch.arange(length)[None] < lens[:, None]).float()
        yield tokens * mask.long(), mask


def main():
    torch.manual_seed(0)
    enc = Classifier(Encoder()).eval()
    encode = torch.compile(enc, backend="eager")
    g = torch.Generator().manual_seed(4)
    outs = []
    with torch.no_grad():
        for tokens, mask in bucketed_batches(g):
            torch._dynamo.mark_dynamic(tokens, 1)
            torch._dynamo.mark_dynamic(mask, 1)
            outs.append(encode(tokens, mask))
    return outs


if __name__ == "__main__":
    main()
