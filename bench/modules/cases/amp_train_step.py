"""Mixed-precision training step for a small MLP classifier (bf16 autocast on CPU).

The forward + loss is compiled; backward, clipping and the optimizer stay in eager.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, d_in=32, d_hidden=64, n_classes=10, p_drop=0.0):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_hidden)
        self.head = nn.Linear(d_hidden, n_classes)
        self.drop = nn.Dropout(p_drop)

    def forward(self, x):
        x = F.gelu(self.fc1(x))
        x = self.drop(F.gelu(self.fc2(x)))
        return self.head(x)


@torch.compile(fullgraph=True)
def forward_loss(model, x, y, use_amp: bool = True):
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=use_amp):
        logits = model(x)
    # loss in fp32 for stability
    loss = F.cross_entropy(logits.float(), y, label_smoothing=0.1)
    acc = (logits.argmax(dim=-1) == y).float().mean()
    return loss, acc


def main():
    torch.manual_seed(0)
    model = MLP()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    x = torch.randn(64, 32)
    y = torch.randint(0, 10, (64,))
    losses = []
    for step in range(3):
        loss, acc = forward_loss(model, x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses), acc.detach()


if __name__ == "__main__":
    print(main())
