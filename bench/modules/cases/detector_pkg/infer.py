import torch

from . import boxes as box_ops


@torch.compile(fullgraph=True)
def postprocess(raw_boxes, raw_scores, image_id: int):
    boxes, scores = box_ops.filter_small(raw_boxes, raw_scores)
    order = scores.argsort(descending=True)
    boxes, scores = boxes[order], scores[order]
    return box_ops.to_coco_json(boxes, scores, image_id)


def main():
    torch.manual_seed(0)
    xy = torch.rand(12, 2) * 30
    raw_boxes = torch.cat([xy, xy + torch.rand(12, 2) * 10], dim=1)
    raw_scores = torch.rand(12)
    records = postprocess(raw_boxes, raw_scores, 7)
    return torch.tensor([r["score"] for r in records]), torch.tensor([r["bbox"] for r in records])


if __name__ == "__main__":
    print(main())
