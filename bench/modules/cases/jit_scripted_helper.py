import torch
import torch.nn as nn


@torch.jit.script
def fused_gelu_bias(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    y = x + bias
    return y * 0.5 * (1.0 + torch.erf(y / 1.41421))


class FFN(nn.Module):
    def __init__(self, d=16, h=32):
        super().__init__()
        self.fc1 = nn.Linear(d, h, bias=False)
        self.bias = nn.Parameter(torch.zeros(h))
        self.fc2 = nn.Linear(h, d)

    def forward(self, x):
        return self.fc2(fused_gelu_bias(self.fc1(x), self.bias))


def main():
    torch.manual_seed(0)
    ffn = torch.compile(FFN())
    return ffn(torch.randn(4, 16))


if __name__ == "__main__":
    main()
