"""pytorch/examples mnist/main.py: main()'s epoch loop with its train() and test() functions compiled
(`train = torch.compile(train)`, a first try at "compile the training loop"), on random 28x28 images (MNIST is
not downloaded); --log-interval 2 and --dry-run off, two epochs of four batches, StepLR as main() does.
torchvision is not installed (main.py imports datasets and transforms at the top): a stand-in.
"""
import argparse
import os
import sys
import types

import torch
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset

# --- stand-ins: torchvision is not installed (main.py imports it for the MNIST data set)
_tv = types.ModuleType("torchvision")
_tv.datasets = types.ModuleType("torchvision.datasets")
_tv.transforms = types.ModuleType("torchvision.transforms")
sys.modules["torchvision"] = _tv
sys.modules["torchvision.datasets"] = _tv.datasets
sys.modules["torchvision.transforms"] = _tv.transforms
# --- end of stand-ins

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "mnist"))
import main as mnist  # noqa: E402


def main():
    torch.manual_seed(1)
    args = argparse.Namespace(batch_size=8, test_batch_size=16, epochs=2, lr=1.0, gamma=0.7, log_interval=2,
                              dry_run=False)
    device = torch.device("cpu")
    train_loader = DataLoader(TensorDataset(torch.randn(32, 1, 28, 28), torch.randint(0, 10, (32,))),
                              batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(TensorDataset(torch.randn(32, 1, 28, 28), torch.randint(0, 10, (32,))),
                             batch_size=args.test_batch_size)
    model = mnist.Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)
    train = torch.compile(mnist.train)
    test = torch.compile(mnist.test)
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch)
        test(model, device, test_loader)
        scheduler.step()
    return model.fc2.weight.detach()


if __name__ == "__main__":
    main()
