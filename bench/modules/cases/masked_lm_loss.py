import torch
from torch import nn


class MLMHead(nn.Module):
    def __init__(self, d_model=24, vocab=50):
        super().__init__()
        self.dense = nn.Linear(d_model, d_model)
        self.ln = nn.LayerNorm(d_model)
        self.decoder = nn.Linear(d_model, vocab)

    def forward(self, hidden, labels):
        h = self.ln(torch.nn.functional.gelu(self.dense(hidden)))
        # only score the masked positions (labels == -100 elsewhere)
        sel = labels != -100
        logits = self.decoder(h[sel])
        return nn.functional.cross_entropy(logits, labels[sel])


def main():
    torch.manual_seed(0)
    head = MLMHead()
    head.compile()
    hidden = torch.randn(2, 10, 24)
    labels = torch.full((2, 10), -100)
    labels[0, 3] = 7
    labels[1, [1, 5, 8]] = torch.tensor([2, 9, 4])
    return head(hidden, labels)


if __name__ == "__main__":
    print(main())
