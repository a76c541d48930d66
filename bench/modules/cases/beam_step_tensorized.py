import torch
import torch.nn as nn


class BeamScorer(nn.Module):
    """One step of batched beam search, fully in tensor ops (fairseq/HF style)."""

    def __init__(self, beam_size: int, vocab: int, length_penalty: float = 0.6):
        super().__init__()
        self.beam_size = beam_size
        self.vocab = vocab
        self.length_penalty = length_penalty

    def forward(self, logprobs, beam_scores, tokens, step: int):
        bsz = beam_scores.shape[0]
        scores = beam_scores.unsqueeze(-1) + logprobs.view(bsz, self.beam_size, self.vocab)
        lp = ((5.0 + step + 1) / 6.0) ** self.length_penalty
        flat = (scores / lp).view(bsz, -1)
        top_scores, top_idx = flat.topk(self.beam_size, dim=1)
        beam_idx = torch.div(top_idx, self.vocab, rounding_mode="floor")
        tok_idx = top_idx % self.vocab
        prev = tokens.view(bsz, self.beam_size, -1).gather(1, beam_idx.unsqueeze(-1).expand(-1, -1, tokens.shape[-1]))
        new_tokens = torch.cat([prev, tok_idx.unsqueeze(-1)], dim=-1)
        return top_scores * lp, new_tokens.view(bsz * self.beam_size, -1)


def main():
    torch.manual_seed(0)
    bsz, beam, vocab = 2, 3, 11
    scorer = torch.compile(BeamScorer(beam, vocab), fullgraph=True)
    proj = nn.Linear(4, vocab)
    tokens = torch.zeros(bsz * beam, 1, dtype=torch.long)
    scores = torch.zeros(bsz, beam)
    scores[:, 1:] = -1e9
    for step in range(3):
        h = torch.randn(bsz * beam, 4)
        logprobs = proj(h).log_softmax(-1)
        scores, tokens = scorer(logprobs.detach(), scores, tokens, step)
    return scores, tokens


if __name__ == "__main__":
    print(main())
