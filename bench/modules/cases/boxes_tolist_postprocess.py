import torch
import torch.nn as nn


class Detector(nn.Module):
    def __init__(self, n_classes=3, n_boxes=6):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.box = nn.Linear(8, n_boxes * 4)
        self.cls = nn.Linear(8, n_boxes * n_classes)
        self.n_boxes, self.n_classes = n_boxes, n_classes

    def forward(self, images, score_threshold=0.3):
        f = self.backbone(images)
        boxes = self.box(f).sigmoid().view(-1, self.n_boxes, 4) * images.shape[-1]
        scores, labels = self.cls(f).view(-1, self.n_boxes, self.n_classes).softmax(-1).max(-1)
        results = []
        for b, s, l in zip(boxes, scores, labels):
            results.append({
                "boxes": b.round().tolist(),
                "scores": s.tolist(),
                "labels": l.tolist(),
            })
        return results


def main():
    torch.manual_seed(0)
    det = torch.compile(Detector().eval(), fullgraph=True)
    with torch.no_grad():
        res = det(torch.randn(2, 3, 16, 16))
    return torch.tensor([r["scores"] for r in res])


if __name__ == "__main__":
    main()
