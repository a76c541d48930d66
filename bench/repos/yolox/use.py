"""Megvii-BaseDetection/YOLOX: the inference of tools/demo.py (`python tools/demo.py image -n yolox-nano -c
yolox_nano.pth --tsize 64`, the conf / nms defaults 0.3 / 0.3) with the model and the post-processing compiled,
as users do: `model = torch.compile(model)` after demo's main() has built it (`exp = get_exp(None, name)`,
`exp.get_model()`, `model.eval()`, the checkpoint's `ckpt["model"]` loaded), and
`torch.compile(postprocess)` for yolox.utils.postprocess, the data-dependent part (confidence mask, boolean
indexing, NMS per image).  Called as Predictor.inference calls them (one image, `class_agnostic=True`: NMS), then
as COCOEvaluator.evaluate does (a batch of two, class-aware: batched NMS, Exp's test_conf / nmsthre, 0.01 / 0.65).

tools/demo.py itself is not copied (it imports yolox.data, whose data sets need pycocotools and cv2): its
inference lines are written in main() below.  No weights are downloaded: the checkpoint is a yolox-nano in the
demo's format (`{"model": state_dict}`) with random weights, written to a temp directory; its prediction biases
are drawn from N(0, 1) instead of the training prior (-4.6: with untrained weights every score stays near 1e-4,
under any threshold), so that boxes pass the thresholds and reach NMS (68 of the demo image's 84 pass 0.3).  The
images are random pixels in the demo's preprocessing layout (0-255, CHW, float).

cv2 and tabulate are not installed, nor torchvision: import-only stand-ins for the first two (never called
here); for torchvision, `ops.nms` and `ops.batched_nms` as torchvision 0.28 writes them in ops/boxes.py, over an
operator `torchvision::nms` registered as torchvision registers its C++ one (a CPU kernel, here greedy NMS in
torch, and torchvision's fake implementation: an output of unbacked length), so that Dynamo sees an opaque
operator with a data-dependent output size, as it sees torchvision's.  The kernel is wrapped in
`torch.compiler.disable`: called eagerly from a frame Dynamo gave up on, a Python kernel would otherwise be
compiled as a frame of its own, which torchvision's C++ kernel is not.  The branches not taken here (quantized
boxes, more than 1000 boxes for batched_nms) raise instead of being copied.  Checked against torchvision 0.28.0's
own Python package (the wheel unpacked outside the venv, its C++ operator replaced by this kernel, as that
wheel's extension needs CUDA libraries): the same three break sites and the same five events.
"""
import importlib.machinery
import os
import sys
import tempfile
import types

import torch

# --- stand-ins: cv2, tabulate and torchvision are not installed
for _name in ("cv2", "tabulate"):
    sys.modules[_name] = types.ModuleType(_name)
    sys.modules[_name].__spec__ = importlib.machinery.ModuleSpec(_name, None)  # torch looks tabulate up
sys.modules["tabulate"].tabulate = lambda *args, **kwargs: ""

_tv_lib = torch.library.Library("torchvision", "DEF")
_tv_lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")


@torch.compiler.disable  # torchvision's kernel is C++: no Python frame for Dynamo to compile
def _nms_kernel(dets, scores, iou_threshold):
    x1, y1, x2, y2 = dets.unbind(1)
    areas = (x2 - x1) * (y2 - y1)
    suppressed = torch.zeros(dets.shape[0], dtype=torch.bool)
    keep = []
    for i in scores.sort(0, descending=True)[1].tolist():
        if suppressed[i]:
            continue
        keep.append(i)
        w = (torch.minimum(x2[i], x2) - torch.maximum(x1[i], x1)).clamp(min=0)
        h = (torch.minimum(y2[i], y2) - torch.maximum(y1[i], y1)).clamp(min=0)
        inter = w * h
        suppressed |= inter / (areas[i] + areas - inter) > iou_threshold
    return torch.tensor(keep, dtype=torch.long)


_tv_lib.impl("nms", _nms_kernel, "CPU")


@torch.library.register_fake("torchvision::nms")
def _meta_nms(dets, scores, iou_threshold):
    torch._check(dets.dim() == 2, lambda: f"boxes should be a 2d tensor, got {dets.dim()}D")
    torch._check(dets.size(1) == 4, lambda: f"boxes should have 4 elements in dimension 1, got {dets.size(1)}")
    torch._check(scores.dim() == 1, lambda: f"scores should be a 1d tensor, got {scores.dim()}")
    torch._check(dets.size(0) == scores.size(0), lambda: "boxes and scores should have same number of elements")
    ctx = torch._custom_ops.get_ctx()
    num_to_keep = ctx.create_unbacked_symint()
    return dets.new_empty(num_to_keep, dtype=torch.long)


def _log_api_usage_once(obj):
    module = obj.__module__
    if not module.startswith("torchvision"):
        module = f"torchvision.internal.{module}"
    name = obj.__class__.__name__
    if isinstance(obj, types.FunctionType):
        name = obj.__name__
    torch._C._log_api_usage_once(f"{module}.{name}")


def nms(boxes, scores, iou_threshold):
    if not torch.jit.is_scripting() and not torch.jit.is_tracing():
        _log_api_usage_once(nms)
    if not torch.jit.is_scripting() and boxes.is_quantized:
        raise NotImplementedError("qnms")
    return torch.ops.torchvision.nms(boxes, scores, iou_threshold)


def batched_nms(boxes, scores, idxs, iou_threshold):
    if not torch.jit.is_scripting() and not torch.jit.is_tracing():
        _log_api_usage_once(batched_nms)
    if boxes.numel() > (4000 if boxes.device.type == "cpu" else 100_000) and not torch._C._get_tracing_state():
        raise NotImplementedError("_batched_nms_vanilla")  # more than 1000 boxes: not reached here
    else:
        return _batched_nms_coordinate_trick(boxes, scores, idxs, iou_threshold)


@torch.jit._script_if_tracing
def _batched_nms_coordinate_trick(boxes, scores, idxs, iou_threshold):
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64, device=boxes.device)
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    boxes_for_nms = boxes + offsets[:, None]
    keep = nms(boxes_for_nms, scores, iou_threshold)
    return keep


nms.__module__ = batched_nms.__module__ = "torchvision.ops.boxes"
_tv = types.ModuleType("torchvision")
_tv.ops = types.ModuleType("torchvision.ops")
_tv.ops.nms, _tv.ops.batched_nms = nms, batched_nms
sys.modules["torchvision"] = _tv
sys.modules["torchvision.ops"] = _tv.ops
# --- end of stand-ins

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from yolox.exp import get_exp  # noqa: E402
from yolox.utils import postprocess  # noqa: E402


def _write_checkpoint(path, name):
    """A yolox checkpoint as training saves it (`{"model": state_dict, ...}`), random weights."""
    torch.manual_seed(0)
    model = get_exp(None, name).get_model()
    state = model.state_dict()
    for key, value in state.items():
        if key.startswith(("head.obj_preds.", "head.cls_preds.")) and key.endswith(".bias"):
            value.copy_(torch.randn_like(value))
    torch.save({"model": state, "start_epoch": 0}, path)


def main():
    name = "yolox-nano"
    with tempfile.TemporaryDirectory() as tmp:
        ckpt_file = os.path.join(tmp, "yolox_nano.pth")
        _write_checkpoint(ckpt_file, name)

        # tools/demo.py: __main__ and main(exp, args)
        exp = get_exp(None, name)
        exp.test_conf = 0.3
        exp.nmsthre = 0.3
        exp.test_size = (64, 64)
        model = exp.get_model()
        model.eval()
        ckpt = torch.load(ckpt_file, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        model = torch.compile(model)
        compiled_postprocess = torch.compile(postprocess)

        # Predictor.inference: one preprocessed image
        gen = torch.Generator().manual_seed(1)
        img = torch.randint(0, 256, (3, 64, 64), generator=gen).float().unsqueeze(0)
        with torch.no_grad():
            outputs = model(img)
            outputs = compiled_postprocess(
                outputs, exp.num_classes, exp.test_conf,
                exp.nmsthre, class_agnostic=True
            )
        detections = [outputs]

        # COCOEvaluator.evaluate: a batch, class-aware NMS, Exp's evaluation thresholds
        imgs = torch.randint(0, 256, (2, 3, 64, 64), generator=gen).float()
        with torch.no_grad():
            outputs = model(imgs)
            outputs = compiled_postprocess(outputs, exp.num_classes, 0.01, 0.65)
        detections.append(outputs)
    return detections


if __name__ == "__main__":
    for out in main():
        print([None if d is None else tuple(d.shape) for d in out])
