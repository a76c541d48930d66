"""jik876/hifi-gan: train.py's training step (discriminator step, then generator step with feature-matching
and adversarial losses) and inference.py's generation (`generator.remove_weight_norm()`, `generator(x)`),
with the three networks compiled (`generator = torch.compile(Generator(h))`, same for the MPD and MSD); the
V3 config, random mel frames and audio.  The mel-spectrogram L1 loss is left out: meldataset.mel_spectrogram
calls torch.stft without return_complex, which torch 2.x rejects (and needs librosa).
matplotlib is not installed (utils.py imports it for plotting): a stand-in.
"""
import json
import os
import sys
import types

import torch

HERE = os.path.dirname(os.path.abspath(__file__))

# --- stand-ins: matplotlib is not installed (utils.py imports it at the top for plot_spectrogram)
_mpl = types.ModuleType("matplotlib")
_mpl.use = lambda *args, **kwargs: None
_pylab = types.ModuleType("matplotlib.pylab")
_mpl.pylab = _pylab
sys.modules["matplotlib"] = _mpl
sys.modules["matplotlib.pylab"] = _pylab
# --- end of stand-ins

from env import AttrDict  # noqa: E402
from models import (Generator, MultiPeriodDiscriminator, MultiScaleDiscriminator, discriminator_loss,  # noqa: E402
                    feature_loss, generator_loss)


def main():
    with open(os.path.join(HERE, "config_v3.json")) as f:
        data = f.read()
    h = AttrDict(json.loads(data))
    torch.manual_seed(h.seed)
    generator = torch.compile(Generator(h))
    mpd = torch.compile(MultiPeriodDiscriminator())
    msd = torch.compile(MultiScaleDiscriminator())
    optim_g = torch.optim.AdamW(generator.parameters(), h.learning_rate, betas=[h.adam_b1, h.adam_b2])
    optim_d = torch.optim.AdamW(list(msd.parameters()) + list(mpd.parameters()), h.learning_rate,
                                betas=[h.adam_b1, h.adam_b2])
    generator.train()
    mpd.train()
    msd.train()
    frames = 8
    for _ in range(2):
        x = torch.randn(1, h.num_mels, frames)
        y = torch.randn(1, frames * h.hop_size).clamp(-1, 1).unsqueeze(1)
        y_g_hat = generator(x)
        optim_d.zero_grad()
        y_df_hat_r, y_df_hat_g, _, _ = mpd(y, y_g_hat.detach())
        loss_disc_f, losses_disc_f_r, losses_disc_f_g = discriminator_loss(y_df_hat_r, y_df_hat_g)
        y_ds_hat_r, y_ds_hat_g, _, _ = msd(y, y_g_hat.detach())
        loss_disc_s, losses_disc_s_r, losses_disc_s_g = discriminator_loss(y_ds_hat_r, y_ds_hat_g)
        loss_disc_all = loss_disc_s + loss_disc_f
        loss_disc_all.backward()
        optim_d.step()
        optim_g.zero_grad()
        y_df_hat_r, y_df_hat_g, fmap_f_r, fmap_f_g = mpd(y, y_g_hat)
        y_ds_hat_r, y_ds_hat_g, fmap_s_r, fmap_s_g = msd(y, y_g_hat)
        loss_fm_f = feature_loss(fmap_f_r, fmap_f_g)
        loss_fm_s = feature_loss(fmap_s_r, fmap_s_g)
        loss_gen_f, losses_gen_f = generator_loss(y_df_hat_g)
        loss_gen_s, losses_gen_s = generator_loss(y_ds_hat_g)
        loss_gen_all = loss_gen_s + loss_gen_f + loss_fm_s + loss_fm_f
        loss_gen_all.backward()
        optim_g.step()
    # inference.py
    generator.eval()
    generator.remove_weight_norm()
    with torch.no_grad():
        y_g_hat = generator(torch.randn(1, h.num_mels, frames))
        audio = y_g_hat.squeeze()
    return audio


if __name__ == "__main__":
    main()
