import torch
import torch.nn as nn
from tqdm import tqdm


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


@torch.no_grad()
def predict_all(model, batches, show_progress=True):
    preds = []
    for batch in tqdm(batches, desc="predict", disable=not show_progress):
        preds.append(torch.sigmoid(model(batch)))
    return torch.cat(preds)


def main():
    torch.manual_seed(0)
    model = Scorer().eval()
    batches = [torch.randn(4, 8) for _ in range(3)]
    run = torch.compile(predict_all)
    return run(model, batches, show_progress=False)


if __name__ == "__main__":
    print(main())
