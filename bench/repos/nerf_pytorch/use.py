"""yenchenlin/nerf-pytorch: run_nerf.py's train() (`python run_nerf.py --config configs/lego.txt`, and
configs/fern.txt) with the renderer compiled from outside (`run_nerf.render = torch.compile(run_nerf.render)`,
a module global rebound, so that train()'s step and render_path() both call the compiled function).
Per config: create_nerf(args), then train()'s optimisation step as it writes it (random rays from one image
for lego's `no_batching`, batches of shuffled rays of every image for fern), two iterations, then the test
render of render_path() under `torch.no_grad()`.  Tiny networks (2 layers of 32), 8+8 samples per ray, an
8x8 random scene instead of the downloaded data sets (the loaders need imageio / cv2 and the images).
imageio, cv2, matplotlib and configargparse are not installed: stand-ins.
"""
import os
import sys
import tempfile
import types

import numpy as np
import torch

# --- stand-ins: imageio, cv2, matplotlib are imported at the top of run_nerf.py and the loaders (never called
# here); configargparse.ArgumentParser is argparse's with `is_config_file` accepted
import argparse  # noqa: E402

for _name in ("imageio", "cv2", "matplotlib", "matplotlib.pyplot"):
    sys.modules[_name] = types.ModuleType(_name)
sys.modules["matplotlib"].pyplot = sys.modules["matplotlib.pyplot"]


class _ConfigArgParser(argparse.ArgumentParser):
    def add_argument(self, *args, is_config_file=False, **kwargs):
        return super().add_argument(*args, **kwargs)


_cap = types.ModuleType("configargparse")
_cap.ArgumentParser = _ConfigArgParser
sys.modules["configargparse"] = _cap
# --- end of stand-ins

import run_nerf  # noqa: E402
from run_nerf import config_parser, create_nerf, render_path  # noqa: E402
from load_blender import pose_spherical  # noqa: E402
from run_nerf_helpers import get_rays, get_rays_np, img2mse, mse2psnr  # noqa: E402

TINY = ["--netdepth", "2", "--netwidth", "32", "--netdepth_fine", "2", "--netwidth_fine", "32",
        "--N_samples", "8", "--N_importance", "8", "--N_rand", "16", "--chunk", "1024", "--netchunk", "4096",
        "--multires", "4", "--multires_views", "2", "--no_reload"]
# configs/lego.txt and configs/fern.txt, without their data paths and sample counts
LEGO = ["--expname", "blender_paper_lego", "--dataset_type", "blender", "--no_batching", "--use_viewdirs",
        "--white_bkgd", "--lrate_decay", "500", "--precrop_iters", "500", "--precrop_frac", "0.5", "--half_res"]
FERN = ["--expname", "fern_test", "--dataset_type", "llff", "--factor", "8", "--llffhold", "8",
        "--use_viewdirs", "--raw_noise_std", "1e0"]


def random_scene(n=3, H=8, W=8, channels=4):
    images = np.random.rand(n, H, W, channels).astype(np.float32)
    poses = np.stack([pose_spherical(angle, -30.0, 4.0).numpy() for angle in np.linspace(-180, 180, n + 1)[:-1]], 0)
    return images, poses.astype(np.float32), [H, W, 10.0]


def train(argv, basedir):
    parser = config_parser()
    args = parser.parse_args(argv + TINY + ["--basedir", basedir])
    device = run_nerf.device
    blender = args.dataset_type == 'blender'
    images, poses, hwf = random_scene(channels=4 if blender else 3)
    if blender:
        near, far = 2., 6.
        if args.white_bkgd:
            images = images[..., :3] * images[..., -1:] + (1. - images[..., -1:])
        else:
            images = images[..., :3]
    else:
        near, far = 0., 1.
    i_train, i_test = np.array([0, 1]), np.array([2])
    render_poses = poses[i_test]

    H, W, focal = hwf
    H, W = int(H), int(W)
    hwf = [H, W, focal]
    K = np.array([
        [focal, 0, 0.5 * W],
        [0, focal, 0.5 * H],
        [0, 0, 1]
    ])
    os.makedirs(os.path.join(basedir, args.expname), exist_ok=True)

    render_kwargs_train, render_kwargs_test, start, grad_vars, optimizer = create_nerf(args)
    global_step = start
    bds_dict = {'near': near, 'far': far}
    render_kwargs_train.update(bds_dict)
    render_kwargs_test.update(bds_dict)
    render_poses = torch.Tensor(render_poses).to(device)

    N_rand = args.N_rand
    use_batching = not args.no_batching
    if use_batching:
        rays = np.stack([get_rays_np(H, W, K, p) for p in poses[:, :3, :4]], 0)
        rays_rgb = np.concatenate([rays, images[:, None]], 1)
        rays_rgb = np.transpose(rays_rgb, [0, 2, 3, 1, 4])
        rays_rgb = np.stack([rays_rgb[i] for i in i_train], 0)
        rays_rgb = np.reshape(rays_rgb, [-1, 3, 3])
        rays_rgb = rays_rgb.astype(np.float32)
        np.random.shuffle(rays_rgb)
        i_batch = 0
        images = torch.Tensor(images).to(device)
        rays_rgb = torch.Tensor(rays_rgb).to(device)
    poses = torch.Tensor(poses).to(device)

    start = start + 1
    for i in range(start, start + 2):
        # train()'s iteration, as run_nerf.py writes it
        if use_batching:
            batch = rays_rgb[i_batch:i_batch + N_rand]
            batch = torch.transpose(batch, 0, 1)
            batch_rays, target_s = batch[:2], batch[2]
            i_batch += N_rand
            if i_batch >= rays_rgb.shape[0]:
                rand_idx = torch.randperm(rays_rgb.shape[0])
                rays_rgb = rays_rgb[rand_idx]
                i_batch = 0
        else:
            img_i = np.random.choice(i_train)
            target = images[img_i]
            target = torch.Tensor(target).to(device)
            pose = poses[img_i, :3, :4]
            rays_o, rays_d = get_rays(H, W, K, torch.Tensor(pose))
            if i < args.precrop_iters:
                dH = int(H // 2 * args.precrop_frac)
                dW = int(W // 2 * args.precrop_frac)
                coords = torch.stack(
                    torch.meshgrid(
                        torch.linspace(H // 2 - dH, H // 2 + dH - 1, 2 * dH),
                        torch.linspace(W // 2 - dW, W // 2 + dW - 1, 2 * dW)
                    ), -1)
            else:
                coords = torch.stack(torch.meshgrid(torch.linspace(0, H - 1, H), torch.linspace(0, W - 1, W)), -1)
            coords = torch.reshape(coords, [-1, 2])
            select_inds = np.random.choice(coords.shape[0], size=[N_rand], replace=False)
            select_coords = coords[select_inds].long()
            rays_o = rays_o[select_coords[:, 0], select_coords[:, 1]]
            rays_d = rays_d[select_coords[:, 0], select_coords[:, 1]]
            batch_rays = torch.stack([rays_o, rays_d], 0)
            target_s = target[select_coords[:, 0], select_coords[:, 1]]

        rgb, disp, acc, extras = run_nerf.render(H, W, K, chunk=args.chunk, rays=batch_rays,
                                                 verbose=i < 10, retraw=True,
                                                 **render_kwargs_train)
        optimizer.zero_grad()
        img_loss = img2mse(rgb, target_s)
        trans = extras['raw'][..., -1]
        loss = img_loss
        psnr = mse2psnr(img_loss)
        if 'rgb0' in extras:
            img_loss0 = img2mse(extras['rgb0'], target_s)
            loss = loss + img_loss0
            psnr0 = mse2psnr(img_loss0)
        loss.backward()
        optimizer.step()

        decay_rate = 0.1
        decay_steps = args.lrate_decay * 1000
        new_lrate = args.lrate * (decay_rate ** (global_step / decay_steps))
        for param_group in optimizer.param_groups:
            param_group['lr'] = new_lrate
        global_step += 1

    # the i_testset / i_video renders
    with torch.no_grad():
        rgbs, disps = render_path(render_poses, hwf, K, args.chunk, render_kwargs_test)
    return psnr, rgbs


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    run_nerf.render = torch.compile(run_nerf.render)
    with tempfile.TemporaryDirectory() as basedir:
        return [train(LEGO, basedir), train(FERN, basedir)]


if __name__ == "__main__":
    main()
