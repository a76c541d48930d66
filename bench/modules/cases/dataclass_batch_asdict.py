import dataclasses

import torch
import torch.nn as nn


@dataclasses.dataclass
class ModelOutput:
    loss: torch.Tensor
    logits: torch.Tensor
    hidden: torch.Tensor


class TextClassifier(nn.Module):
    def __init__(self, vocab=30, dim=16, n_labels=3):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.fc = nn.Linear(dim, n_labels)

    def forward(self, ids, labels):
        h = self.emb(ids)
        logits = self.fc(h)
        loss = nn.functional.cross_entropy(logits, labels)
        return dataclasses.asdict(ModelOutput(loss=loss, logits=logits, hidden=h))


@torch.inference_mode()
def evaluate(model, ids, labels):
    out = model(ids, labels)
    return out["loss"], out["logits"]


def main():
    torch.manual_seed(0)
    model = torch.compile(TextClassifier().eval())
    return evaluate(model, torch.randint(0, 30, (4, 6)), torch.tensor([0, 2, 1, 0]))


if __name__ == "__main__":
    main()
