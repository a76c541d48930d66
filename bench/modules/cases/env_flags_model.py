import os

import torch
import torch.nn as nn
import torch.nn.functional as F

USE_FAST_GELU = os.environ.get("MODEL_FAST_GELU", "1") == "1"


class FFN(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)
        self.dropout_p = float(os.getenv("MODEL_DROPOUT", "0.0"))

    def forward(self, x):
        h = self.up(x)
        h = F.gelu(h, approximate="tanh") if USE_FAST_GELU else F.gelu(h)
        if os.environ.get("MODEL_DEBUG_NAN") == "1":
            h = torch.nan_to_num(h)
        return self.down(F.dropout(h, self.dropout_p, self.training))


def main():
    torch.manual_seed(0)
    ffn = FFN().eval()
    f = torch.compile(ffn, fullgraph=True)
    return f(torch.randn(3, 16))


if __name__ == "__main__":
    main()
