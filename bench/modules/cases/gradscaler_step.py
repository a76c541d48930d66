import torch
import torch.nn as nn
from torch.amp import GradScaler


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(12, 24)
        self.b = nn.Linear(24, 2)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def train_one_batch(model, scaler, opt, x, y):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(x)
        loss = nn.functional.cross_entropy(out.float(), y)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    scaler.step(opt)
    scaler.update()
    opt.zero_grad(set_to_none=True)
    return loss.detach()


train_one_batch = torch.compile(train_one_batch)


def main():
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = GradScaler("cpu", enabled=False)
    x, y = torch.randn(10, 12), torch.randint(0, 2, (10,))
    return torch.stack([train_one_batch(model, scaler, opt, x, y) for _ in range(2)])


if __name__ == "__main__":
    print(main())
