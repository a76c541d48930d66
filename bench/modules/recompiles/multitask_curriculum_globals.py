"""Multi-task training whose curriculum rewrites module-level loss weights at every epoch."""
import torch
import torch.nn as nn
import torch.nn.functional as F

SEG_WEIGHT = 1.0
DEPTH_WEIGHT = 0.1


class SharedTrunk(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1))
        self.seg = nn.Conv2d(8, 4, 1)
        self.depth = nn.Conv2d(8, 1, 1)

    def forward(self, x):
        h = torch.relu(self.trunk(x))
        return self.seg(h), self.depth(h)


def multitask_loss(model, x, seg_target, depth_target):
    seg_logits, depth = model(x)
    seg = F.cross_entropy(seg_logits, seg_target)
    dep = F.l1_loss(depth.squeeze(1), depth_target)
    return SEG_WEIGHT * seg + DEPTH_WEIGHT * dep


def update_curriculum(epoch, epochs):
    global DEPTH_WEIGHT
    DEPTH_WEIGHT = 0.1 + 0.9 * epoch / (epochs - 1)  # recompile: global-rebound


def main():
    torch.manual_seed(0)
    model = SharedTrunk()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.compile(multitask_loss, backend="eager")
    x = torch.randn(2, 3, 8, 8)
    seg_t = torch.randint(0, 4, (2, 8, 8))
    depth_t = torch.rand(2, 8, 8)
    epochs = 5
    losses = []
    for epoch in range(epochs):
        update_curriculum(epoch, epochs)
        for _ in range(2):
            loss = loss_fn(model, x, seg_t, depth_t)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
    return losses


if __name__ == "__main__":
    main()
