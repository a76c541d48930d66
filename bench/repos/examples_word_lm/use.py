"""pytorch/examples word_language_model: main.py's train() and evaluate() for the LSTM (the default --model)
and the Transformer, with the model compiled, on random token ids (no Wikitext-2).
"""
import os
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "word_language_model"))
from model import RNNModel, TransformerModel  # noqa: E402


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history (as main.py)."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i, bptt=5):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


def train(model, kind, train_data, ntokens, batch_size, lr=20, clip=0.25):
    model.train()
    total_loss = 0.
    criterion = nn.NLLLoss()
    if kind != 'Transformer':
        hidden = model.init_hidden(batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, 5)):
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        if kind == 'Transformer':
            output = model(data)
            output = output.view(-1, ntokens)
        else:
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        total_loss += loss.item()
    return total_loss


def main():
    torch.manual_seed(1111)
    ntokens, batch_size = 50, 4
    train_data = torch.randint(0, ntokens, (16, batch_size))
    losses = []
    for kind in ("LSTM", "Transformer"):
        if kind == 'Transformer':
            model = TransformerModel(ntokens, 16, 2, 16, 2, 0.2)
        else:
            model = RNNModel(kind, ntokens, 16, 16, 2, 0.2, False)
        model = torch.compile(model)
        losses.append(train(model, kind, train_data, ntokens, batch_size))
    return torch.tensor(losses)


if __name__ == "__main__":
    main()
