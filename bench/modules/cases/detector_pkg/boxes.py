import torch


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def filter_small(boxes, scores, min_size=1.0, score_thresh=0.2):
    ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    keep = (ws >= min_size) & (hs >= min_size) & (scores > score_thresh)
    return boxes[keep], scores[keep]


def to_xywh(boxes):
    xy = boxes[:, :2]
    return torch.cat([xy, boxes[:, 2:] - xy], dim=1)


def to_coco_json(boxes, scores, image_id):
    """COCO result records (x, y, w, h) for the evaluator."""
    xywh = to_xywh(boxes)
    return [
        {"image_id": image_id, "bbox": [round(v, 2) for v in box], "score": s}
        for box, s in zip(xywh.tolist(), scores.tolist())
    ]
