"""Near-miss: the decaying learning rate is a 0-d tensor, so its value is data, not a guard."""
import torch


def sgd_update(param, grad, lr):
    return param - lr * grad


def main():
    torch.manual_seed(0)
    update = torch.compile(sgd_update, backend="eager")
    param, grad = torch.randn(10), torch.randn(10)
    outs = []
    lr = torch.tensor(0.1)
    for step in range(10):
        param = update(param, grad, lr)
        lr = lr * 0.9
        outs.append(param)
    return outs


if __name__ == "__main__":
    main()
