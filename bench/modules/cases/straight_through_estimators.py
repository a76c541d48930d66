import torch
import torch.nn as nn


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.lambd, None


class DomainAdversarial(nn.Module):
    def __init__(self, d=10, bits=4, lambd=0.3):
        super().__init__()
        self.feat = nn.Linear(d, d)
        self.cls = nn.Linear(d, 3)
        self.dom = nn.Linear(d, 2)
        self.levels = 2 ** bits - 1
        self.lambd = lambd

    def forward(self, x):
        h = torch.sigmoid(self.feat(x))
        hq = RoundSTE.apply(h * self.levels) / self.levels
        return self.cls(hq), self.dom(GradReverse.apply(hq, self.lambd))


def main():
    torch.manual_seed(0)
    model = DomainAdversarial()
    compiled = torch.compile(model, fullgraph=True)
    x = torch.randn(6, 10)
    y_cls, y_dom = compiled(x)
    (y_cls.sum() + y_dom.pow(2).sum()).backward()
    return y_cls.detach(), model.feat.weight.grad


if __name__ == "__main__":
    main()
