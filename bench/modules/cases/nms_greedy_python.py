import torch


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def nms(boxes, scores, iou_threshold=0.5):
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i)
        if order.numel() == 1:
            break
        ious = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]])[0]
        order = order[1:][ious <= iou_threshold]
    return torch.stack(keep)


@torch.compile
def postprocess(boxes, scores, score_thresh=0.05):
    boxes, scores = boxes[scores > score_thresh], scores[scores > score_thresh]
    keep = nms(boxes, scores)
    return boxes[keep], scores[keep]


def main():
    torch.manual_seed(0)
    xy = torch.rand(20, 2) * 50
    wh = torch.rand(20, 2) * 20 + 5
    boxes = torch.cat([xy, xy + wh], dim=1)
    scores = torch.rand(20)
    return postprocess(boxes, scores)


if __name__ == "__main__":
    print(main())
