import torch
import torch.nn as nn


def pad_to_longest(seqs, lengths, pad_value=0.0):
    max_len = int(lengths.max())
    batch = seqs.new_full((seqs.shape[0], max_len, seqs.shape[-1]), pad_value)
    batch[:, :max_len] = seqs[:, :max_len]
    mask = torch.arange(max_len)[None, :] < lengths[:, None]
    return batch, mask


class MeanPoolEncoder(nn.Module):
    def __init__(self, d=6):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, seqs, lengths):
        x, mask = pad_to_longest(seqs, lengths)
        h = torch.relu(self.fc(x)) * mask[..., None]
        return h.sum(1) / mask.sum(1, keepdim=True)


def main():
    torch.manual_seed(0)
    enc = torch.compile(MeanPoolEncoder())
    seqs = torch.randn(3, 10, 6)
    lengths = torch.tensor([4, 7, 2])
    return enc(seqs, lengths)


if __name__ == "__main__":
    main()
