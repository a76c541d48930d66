import math
from typing import Tuple

import torch
from torch import Tensor


class BoxCoder:
    """Encodes / decodes boxes w.r.t. anchors (Faster R-CNN parameterisation)."""

    def __init__(self, weights: Tuple[float, float, float, float] = (10.0, 10.0, 5.0, 5.0),
                 bbox_xform_clip: float = math.log(1000.0 / 16)):
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def decode(self, rel_codes: Tensor, boxes: Tensor) -> Tensor:
        boxes = boxes.to(rel_codes.dtype)
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0::4] / wx
        dy = rel_codes[:, 1::4] / wy
        dw = torch.clamp(rel_codes[:, 2::4] / ww, max=self.bbox_xform_clip)
        dh = torch.clamp(rel_codes[:, 3::4] / wh, max=self.bbox_xform_clip)
        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        pred_w = torch.exp(dw) * widths[:, None]
        pred_h = torch.exp(dh) * heights[:, None]
        c_to_c_h = torch.tensor(0.5, dtype=pred_ctr_y.dtype) * pred_h
        c_to_c_w = torch.tensor(0.5, dtype=pred_ctr_x.dtype) * pred_w
        return torch.stack((pred_ctr_x - c_to_c_w, pred_ctr_y - c_to_c_h,
                            pred_ctr_x + c_to_c_w, pred_ctr_y + c_to_c_h), dim=2).flatten(1)


def clip_boxes_to_image(boxes: Tensor, size: Tuple[int, int]) -> Tensor:
    height, width = size
    boxes_x = boxes[..., 0::2].clamp(min=0, max=width)
    boxes_y = boxes[..., 1::2].clamp(min=0, max=height)
    return torch.stack((boxes_x, boxes_y), dim=boxes.dim()).reshape(boxes.shape)


coder = BoxCoder()


@torch.compile(fullgraph=True)
def decode_and_clip(deltas, anchors, image_size: Tuple[int, int]):
    return clip_boxes_to_image(coder.decode(deltas, anchors), image_size)


def main():
    torch.manual_seed(0)
    anchors = torch.tensor([[0, 0, 16, 16], [8, 8, 40, 24], [20, 4, 30, 60]], dtype=torch.float32)
    deltas = torch.randn(3, 4) * 0.5
    return decode_and_clip(deltas, anchors, (48, 48))


if __name__ == "__main__":
    print(main())
