"""cloneofsimo/minRF: rf.py's MNIST training loop (`model = DiT_Llama(1, 32, dim=64, n_layers=6, n_heads=4,
num_classes=10)`, `rf = RF(model)`, `loss, blsct = rf.forward(x, c)`, backward, Adam, the per-t loss bins) and its
sampling (`rf.sample(init_noise, cond)`), with the DiT compiled before it is wrapped (`model = torch.compile(model)`);
a smaller DiT, random 32x32 images and labels, CPU.  class_dropout_prob=0 (so no classifier-free guidance):
LabelEmbedder.token_drop calls `.cuda()`, which fails on a CPU-only torch, eager or compiled.
"""
import torch
import torch.optim as optim

from dit import DiT_Llama
from rf import RF


def main():
    torch.manual_seed(0)
    channels = 1
    model = DiT_Llama(channels, 32, dim=64, n_layers=2, n_heads=4, num_classes=10, class_dropout_prob=0.0)
    model = torch.compile(model)
    rf = RF(model)
    optimizer = optim.Adam(model.parameters(), lr=5e-4)
    lossbin = {i: 0 for i in range(10)}
    losscnt = {i: 1e-6 for i in range(10)}
    for i in range(2):
        x, c = torch.randn(4, channels, 32, 32), torch.randint(0, 10, (4,))
        optimizer.zero_grad()
        loss, blsct = rf.forward(x, c)
        loss.backward()
        optimizer.step()
        for t, l in blsct:
            lossbin[int(t * 10)] += l
            losscnt[int(t * 10)] += 1
    rf.model.eval()
    with torch.no_grad():
        cond = torch.arange(0, 4) % 10
        init_noise = torch.randn(4, channels, 32, 32)
        images = rf.sample(init_noise, cond, sample_steps=3)
    return loss.detach(), images[-1]


if __name__ == "__main__":
    main()
