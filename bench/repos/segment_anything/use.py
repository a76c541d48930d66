"""facebookresearch/segment-anything: the README's SamPredictor flow (`predictor = SamPredictor(sam)`,
`predictor.set_image(...)`, `predictor.predict(<input_prompts>)`) with the image encoder and the mask decoder
compiled the usual way for SAM (`sam.image_encoder = torch.compile(sam.image_encoder)`).  The model comes from
_build_sam, the factory behind sam_model_registry, with a tiny image encoder (registry sizes are 91M+
parameters); random weights; the image is given already resized (set_torch_image), since the resize uses
torchvision, which is not installed: stand-ins for torchvision.transforms.functional and torchvision.ops.
"""
import sys
import types

import numpy as np
import torch

# --- stand-ins: torchvision is not installed (utils/transforms.py and automatic_mask_generator.py import it)
_tv = types.ModuleType("torchvision")
_tvt = types.ModuleType("torchvision.transforms")
_tvtf = types.ModuleType("torchvision.transforms.functional")
_tvtf.resize = lambda img, size: img
_tvtf.to_pil_image = lambda img: img
_tvo = types.ModuleType("torchvision.ops")
_tvob = types.ModuleType("torchvision.ops.boxes")
_tvob.batched_nms = lambda boxes, scores, idxs, iou_threshold: torch.arange(len(boxes))
_tvob.box_area = lambda boxes: (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
for _name, _mod in (("torchvision", _tv), ("torchvision.transforms", _tvt),
                    ("torchvision.transforms.functional", _tvtf), ("torchvision.ops", _tvo),
                    ("torchvision.ops.boxes", _tvob)):
    sys.modules[_name] = _mod
# --- end of stand-ins

from segment_anything import SamPredictor  # noqa: E402
from segment_anything.build_sam import _build_sam  # noqa: E402


def main():
    torch.manual_seed(0)
    sam = _build_sam(encoder_embed_dim=32, encoder_depth=2, encoder_num_heads=2, encoder_global_attn_indexes=[1])
    sam.image_encoder = torch.compile(sam.image_encoder)
    sam.mask_decoder = torch.compile(sam.mask_decoder)
    predictor = SamPredictor(sam)
    image = torch.rand(1, 3, 1024, 768) * 255
    predictor.set_torch_image(image, (640, 480))
    masks, scores, logits = predictor.predict(point_coords=np.array([[200, 150]]), point_labels=np.array([1]),
                                              multimask_output=True)
    masks2, _, _ = predictor.predict(point_coords=np.array([[100, 50], [300, 200]]), point_labels=np.array([1, 0]),
                                     box=np.array([50, 40, 400, 300]), mask_input=logits[np.argmax(scores)][None, :, :],
                                     multimask_output=False)
    return torch.from_numpy(masks.astype(np.float32)), torch.from_numpy(masks2.astype(np.float32))


if __name__ == "__main__":
    main()
