import torch

from shopnet import Net


def main():
    model = torch.compile(Net(), fullgraph=True)
    return model(torch.randn(4, 8))


if __name__ == "__main__":
    main()
