import torch
import torch.nn as nn


class ChunkedEncoder(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return torch.tanh(self.proj(x))


encoder = ChunkedEncoder()


@torch.compile
def stream_encode(x, chunk=4):
    """Encode a long sequence chunk by chunk and yield results as they are ready."""
    for start in range(0, x.shape[1], chunk):
        yield encoder(x[:, start:start + chunk])


def main():
    torch.manual_seed(0)
    for p in encoder.parameters():
        nn.init.normal_(p, std=0.3)
    x = torch.randn(2, 12, 8)
    return torch.cat(list(stream_encode(x)), dim=1)


if __name__ == "__main__":
    main()
