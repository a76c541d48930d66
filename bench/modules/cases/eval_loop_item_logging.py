import torch
import torch.nn as nn
import torch.nn.functional as F


def evaluate(model, loader, log_every=2):
    model.eval()
    total_loss, correct, seen = 0.0, 0, 0
    with torch.no_grad():
        for i, (x, y) in enumerate(loader):
            out = model(x)
            loss = F.cross_entropy(out, y, reduction="sum")
            total_loss += loss.item()
            correct += (out.argmax(1) == y).sum().item()
            seen += y.numel()
            if i % log_every == 0:
                print(f"[eval] batch {i:3d} loss={total_loss / seen:.4f} acc={correct / seen:.3f}")
    return total_loss / seen, correct / seen


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(28, 16), nn.ReLU(), nn.Linear(16, 4))
    loader = [(torch.randn(8, 4, 7), torch.randint(0, 4, (8,))) for _ in range(4)]
    run_eval = torch.compile(evaluate)
    loss, acc = run_eval(model, loader)
    return torch.tensor([loss, acc])


if __name__ == "__main__":
    main()
