"""An SGD-like update takes the learning rate of a decaying schedule as a Python float."""
import torch


def sgd_update(param, grad, lr):
    return param - lr * grad


def main():
    torch.manual_seed(0)
    update = torch.compile(sgd_update, backend="eager")
    param, grad = torch.randn(10), torch.randn(10)
    outs = []
    lr = 0.1
    for step in range(10):
        param = update(param, grad, lr)  # recompile: scalar-arg-varies
        lr = lr * 0.9
        outs.append(param)
    return outs


if __name__ == "__main__":
    main()
