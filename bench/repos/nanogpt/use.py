"""karpathy/nanoGPT: the README's "I only have a macbook" run of train.py, shrunk to a few iterations.

    python train.py config/train_shakespeare_char.py --device=cpu --compile=... --block_size=64 ...

train.py compiles the model itself (`model = torch.compile(model)`, compile=True by default); the data
set is replaced by random tokens written as train.bin / val.bin / meta.pkl, as prepare.py would.
"""
import os
import pickle
import runpy
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "shakespeare_char")
        os.makedirs(data)
        rng = np.random.default_rng(0)
        for split in ("train", "val"):
            rng.integers(0, 65, size=4096, dtype=np.uint16).tofile(os.path.join(data, f"{split}.bin"))
        with open(os.path.join(data, "meta.pkl"), "wb") as fh:
            pickle.dump({"vocab_size": 65}, fh)
        argv, cwd = sys.argv, os.getcwd()
        sys.argv = ["train.py", "config/train_shakespeare_char.py", "--device=cpu", "--dtype=float32",
                    f"--dataset={data}", f"--out_dir={os.path.join(tmp, 'out')}", "--eval_iters=2",
                    "--log_interval=1", "--block_size=32", "--batch_size=4", "--n_layer=2", "--n_head=2",
                    "--n_embd=32", "--max_iters=3", "--lr_decay_iters=3", "--dropout=0.0"]
        os.chdir(HERE)  # train.py reads configurator.py and the config file from the working directory
        try:
            runpy.run_path(os.path.join(HERE, "train.py"), run_name="__main__")
        finally:
            sys.argv = argv
            os.chdir(cwd)


if __name__ == "__main__":
    main()
