"""karpathy/llm.c: train_gpt2.py as its docstring launches it with --compile=1 (the model is compiled in
its __main__ block), on CPU, the smallest from-scratch model (d12), a few tokens, two iterations, with
validation and sampling.  Data: a random token shard written in the repository's .bin format (magic
20240520).  tiktoken is not installed: a stand-in encoder.
"""
import os
import runpy
import sys
import tempfile
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# --- stand-ins: tiktoken is not installed (train_gpt2.py imports it in __main__)
_tk = types.ModuleType("tiktoken")


class _Encoding:
    eot_token = 50256
    max_token_value = 50256

    def decode(self, ids):
        return " ".join(str(i) for i in ids)


_tk.get_encoding = lambda name: _Encoding()
sys.modules["tiktoken"] = _tk
# --- end of stand-ins


def write_shard(path, n):
    header = np.zeros(256, dtype=np.int32)
    header[0], header[1], header[2] = 20240520, 1, n
    tokens = np.random.default_rng(0).integers(0, 50257, size=n, dtype=np.uint16)
    with open(path, "wb") as fh:
        fh.write(header.tobytes())
        fh.write(tokens.tobytes())


def main():
    with tempfile.TemporaryDirectory() as tmp:
        train, val = os.path.join(tmp, "train.bin"), os.path.join(tmp, "val.bin")
        write_shard(train, 512)
        write_shard(val, 512)
        argv = sys.argv
        sys.argv = ["train_gpt2.py", "--input_bin", train, "--input_val_bin", val, "--model", "d12",
                    "--batch_size", "1", "--sequence_length", "8", "--total_batch_size", "8",
                    "--num_iterations", "2", "--val_loss_every", "2", "--val_max_steps", "1",
                    "--sample_every", "2", "--write_tensors", "0", "--compile", "1", "--device", "cpu"]
        try:
            runpy.run_path(os.path.join(HERE, "train_gpt2.py"), run_name="__main__")
        finally:
            sys.argv = argv


if __name__ == "__main__":
    main()
