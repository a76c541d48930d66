"""Greedy decoding without a KV cache: the compiled LM sees the whole, growing prefix at every step."""
import torch
import torch.nn as nn


class CharLM(nn.Module):
    def __init__(self, vocab=40, dim=24, heads=4, ctx=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(ctx, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.out = nn.Linear(dim, vocab)

    def forward(self, idx):
        t = idx.shape[1]
        pos = torch.arange(t, device=idx.device)
        mask = nn.Transformer.generate_square_subsequent_mask(t)
        h = self.enc(self.tok(idx) + self.pos(pos), mask=mask, is_causal=True)
        return self.out(h[:, -1])


ALPHABET = "abcdefghijklmnopqrstuvwxyz .,;:!?'-0123456789"[:40]


def encode_text(text):
    return torch.tensor([[ALPHABET.index(c) for c in text]])


def decode_text(ids):
    return "".join(ALPHABET[i] for i in ids.tolist())


@torch.no_grad()
def generate(model, prompt, new_tokens):
    lm = torch.compile(model, backend="eager")
    idx = prompt
    for _ in range(new_tokens):
        logits = lm(idx)
        nxt = logits.argmax(-1, keepdim=True)
        idx = torch.cat([idx, nxt], dim=1)  # recompile: dynamic-dim-unmarked
    return idx


def main():
    torch.manual_seed(0)
    model = CharLM().eval()
    prompt = torch.cat([encode_text("hello"), encode_text("world")])
    out = generate(model, prompt, 8)
    texts = [decode_text(row) for row in out]
    return [out, texts]


if __name__ == "__main__":
    main()
