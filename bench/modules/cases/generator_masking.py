import torch
import torch.nn as nn


class SpanMasker(nn.Module):
    """Masks random spans of tokens; uses a private generator so masking does not disturb global RNG."""

    def __init__(self, mask_prob=0.15, mask_id=0, seed=0):
        super().__init__()
        self.mask_prob = mask_prob
        self.mask_id = mask_id
        self.seed = seed

    def forward(self, tokens):
        gen = torch.Generator(device=tokens.device)
        gen.manual_seed(self.seed)
        probs = torch.rand(tokens.shape, generator=gen, device=tokens.device)
        mask = probs < self.mask_prob
        return torch.where(mask, torch.full_like(tokens, self.mask_id), tokens), mask


def main():
    torch.manual_seed(0)
    masker = torch.compile(SpanMasker(), fullgraph=True)
    toks = torch.randint(1, 100, (2, 20))
    return masker(toks)


if __name__ == "__main__":
    main()
