"""nn.ModuleList element types through enumerate(), slicing and .append().

runtime: 5 breaks (print in A, B, C, D, E forward).
static: A (plain `for m in self.plain`), C (slice; found since engine commit c0a465d), E (list literal,
indexed) - B (enumerate) and D (.append) are missed.
"""
import torch
from torch import nn


class A(nn.Module):
    def forward(self, x):
        print("A")
        return x


class B(nn.Module):
    def forward(self, x):
        print("B")  # missed: for i, m in enumerate(self.enum)
        return x


class C(nn.Module):
    def forward(self, x):
        print("C")  # for m in self.sliced[:1]: missed before c0a465d
        return x


class D(nn.Module):
    def forward(self, x):
        print("D")  # missed: ModuleList().append(D()), then self.appended[0](x)
        return x


class E(nn.Module):
    def forward(self, x):
        print("E")
        return x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.plain = nn.ModuleList([A() for _ in range(2)])
        self.enum = nn.ModuleList([B() for _ in range(2)])
        self.sliced = nn.ModuleList([C() for _ in range(2)])
        self.appended = nn.ModuleList()
        self.appended.append(D())
        self.indexed = nn.ModuleList([E()])

    def forward(self, x):
        for m in self.plain:
            x = m(x)
        for i, m in enumerate(self.enum):
            x = m(x)
        for m in self.sliced[:1]:
            x = m(x)
        x = self.appended[0](x)
        x = self.indexed[0](x)
        return x


net = torch.compile(Net(), backend="eager")
net(torch.ones(2))
