import torch
import torch.nn as nn


class LengthRegulator(nn.Module):
    """FastSpeech length regulator: repeat each phoneme encoding by its predicted duration."""

    def __init__(self, dim=8):
        super().__init__()
        self.duration = nn.Linear(dim, 1)

    def forward(self, x, max_frames: int = 40):
        dur = torch.clamp(torch.round(torch.exp(self.duration(x).squeeze(-1))), min=1).long()
        out = []
        for seq, d in zip(x, dur):
            expanded = torch.repeat_interleave(seq, d, dim=0)[:max_frames]
            out.append(nn.functional.pad(expanded, (0, 0, 0, max_frames - expanded.shape[0])))
        return torch.stack(out), dur


def main():
    torch.manual_seed(0)
    reg = torch.compile(LengthRegulator())
    return reg(torch.randn(2, 5, 8))


if __name__ == "__main__":
    main()
