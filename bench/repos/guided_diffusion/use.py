"""openai/guided-diffusion: what scripts/image_train.py and scripts/image_sample.py do, with the UNet compiled:
`model, diffusion = create_model_and_diffusion(**args)`, then TrainLoop.forward_backward's step
(schedule sampler, diffusion.training_losses(model, ...), weighted loss, backward, optimizer) and
diffusion.p_sample_loop(model, ...) with 4 respaced steps; a tiny class-conditional 16x16 model, random images.
(train_util.py and dist_util.py need mpi4py and blobfile, not installed: the training step is written here.)
"""
import numpy as np
import torch as th

from guided_diffusion.resample import create_named_schedule_sampler
from guided_diffusion.script_util import create_model_and_diffusion, model_and_diffusion_defaults


def main():
    th.manual_seed(0)
    np.random.seed(0)  # the uniform schedule sampler draws timesteps with numpy
    args = model_and_diffusion_defaults()
    args.update(image_size=16, num_channels=32, num_res_blocks=1, num_heads=2, attention_resolutions="8",
                channel_mult="1,2", class_cond=True, learn_sigma=True, diffusion_steps=50, noise_schedule="cosine",
                timestep_respacing="")
    model, diffusion = create_model_and_diffusion(**args)
    model = th.compile(model)
    schedule_sampler = create_named_schedule_sampler("uniform", diffusion)
    opt = th.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.0)

    batch = th.randn(2, 3, 16, 16)
    cond = {"y": th.randint(0, 1000, (2,))}
    for _ in range(2):
        opt.zero_grad()
        t, weights = schedule_sampler.sample(batch.shape[0], "cpu")
        losses = diffusion.training_losses(model, batch, t, model_kwargs=cond)
        loss = (losses["loss"] * weights).mean()
        loss.backward()
        opt.step()

    args.update(timestep_respacing="4")
    model, diffusion = create_model_and_diffusion(**args)
    model.eval()
    model = th.compile(model)
    with th.no_grad():
        sample = diffusion.p_sample_loop(model, (2, 3, 16, 16), clip_denoised=True, model_kwargs=cond)
    return sample


if __name__ == "__main__":
    main()
