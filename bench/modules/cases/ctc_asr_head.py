import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyASR(nn.Module):
    def __init__(self, n_mels=16, hidden=32, vocab=12):
        super().__init__()
        self.conv = nn.Conv1d(n_mels, hidden, kernel_size=3, padding=1)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, vocab)  # index 0 = blank

    def forward(self, feats):
        x = F.relu(self.conv(feats.transpose(1, 2))).transpose(1, 2)
        x, _ = self.rnn(x)
        return self.out(x).log_softmax(-1)


def ctc_objective(model, feats, feat_lens, targets, target_lens):
    log_probs = model(feats).transpose(0, 1)  # (T, N, C)
    return F.ctc_loss(log_probs, targets, feat_lens, target_lens, blank=0, zero_infinity=True)


def main():
    torch.manual_seed(0)
    model = TinyASR()
    feats = torch.randn(2, 20, 16)
    feat_lens = torch.tensor([20, 17])
    targets = torch.randint(1, 12, (2, 6))
    target_lens = torch.tensor([6, 4])
    objective = torch.compile(ctc_objective)
    return objective(model, feats, feat_lens, targets, target_lens)


if __name__ == "__main__":
    print(main())
