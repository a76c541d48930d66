"""pytorch/examples dcgan/main.py: `python main.py --dataset fake` (the data set it offers that needs no
download), a tiny config (--imageSize 64 as the networks need, --nz 8 --ngf 4 --ndf 4 --batchSize 4,
--workers 0), the GAN step of its training loop on random images: D on real then on `fake.detach()`, BCE
loss, two Adam optimizers, then G through D.  main.py is a script: it parses its arguments, builds the data
set, both networks, the loss and the optimizers at module level, then runs the epochs there too; it is
imported here with `--niter 0` (everything but the loop), and the loop's body (main.py lines 224-263, verbatim,
without the sample images saved every 100 iterations) is `train_step` below.  Compiled two ways, as users do:

1. the networks (`netG = torch.compile(netG)`, `netD = torch.compile(netD)`), the step eager, two iterations;
2. the whole GAN step (`train_step = torch.compile(train_step)`), the networks as main.py builds them, two
   iterations.

torchvision is not installed (main.py imports its datasets, transforms and utils): a stand-in whose FakeData
gives random images in [0, 1] (torchvision's FakeData through ToTensor).

Both run eagerly and in collect.py's regime (backend="eager").  With the default backend (inductor, and
aot_eager too) the second one fails at `errG.backward()`: "Trying to backward through the graph a second time".
The graph between the breaks after `D_x` and after `errD_fake.backward()` computes `fake = netG(noise)` and
`netD(fake.detach())` as one AOTAutograd node, whose saved tensors `errD_fake.backward()` frees, and `errG`
reaches netG through `fake`, the same node (the pattern of pytorch/pytorch#91542, closed in 2023).
"""
import os
import sys
import tempfile
import types

import torch

# --- stand-ins: torchvision is not installed (main.py imports datasets, transforms and utils at the top)


class _FakeData(torch.utils.data.Dataset):
    def __init__(self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None,
                 target_transform=None, random_offset=0):
        self.size, self.image_size, self.num_classes = size, image_size, num_classes

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        gen = torch.Generator().manual_seed(index)
        return torch.rand(*self.image_size, generator=gen), int(torch.randint(self.num_classes, (1,), generator=gen))


class _ToTensor:
    def __call__(self, pic):
        return pic


_tv = types.ModuleType("torchvision")
_tv.datasets = types.ModuleType("torchvision.datasets")
_tv.transforms = types.ModuleType("torchvision.transforms")
_tv.utils = types.ModuleType("torchvision.utils")
_tv.datasets.FakeData = _FakeData
_tv.transforms.ToTensor = _ToTensor
_tv.utils.save_image = lambda *args, **kwargs: None
sys.modules["torchvision"] = _tv
sys.modules["torchvision.datasets"] = _tv.datasets
sys.modules["torchvision.transforms"] = _tv.transforms
sys.modules["torchvision.utils"] = _tv.utils
# --- end of stand-ins

_OUTF = tempfile.gettempdir()  # main.py makes --outf if missing; with --niter 0 it writes nothing there
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "dcgan"))
_argv, sys.argv = sys.argv, ["main.py", "--dataset", "fake", "--batchSize", "4", "--imageSize", "64", "--nz", "8",
                             "--ngf", "4", "--ndf", "4", "--workers", "0", "--niter", "0", "--manualSeed", "1",
                             "--outf", _OUTF]
try:
    import main as dcgan  # noqa: E402  (builds the data set, the networks and the optimizers at import)
finally:
    sys.argv = _argv
from main import criterion, device, fake_label, nz, opt, optimizerD, optimizerG, real_label  # noqa: E402

netD = dcgan.netD
netG = dcgan.netG
dataloader = dcgan.dataloader


def train_step(epoch, i, data):
    ############################
    # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
    ###########################
    # train with real
    netD.zero_grad()
    real_cpu = data[0].to(device)
    batch_size = real_cpu.size(0)
    label = torch.full((batch_size,), real_label,
                       dtype=real_cpu.dtype, device=device)

    output = netD(real_cpu)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = output.mean().item()

    # train with fake
    noise = torch.randn(batch_size, nz, 1, 1, device=device)
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach())
    errD_fake = criterion(output, label)
    errD_fake.backward()
    D_G_z1 = output.mean().item()
    errD = errD_real + errD_fake
    optimizerD.step()

    ############################
    # (2) Update G network: maximize log(D(G(z)))
    ###########################
    netG.zero_grad()
    label.fill_(real_label)  # fake labels are real for generator cost
    output = netD(fake)
    errG = criterion(output, label)
    errG.backward()
    D_G_z2 = output.mean().item()
    optimizerG.step()

    print('[%d/%d][%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f / %.4f'
          % (epoch, opt.niter, i, len(dataloader),
             errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))


def _two_iterations(step, epoch):
    for i, data in enumerate(dataloader, 0):
        step(epoch, i, data)
        if i == 1:
            break


def main():
    global netD, netG
    opt.niter = 2
    # 1. the networks compiled, the step eager
    netG = torch.compile(netG)
    netD = torch.compile(netD)
    _two_iterations(train_step, 0)
    # 2. the whole GAN step compiled, the networks as main.py builds them
    netG, netD = dcgan.netG, dcgan.netD
    step = torch.compile(train_step)
    _two_iterations(step, 1)
    return netG.main[0].weight.detach()


if __name__ == "__main__":
    main()
