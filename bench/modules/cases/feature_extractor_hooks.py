import torch
import torch.nn as nn


class SmallBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU())
        self.layer1 = nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU())
        self.layer2 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(self.pool(x).flatten(1))


class FeatureExtractor:
    """Collects intermediate activations with forward hooks registered once, up front."""

    def __init__(self, model, layer_names):
        self.model = model
        self.features = {}
        self.handles = []
        modules = dict(model.named_modules())
        for name in layer_names:
            self.handles.append(modules[name].register_forward_hook(self._save(name)))

    def _save(self, name):
        def hook(module, inputs, output):
            self.features[name] = output.detach()
        return hook

    def remove(self):
        for h in self.handles:
            h.remove()


def main():
    torch.manual_seed(0)
    model = SmallBackbone().eval()
    extractor = FeatureExtractor(model, ["layer1", "layer2"])
    compiled = torch.compile(model)
    with torch.no_grad():
        logits = compiled(torch.randn(2, 3, 32, 32))
    feats = {k: v.mean() for k, v in extractor.features.items()}
    extractor.remove()
    return logits, feats


if __name__ == "__main__":
    print(main())
