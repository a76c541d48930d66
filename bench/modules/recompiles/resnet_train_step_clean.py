"""A small ResNet trained with a compiled train step: fixed batch size, step count in a buffer, lr as a tensor."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class BasicBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.c1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(ch)
        self.c2 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(ch)

    def forward(self, x):
        h = F.relu(self.b1(self.c1(x)))
        return F.relu(x + self.b2(self.c2(h)))


class ResNetTiny(nn.Module):
    def __init__(self, classes=5, ch=8):
        super().__init__()
        self.stem = nn.Conv2d(3, ch, 3, padding=1)
        self.blocks = nn.Sequential(BasicBlock(ch), BasicBlock(ch))
        self.fc = nn.Linear(ch, classes)
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        self.steps += 1
        h = self.blocks(F.relu(self.stem(x)))
        return self.fc(h.mean((-2, -1)))


def train_step(model, x, y, lr):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    grads = torch.autograd.grad(loss, list(model.parameters()))
    with torch.no_grad():
        for p, g in zip(model.parameters(), grads):
            p.sub_(lr * g)
    return loss.detach()


def main():
    torch.manual_seed(0)
    model = ResNetTiny()
    data = TensorDataset(torch.randn(70, 3, 8, 8), torch.randint(0, 5, (70,)))
    loader = DataLoader(data, batch_size=8, shuffle=False, drop_last=True)
    step = torch.compile(train_step, backend="eager")
    lr = torch.tensor(0.1)
    losses = []
    for x, y in loader:
        losses.append(step(model, x, y, lr))
        lr.mul_(0.95)
    return losses + [model.steps.clone()]


if __name__ == "__main__":
    main()
