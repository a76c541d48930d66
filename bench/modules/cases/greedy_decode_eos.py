import torch
import torch.nn as nn

EOS = 2


class Seq2SeqDecoder(nn.Module):
    def __init__(self, vocab=20, hidden=24):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.cell = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, h, bos, max_len: int = 10):
        tok = bos
        tokens = []
        finished = torch.zeros_like(bos, dtype=torch.bool)
        for _ in range(max_len):
            h = self.cell(self.embed(tok), h)
            tok = self.out(h).argmax(-1)
            tok = torch.where(finished, torch.full_like(tok, EOS), tok)
            tokens.append(tok)
            finished |= tok == EOS
            if finished.all():
                break
        return torch.stack(tokens, dim=1)


def main():
    torch.manual_seed(0)
    dec = Seq2SeqDecoder().eval()
    decode = torch.compile(dec)
    h0 = torch.randn(3, 24)
    bos = torch.ones(3, dtype=torch.long)
    with torch.no_grad():
        return decode(h0, bos)


if __name__ == "__main__":
    print(main())
