import torch
import torch.nn as nn


class FlexibleProjector(nn.Module):
    """Projects features of several known widths; unknown widths are zero-padded to the largest one."""

    def __init__(self, widths=(4, 8), dim=8):
        super().__init__()
        self.max_width = max(widths)
        self.projs = nn.ModuleDict({str(w): nn.Linear(w, dim) for w in widths})

    def forward(self, x):
        try:
            proj = self.projs[str(x.shape[-1])]
        except KeyError:
            x = nn.functional.pad(x, (0, self.max_width - x.shape[-1]))
            proj = self.projs[str(self.max_width)]
        return proj(x)


def main():
    torch.manual_seed(0)
    proj = torch.compile(FlexibleProjector())
    return proj(torch.randn(2, 8)), proj(torch.randn(2, 4)), proj(torch.randn(2, 5))


if __name__ == "__main__":
    main()
