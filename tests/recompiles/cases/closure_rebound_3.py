"""A nonlocal bool switches the compiled closure between two activations every epoch."""
import torch


def main():
    torch.manual_seed(0)
    use_gelu = False

    def act(x):
        if use_gelu:
            return torch.nn.functional.gelu(x)
        return torch.relu(x)

    fn = torch.compile(act, backend="eager")
    x = torch.randn(10)
    outs = []
    for epoch in range(6):
        outs.append(fn(x))
        use_gelu = not use_gelu  # recompile: closure-rebound
    return outs


if __name__ == "__main__":
    main()
