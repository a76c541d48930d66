import torch
import torch.nn as nn
import torch.nn.functional as F


class KVCache(nn.Module):
    def __init__(self, batch, heads, max_len, head_dim):
        super().__init__()
        shape = (batch, heads, max_len, head_dim)
        self.register_buffer("k", torch.zeros(shape), persistent=False)
        self.register_buffer("v", torch.zeros(shape), persistent=False)

    def update(self, input_pos, k_val, v_val):
        # input_pos: [S] tensor of positions
        self.k.index_copy_(2, input_pos, k_val)
        self.v.index_copy_(2, input_pos, v_val)
        return self.k, self.v


class DecoderLayer(nn.Module):
    def __init__(self, dim=32, heads=4, max_len=32, batch=1):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.wqkv = nn.Linear(dim, 3 * dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.cache = KVCache(batch, heads, max_len, self.hd)
        self.register_buffer("causal", torch.tril(torch.ones(max_len, max_len, dtype=torch.bool)), persistent=False)

    def forward(self, x, input_pos):
        b, s, d = x.shape
        q, k, v = self.wqkv(x).view(b, s, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        k, v = self.cache.update(input_pos, k, v)
        mask = self.causal[input_pos]
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[None, None])
        return self.wo(y.transpose(1, 2).reshape(b, s, d))


class TinyLM(nn.Module):
    def __init__(self, vocab=40, dim=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.layer = DecoderLayer(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx, input_pos):
        return self.head(self.layer(self.emb(idx), input_pos))


@torch.no_grad()
def generate(model, prompt, new_tokens):
    decode_one = torch.compile(model, fullgraph=True, dynamic=False)
    T = prompt.shape[1]
    logits = model(prompt, torch.arange(T))
    tok = logits[:, -1].argmax(-1, keepdim=True)
    out = [tok]
    for i in range(new_tokens - 1):
        logits = decode_one(tok, torch.tensor([T + i]))
        tok = logits[:, -1].argmax(-1, keepdim=True)
        out.append(tok)
    return torch.cat(out, dim=1)


def main():
    torch.manual_seed(0)
    model = TinyLM().eval()
    return generate(model, torch.randint(0, 40, (1, 5)), 6)


if __name__ == "__main__":
    print(main())
