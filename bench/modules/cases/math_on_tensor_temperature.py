import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ContrastiveHead(nn.Module):
    def __init__(self, dim=16, init_temp=0.07):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.log_temp = nn.Parameter(torch.tensor(math.log(init_temp)))

    def forward(self, a, b):
        a = F.normalize(self.proj(a), dim=-1)
        b = F.normalize(self.proj(b), dim=-1)
        temp = math.exp(self.log_temp)
        logits = a @ b.T / temp
        return F.cross_entropy(logits, torch.arange(a.shape[0]))


def main():
    torch.manual_seed(0)
    head = torch.compile(ContrastiveHead())
    return head(torch.randn(5, 16), torch.randn(5, 16))


if __name__ == "__main__":
    main()
