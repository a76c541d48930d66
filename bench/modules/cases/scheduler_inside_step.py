import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 3))

    def forward(self, x):
        return self.body(x)


def make_step(model, optimizer, scheduler):
    def step(x, y):
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        return loss.detach(), scheduler.get_last_lr()[0]

    return torch.compile(step)


def main():
    torch.manual_seed(0)
    model = Classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    step = make_step(model, optimizer, scheduler)
    x, y = torch.randn(32, 10), torch.randint(0, 3, (32,))
    out = [step(x, y) for _ in range(4)]
    return torch.stack([o[0] for o in out]), torch.tensor([o[1] for o in out])


if __name__ == "__main__":
    main()
