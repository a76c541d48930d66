"""pytorch/examples gat/main.py: the script's __main__ (`python main.py --epochs 300 ...`) on a small random
graph instead of Cora, with the network compiled: GAT(...) -> torch.compile, then train_iter() per epoch
and test().  requests (used only to download Cora) is not installed: a stand-in module.
"""
import os
import sys
import types

import torch
from torch import nn
from torch.optim import Adam

HERE = os.path.dirname(os.path.abspath(__file__))

# --- stand-ins: requests is not installed (gat/main.py imports it to download Cora)
sys.modules.setdefault("requests", types.ModuleType("requests"))
# --- end of stand-ins

sys.path.insert(0, os.path.join(HERE, "gat"))
from main import GAT, test, train_iter  # noqa: E402


def main():
    torch.manual_seed(13)
    n, f, classes = 40, 16, 4
    features = torch.rand(n, f)
    labels = torch.randint(0, classes, (n,))
    adj_mat = ((torch.rand(n, n) < 0.1) | torch.eye(n, dtype=torch.bool)).to(torch.int64)
    idx = torch.randperm(len(labels))
    idx_test, idx_val, idx_train = idx[:10], idx[10:20], idx[20:]
    gat_net = GAT(in_features=features.shape[1], n_hidden=8, n_heads=2, num_classes=labels.max().item() + 1,
                  concat=False, dropout=0.6, leaky_relu_slope=0.2)
    gat_net = torch.compile(gat_net)
    optimizer = Adam(gat_net.parameters(), lr=0.005, weight_decay=5e-4)
    criterion = nn.NLLLoss()
    for epoch in range(2):
        train_iter(epoch + 1, gat_net, optimizer, criterion, (features, adj_mat), labels, idx_train, idx_val, 1)
    loss_test, acc_test = test(gat_net, criterion, (features, adj_mat), labels, idx_test)
    return torch.tensor([loss_test, acc_test])


if __name__ == "__main__":
    main()
