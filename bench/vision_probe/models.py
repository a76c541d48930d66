"""The probed models: (name, library, constructor expression, input size).  Tiny inputs where the model allows."""
MODELS = [
    # timm (1.0.31)
    ("resnet18", "timm", 'timm.create_model("resnet18", pretrained=False, num_classes=10)', 64),
    ("vit_tiny", "timm", 'timm.create_model("vit_tiny_patch16_224", pretrained=False, num_classes=10, img_size=64)', 64),
    ("deit_tiny_distilled", "timm", 'timm.create_model("deit_tiny_distilled_patch16_224", pretrained=False, num_classes=10, img_size=64)', 64),
    ("convnext_atto", "timm", 'timm.create_model("convnext_atto", pretrained=False, num_classes=10)', 64),
    ("efficientnet_b0", "timm", 'timm.create_model("efficientnet_b0", pretrained=False, num_classes=10)', 64),
    ("mobilenetv3_small", "timm", 'timm.create_model("mobilenetv3_small_050", pretrained=False, num_classes=10)', 64),
    ("swin_tiny", "timm", 'timm.create_model("swin_tiny_patch4_window7_224", pretrained=False, num_classes=10, img_size=112)', 112),
    ("levit_128s", "timm", 'timm.create_model("levit_128s", pretrained=False, num_classes=10, img_size=64)', 64),
    ("regnetx_002", "timm", 'timm.create_model("regnetx_002", pretrained=False, num_classes=10)', 64),
    ("mixer_s32", "timm", 'timm.create_model("mixer_s32_224", pretrained=False, num_classes=10, img_size=64)', 64),
    ("repvgg_a0", "timm", 'timm.create_model("repvgg_a0", pretrained=False, num_classes=10)', 64),
    ("efficientformer_l1", "timm", 'timm.create_model("efficientformer_l1", pretrained=False, num_classes=10)', 224),
    ("maxvit_nano", "timm", 'timm.create_model("maxvit_nano_rw_256", pretrained=False, num_classes=10, img_size=64)', 64),
    ("mobilevit_xxs", "timm", 'timm.create_model("mobilevit_xxs", pretrained=False, num_classes=10)', 64),
    ("densenet121", "timm", 'timm.create_model("densenet121", pretrained=False, num_classes=10)', 64),
    ("ghostnet_050", "timm", 'timm.create_model("ghostnet_050", pretrained=False, num_classes=10)', 64),
    ("eva02_tiny", "timm", 'timm.create_model("eva02_tiny_patch14_224", pretrained=False, num_classes=10, img_size=56)', 56),
    ("pvt_v2_b0", "timm", 'timm.create_model("pvt_v2_b0", pretrained=False, num_classes=10)', 64),
    ("poolformerv2_s12", "timm", 'timm.create_model("poolformerv2_s12", pretrained=False, num_classes=10)', 64),
    ("nf_resnet26", "timm", 'timm.create_model("nf_resnet26", pretrained=False, num_classes=10)', 64),
    ("edgenext_xx_small", "timm", 'timm.create_model("edgenext_xx_small", pretrained=False, num_classes=10)', 64),
    ("fastvit_t8", "timm", 'timm.create_model("fastvit_t8", pretrained=False, num_classes=10)', 64),
    ("xcit_nano", "timm", 'timm.create_model("xcit_nano_12_p16_224", pretrained=False, num_classes=10, img_size=64)', 64),
    ("efficientvit_b0", "timm", 'timm.create_model("efficientvit_b0", pretrained=False, num_classes=10)', 64),
    ("cait_xxs24", "timm", 'timm.create_model("cait_xxs24_224", pretrained=False, num_classes=10, img_size=64)', 64),
    # torchvision (0.29.1)
    ("tv_resnet18", "torchvision", 'torchvision.models.resnet18(num_classes=10)', 64),
    ("tv_mobilenet_v3_small", "torchvision", 'torchvision.models.mobilenet_v3_small(num_classes=10)', 64),
    ("tv_swin_t", "torchvision", 'torchvision.models.swin_t(num_classes=10)', 64),
    ("tv_convnext_tiny", "torchvision", 'torchvision.models.convnext_tiny(num_classes=10)', 64),
    ("tv_vit_b_32", "torchvision", 'torchvision.models.vit_b_32(num_classes=10, image_size=64)', 64),
    ("tv_shufflenet", "torchvision", 'torchvision.models.shufflenet_v2_x0_5(num_classes=10)', 64),
    ("tv_googlenet", "torchvision", 'torchvision.models.googlenet(num_classes=10, aux_logits=False, init_weights=False)', 64),
    ("tv_efficientnet_b0", "torchvision", 'torchvision.models.efficientnet_b0(num_classes=10)', 64),
]

TEMPLATE = '''import torch
import {library}

torch.manual_seed(0)
model = {ctor}
model.{mode_call}
compiled = torch.compile(model, backend="eager")

x = torch.randn(2, 3, {size}, {size})
{body}
print("OK {mode}")
'''
BODY = {"eval": "with torch.no_grad():\n    out = compiled(x)", "train": "out = compiled(x)"}
CALL = {"eval": "eval()", "train": "train()"}


def script_text(name: str, mode: str) -> str:
    lib, ctor, size = next((m[1], m[2], m[3]) for m in MODELS if m[0] == name)
    return TEMPLATE.format(library=lib, ctor=ctor, mode_call=CALL[mode], size=size, body=BODY[mode], mode=mode)

# the timm module of each entrypoint (timm.models._registry._model_to_module): the "direct" scripts call the
# entrypoint through its module (`timm.models.resnet.resnet18(...)`) instead of `timm.create_model("resnet18")`,
# a lookup by string in timm's registry that fullgraph cannot follow (the same model, so the same truth)
TIMM_MODULE = {
    "resnet18": "resnet", "vit_tiny_patch16_224": "vision_transformer", "deit_tiny_distilled_patch16_224": "deit",
    "convnext_atto": "convnext", "efficientnet_b0": "efficientnet", "mobilenetv3_small_050": "mobilenetv3",
    "swin_tiny_patch4_window7_224": "swin_transformer", "levit_128s": "levit", "regnetx_002": "regnet",
    "mixer_s32_224": "mlp_mixer", "repvgg_a0": "byobnet", "efficientformer_l1": "efficientformer",
    "maxvit_nano_rw_256": "maxxvit", "mobilevit_xxs": "mobilevit", "densenet121": "densenet",
    "ghostnet_050": "ghostnet", "eva02_tiny_patch14_224": "eva", "pvt_v2_b0": "pvt_v2",
    "poolformerv2_s12": "metaformer", "nf_resnet26": "nfnet", "edgenext_xx_small": "edgenext",
    "fastvit_t8": "fastvit", "xcit_nano_12_p16_224": "xcit", "efficientvit_b0": "efficientvit_mit",
    "cait_xxs24_224": "cait",
}


def direct_text(name: str, mode: str) -> str | None:
    """The timm model's script with its entrypoint called through its module (None: not a timm model)."""
    import re
    text = script_text(name, mode)
    m = re.search(r'timm\.create_model\("(\w+)", ', text)
    if not m:
        return None
    return text.replace(m.group(0), f"timm.models.{TIMM_MODULE[m.group(1)]}.{m.group(1)}(")
