import torch

__all__ = ["matrix_nms"]


def pairwise_iou(boxes):
    x1, y1, x2, y2 = boxes.unbind(-1)
    area = (x2 - x1).clamp(min=0) * (y2 - y1).clamp(min=0)
    lt = torch.maximum(boxes[:, None, :2], boxes[None, :, :2])
    rb = torch.minimum(boxes[:, None, 2:], boxes[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    return inter / (area[:, None] + area[None, :] - inter + 1e-9)


def matrix_nms(boxes, scores, labels, sigma=2.0, kernel="gaussian"):
    """Matrix NMS (SOLOv2): decays scores in parallel instead of a sequential suppression loop."""
    order = scores.argsort(descending=True)
    boxes, scores, labels = boxes[order], scores[order], labels[order]
    n = boxes.shape[0]
    iou = pairwise_iou(boxes).triu(diagonal=1)
    same = (labels[:, None] == labels[None, :]).triu(diagonal=1)
    decay_iou = iou * same
    compensate = decay_iou.max(dim=0).values.expand(n, n).t()
    if kernel == "gaussian":
        decay = torch.exp(-sigma * (decay_iou ** 2 - compensate ** 2))
    elif kernel == "linear":
        decay = (1 - decay_iou) / (1 - compensate)
    else:
        raise NotImplementedError(kernel)
    coef = decay.min(dim=0).values
    return boxes, scores * coef, labels


run = torch.compile(matrix_nms, fullgraph=True)


def main():
    torch.manual_seed(0)
    xy = torch.rand(16, 2) * 40
    boxes = torch.cat([xy, xy + torch.rand(16, 2) * 15 + 2], 1)
    scores = torch.rand(16)
    labels = torch.randint(0, 3, (16,))
    b, s, l = run(boxes, scores, labels)
    b2, s2, _ = run(boxes, scores, labels, kernel="linear")
    return s, s2


if __name__ == "__main__":
    print(main())
