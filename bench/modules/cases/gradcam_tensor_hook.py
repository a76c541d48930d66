import torch
import torch.nn as nn
import torch.nn.functional as F


class CAMNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8, n_classes)
        self.gradients = None
        self.activations = None

    def save_grad(self, grad):
        self.gradients = grad

    def forward(self, x):
        x = F.relu(self.conv1(x))
        a = F.relu(self.conv2(x))
        if a.requires_grad:
            a.register_hook(self.save_grad)
        self.activations = a
        return self.fc(a.mean(dim=(2, 3)))


def grad_cam(model, x, cls):
    logits = model(x)
    model.zero_grad()
    logits[:, cls].sum().backward()
    weights = model.gradients.mean(dim=(2, 3), keepdim=True)
    cam = F.relu((weights * model.activations).sum(1))
    return cam / cam.amax(dim=(1, 2), keepdim=True).clamp_min(1e-6)


def main():
    torch.manual_seed(0)
    model = CAMNet()
    compiled = torch.compile(model)
    x = torch.randn(2, 3, 8, 8)
    logits = compiled(x)
    model.zero_grad()
    logits[:, 1].sum().backward()
    weights = model.gradients.mean(dim=(2, 3), keepdim=True)
    cam = F.relu((weights * model.activations).sum(1)).detach()
    return logits.detach(), cam


if __name__ == "__main__":
    main()
