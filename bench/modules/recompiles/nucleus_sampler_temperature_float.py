"""A chat-style sampler: temperature and top-p come from the request as Python floats, different per request."""
import torch
import torch.nn as nn


class TinyLM(nn.Module):
    def __init__(self, vocab=48, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx):
        h, _ = self.rnn(self.emb(idx))
        return self.head(h[:, -1])


def filter_logits(logits, temperature, top_p):
    logits = logits / temperature
    probs = logits.softmax(-1)
    sorted_p, order = probs.sort(-1, descending=True)
    keep = sorted_p.cumsum(-1) - sorted_p < top_p
    sorted_p = sorted_p * keep
    filtered = torch.zeros_like(probs).scatter(-1, order, sorted_p)
    return filtered / filtered.sum(-1, keepdim=True)


REQUESTS = [
    {"prompt": [3, 4, 5], "temperature": 0.7, "top_p": 0.9},
    {"prompt": [7, 8, 9], "temperature": 1.0, "top_p": 0.95},
    {"prompt": [1, 2, 3], "temperature": 0.3, "top_p": 0.8},
    {"prompt": [5, 5, 5], "temperature": 1.2, "top_p": 0.99},
    {"prompt": [9, 1, 2], "temperature": 0.9, "top_p": 0.7},
    {"prompt": [4, 4, 6], "temperature": 0.5, "top_p": 0.85},
]


@torch.no_grad()
def main():
    torch.manual_seed(0)
    lm = TinyLM().eval()
    sample_filter = torch.compile(filter_logits, backend="eager")
    g = torch.Generator().manual_seed(12)
    outs = []
    for req in REQUESTS:
        idx = torch.tensor([req["prompt"]])
        for _ in range(3):
            probs = sample_filter(lm(idx), req["temperature"], req["top_p"])  # recompile: scalar-arg-varies
            nxt = torch.multinomial(probs, 1, generator=g)
            idx = torch.cat([idx, nxt], 1)
        outs.append(idx)
    return outs


if __name__ == "__main__":
    main()
