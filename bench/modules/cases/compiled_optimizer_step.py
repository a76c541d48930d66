# Pattern from the "compiled optimizer" recipe: compile only opt.step(), gradients come from eager.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Linear(16, 16) for _ in range(4)])
opt = torch.optim.Adam(model.parameters(), lr=torch.tensor(0.01))


@torch.compile(fullgraph=False)
def opt_step():
    opt.step()


def main():
    torch.manual_seed(1)
    x = torch.randn(4, 16)
    for _ in range(3):
        model(x).sum().backward()
        opt_step()
        opt.zero_grad()
    return [p.detach().clone() for p in model.parameters()][:2]


if __name__ == "__main__":
    main()
