"""facebookresearch/dinov2: the README's backbone (`torch.hub.load('facebookresearch/dinov2', 'dinov2_vits14')`,
here the same entry point imported from dinov2.hub.backbones, pretrained=False: random weights), compiled and
run on images of two resolutions (the position embeddings are interpolated), in eval and with is_training=True
(the dict of normalized tokens the SSL heads read); and the with-registers variant dinov2_vits14_reg.
xFormers is not installed: the repository's own fallback (no stand-in needed).
"""
import torch

from dinov2.hub.backbones import dinov2_vits14, dinov2_vits14_reg


def main():
    torch.manual_seed(0)
    outs = []
    for factory in (dinov2_vits14, dinov2_vits14_reg):
        model = factory(pretrained=False)
        model.eval()
        model = torch.compile(model)
        with torch.no_grad():
            outs.append(model(torch.randn(1, 3, 224, 224)))
            outs.append(model(torch.randn(1, 3, 112, 112)))
            feats = model(torch.randn(2, 3, 98, 98), is_training=True)
            outs.append(feats["x_norm_clstoken"])
    return outs


if __name__ == "__main__":
    main()
