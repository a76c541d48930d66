"""Diego999/pyGAT: train.py (`python train.py`, dense GAT, and `--sparse` SpGAT) with the model compiled: load_data() on a small random graph
written in Cora's file format (1,500 nodes: train.py's index ranges need them), GCN, train(epoch) for two
epochs and compute_test(), as train.py writes them, for both models.
"""
import os
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F
import torch.optim as optim

from models import GAT, SpGAT
from utils import accuracy, load_data


def write_cora(path, n=1500, f=8, classes=3, edges=3000):
    rng = np.random.default_rng(0)
    with open(os.path.join(path, "cora.content"), "w") as fh:
        for i in range(n):
            feats = "\t".join(str(v) for v in rng.integers(0, 2, size=f))
            fh.write(f"{1000 + i}\t{feats}\tclass{rng.integers(classes)}\n")
    with open(os.path.join(path, "cora.cites"), "w") as fh:
        for a, b in rng.integers(0, n, size=(edges, 2)):
            fh.write(f"{1000 + a}\t{1000 + b}\n")


def main():
    np.random.seed(72)
    torch.manual_seed(72)
    with tempfile.TemporaryDirectory() as tmp:
        write_cora(tmp)
        adj, features, labels, idx_train, idx_val, idx_test = load_data(path=tmp + os.sep)
    results = []
    for sparse in (False, True):
        results.append(run(sparse, adj, features, labels, idx_train, idx_val, idx_test))
    return results


def run(sparse, adj, features, labels, idx_train, idx_val, idx_test):
    if sparse:
        model = SpGAT(nfeat=features.shape[1], nhid=8, nclass=int(labels.max()) + 1, dropout=0.6, nheads=2, alpha=0.2)
    else:
        model = GAT(nfeat=features.shape[1], nhid=8, nclass=int(labels.max()) + 1, dropout=0.6, nheads=2, alpha=0.2)
    optimizer = optim.Adam(model.parameters(), lr=0.005, weight_decay=5e-4)
    model = torch.compile(model)

    def train(epoch):
        t = time.time()
        model.train()
        optimizer.zero_grad()
        output = model(features, adj)
        loss_train = F.nll_loss(output[idx_train], labels[idx_train])
        acc_train = accuracy(output[idx_train], labels[idx_train])
        loss_train.backward()
        optimizer.step()
        model.eval()
        output = model(features, adj)
        loss_val = F.nll_loss(output[idx_val], labels[idx_val])
        acc_val = accuracy(output[idx_val], labels[idx_val])
        print('Epoch: {:04d}'.format(epoch + 1), 'loss_train: {:.4f}'.format(loss_train.data.item()),
              'acc_train: {:.4f}'.format(acc_train.data.item()), 'loss_val: {:.4f}'.format(loss_val.data.item()),
              'acc_val: {:.4f}'.format(acc_val.data.item()), 'time: {:.4f}s'.format(time.time() - t))
        return loss_val.data.item()

    def compute_test():
        model.eval()
        output = model(features, adj)
        loss_test = F.nll_loss(output[idx_test], labels[idx_test])
        acc_test = accuracy(output[idx_test], labels[idx_test])
        return loss_test, acc_test

    for epoch in range(2):
        train(epoch)
    return compute_test()


if __name__ == "__main__":
    main()
