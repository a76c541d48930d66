"""Near-miss: a float learning rate passed to a function compiled with dynamic=True."""
import torch


def sgd_update(param, grad, lr):
    return param - lr * grad


def main():
    torch.manual_seed(0)
    update = torch.compile(sgd_update, backend="eager", dynamic=True)
    param, grad = torch.randn(10), torch.randn(10)
    outs = []
    lr = 0.1
    for step in range(10):
        param = update(param, grad, lr)
        lr = lr * 0.9
        outs.append(param)
    return outs


if __name__ == "__main__":
    main()
