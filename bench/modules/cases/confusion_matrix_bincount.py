import torch


class ConfusionMatrix:
    def __init__(self, num_classes):
        self.num_classes = num_classes
        self.mat = torch.zeros((num_classes, num_classes), dtype=torch.int64)

    def update(self, target, pred):
        n = self.num_classes
        k = (target >= 0) & (target < n)
        inds = n * target[k].to(torch.int64) + pred[k]
        self.mat += torch.bincount(inds, minlength=n ** 2).reshape(n, n)

    def compute(self):
        h = self.mat.float()
        acc_global = torch.diag(h).sum() / h.sum()
        acc = torch.diag(h) / h.sum(1)
        iu = torch.diag(h) / (h.sum(1) + h.sum(0) - torch.diag(h))
        return acc_global, acc, iu


def evaluate(model, batches, num_classes):
    confmat = ConfusionMatrix(num_classes)
    for image, target in batches:
        output = model(image)
        confmat.update(target.flatten(), output.argmax(1).flatten())
    return confmat.compute()


def main():
    torch.manual_seed(0)
    model = torch.nn.Conv2d(3, 4, 1).eval()
    batches = [(torch.randn(2, 3, 8, 8), torch.randint(-1, 4, (2, 8, 8))) for _ in range(2)]
    with torch.no_grad():
        return torch.compile(evaluate)(model, batches, 4)


if __name__ == "__main__":
    print(main())
