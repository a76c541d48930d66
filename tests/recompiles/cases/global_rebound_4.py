"""A global list of loss weights is replaced by a longer list as tasks are added."""
import torch

TASK_WEIGHTS = [1.0]


def weighted(losses):
    total = 0
    for i, w in enumerate(TASK_WEIGHTS):
        total = total + w * losses[i]
    return total


def main():
    global TASK_WEIGHTS
    torch.manual_seed(0)
    fn = torch.compile(weighted, backend="eager")
    losses = torch.rand(12)
    outs = []
    for n in range(1, 11):
        TASK_WEIGHTS = [1.0 / n] * n  # recompile: global-rebound
        outs.append(fn(losses))
    return outs


if __name__ == "__main__":
    main()
