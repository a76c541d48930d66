import torch
import torch.nn as nn
import torch.nn.functional as F


class BeamHypotheses:
    def __init__(self, num_beams, length_penalty=1.0):
        self.num_beams = num_beams
        self.length_penalty = length_penalty
        self.beams = []

    def add(self, tokens, sum_logprobs):
        score = sum_logprobs / (len(tokens) ** self.length_penalty)
        self.beams.append((score, tokens))
        if len(self.beams) > self.num_beams:
            self.beams = sorted(self.beams, key=lambda b: b[0])[1:]

    def best(self):
        return max(self.beams, key=lambda b: b[0])


class ToyLM(nn.Module):
    def __init__(self, vocab=15, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, vocab)

    def forward(self, tokens):
        return F.log_softmax(self.proj(self.emb(tokens).mean(1)), -1)


def beam_search(model, bos, num_beams=3, max_len=4):
    hyps = BeamHypotheses(num_beams)
    beams = [(torch.tensor([bos]), torch.tensor(0.0))]
    for _ in range(max_len):
        candidates = []
        for toks, score in beams:
            logp = model(toks[None])[0]
            top_lp, top_ix = logp.topk(num_beams)
            for lp, ix in zip(top_lp, top_ix):
                candidates.append((torch.cat([toks, ix[None]]), score + lp))
        candidates.sort(key=lambda c: c[1].item(), reverse=True)
        beams = candidates[:num_beams]
    for toks, score in beams:
        hyps.add(toks, score)
    return hyps.best()


def main():
    torch.manual_seed(0)
    model = ToyLM().eval()
    search = torch.compile(beam_search)
    with torch.no_grad():
        score, toks = search(model, 1)
    return score, toks


if __name__ == "__main__":
    print(main())
