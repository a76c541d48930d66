"""Near-miss: dynamic=True compiles the varying sequence length as a symbol from the first call."""
import torch


def attention_pool(h, q):
    scores = torch.softmax(h @ q, dim=0)
    return (scores[:, None] * h).sum(0)


def main():
    torch.manual_seed(0)
    fn = torch.compile(attention_pool, backend="eager", dynamic=True)
    q = torch.randn(16)
    outs = []
    for seq in (20, 24, 17, 31, 12, 40, 9, 25):
        outs.append(fn(torch.randn(seq, 16), q))
    return outs


if __name__ == "__main__":
    main()
