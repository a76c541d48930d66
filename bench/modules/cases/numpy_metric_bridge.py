import numpy as np
import torch


def ece_numpy(probs: np.ndarray, labels: np.ndarray, n_bins: int = 5) -> float:
    conf = probs.max(1)
    pred = probs.argmax(1)
    acc = (pred == labels).astype(np.float64)
    edges = np.linspace(0, 1, n_bins + 1)
    ece = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (conf > lo) & (conf <= hi)
        if sel.any():
            ece += sel.mean() * abs(acc[sel].mean() - conf[sel].mean())
    return float(ece)


@torch.compile
def calibration_report(logits, labels):
    probs = torch.softmax(logits, -1)
    nll = torch.nn.functional.cross_entropy(logits, labels)
    ece = ece_numpy(probs.detach().cpu().numpy(), labels.cpu().numpy())
    return {"nll": nll, "ece": torch.tensor(ece)}


def main():
    torch.manual_seed(0)
    logits = torch.randn(50, 4) * 2
    labels = torch.randint(0, 4, (50,))
    return calibration_report(logits, labels)


if __name__ == "__main__":
    print(main())
