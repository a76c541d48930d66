import torch
import torch.nn as nn
from torch.profiler import record_function


class Seq2Vec(nn.Module):
    def __init__(self, vocab=32, d=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.conv = nn.Conv1d(d, d, 3, padding=1)
        self.out = nn.Linear(d, 1)

    def forward(self, ids):
        with record_function("embed"):
            x = self.emb(ids).transpose(1, 2)
        with record_function("encode"):
            x = torch.relu(self.conv(x)).amax(-1)
        with record_function("score"):
            return self.out(x).squeeze(-1)


def main():
    torch.manual_seed(0)
    model = torch.compile(Seq2Vec())
    ids = torch.randint(0, 32, (3, 7))
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        out = model(ids)
    assert prof is not None
    return out


if __name__ == "__main__":
    main()
