"""zhouhaoyi/Informer2020: main_informer.py's loop (`python -u main_informer.py --model informer --data ETTh1
--attn prob`, and `--model informerstack`) with the model compiled from outside the experiment, as a user
does it without editing exp/: `exp = Exp_Informer(args)`, `exp.model = torch.compile(exp.model)`, then
`exp.train(setting)` (Exp_Informer's own loop: train epoch, vali() on the val and test loaders,
EarlyStopping's checkpoint, reload of the best checkpoint) and `exp.test(setting)`.  main_informer.py's
argument defaults (ProbSparse attention, timeF embedding, distilling, mix) with a tiny model (d_model 16,
2 heads, d_ff 32, seq_len 24 / label_len 12 / pred_len 12), one epoch, on random series of ETTh1's shape
(7 variables, 4 hourly time features).
pandas is not installed (data/data_loader.py and utils/timefeatures.py import it at the top): a stand-in,
and the ETT csv files are not downloaded, so Exp_Informer._get_data is replaced by a data set of random
windows shaped as Dataset_ETT_hour's (float64 numpy arrays, as the real one returns them).
"""
import argparse
import os
import sys
import tempfile
import types

import numpy as np
import torch

# --- stand-ins: pandas (imported at the top of data/data_loader.py and utils/timefeatures.py, used only to
# read and time-stamp the csv files; a module spec, since Dynamo's trace_rules looks pandas up), NumPy 1's
# `np.Inf` (utils/tools.py's EarlyStopping; removed in NumPy 2), and the ETT data set behind
# Exp_Informer._get_data
import importlib.machinery  # noqa: E402

from torch.utils.data import DataLoader, Dataset  # noqa: E402

np.Inf = np.inf

_pd = types.ModuleType("pandas")
_pd.__spec__ = importlib.machinery.ModuleSpec("pandas", None)
_pd.DatetimeIndex = object
_pd_tseries = types.ModuleType("pandas.tseries")
_pd_offsets = types.ModuleType("pandas.tseries.offsets")
_pd_frequencies = types.ModuleType("pandas.tseries.frequencies")
_pd_frequencies.to_offset = None
_pd.tseries = _pd_tseries
_pd_tseries.offsets = _pd_offsets
_pd_tseries.frequencies = _pd_frequencies
sys.modules.update({"pandas": _pd, "pandas.tseries": _pd_tseries, "pandas.tseries.offsets": _pd_offsets,
                    "pandas.tseries.frequencies": _pd_frequencies})


class RandomETT(Dataset):
    """Dataset_ETT_hour's items: (seq_x, seq_y, seq_x_mark, seq_y_mark)."""

    def __init__(self, n, size, variables=7, time_features=4):
        self.seq_len, self.label_len, self.pred_len = size
        rng = np.random.default_rng(n)
        self.data = rng.standard_normal((n + self.seq_len + self.pred_len, variables))
        self.stamp = rng.random((n + self.seq_len + self.pred_len, time_features)) - 0.5
        self.n = n

    def __getitem__(self, index):
        s_begin, s_end = index, index + self.seq_len
        r_begin = s_end - self.label_len
        r_end = r_begin + self.label_len + self.pred_len
        return self.data[s_begin:s_end], self.data[r_begin:r_end], self.stamp[s_begin:s_end], self.stamp[r_begin:r_end]

    def __len__(self):
        return self.n

    def inverse_transform(self, data):
        return data


def random_get_data(exp):
    def _get_data(flag):
        args = exp.args
        data_set = RandomETT(12 if flag == 'train' else 4, [args.seq_len, args.label_len, args.pred_len])
        shuffle_flag = flag == 'train'
        data_loader = DataLoader(data_set, batch_size=args.batch_size, shuffle=shuffle_flag,
                                 num_workers=args.num_workers, drop_last=True)
        return data_set, data_loader
    return _get_data
# --- end of stand-ins

from exp.exp_informer import Exp_Informer  # noqa: E402


def informer_args(model, checkpoints):
    # main_informer.py's defaults for `--data ETTh1 --features M`, after its data_parser / freq handling
    return argparse.Namespace(
        model=model, data='ETTh1', root_path='./data/ETT/', data_path='ETTh1.csv', features='M', target='OT',
        freq='h', detail_freq='h', checkpoints=checkpoints,
        seq_len=24, label_len=12, pred_len=12,
        enc_in=7, dec_in=7, c_out=7, d_model=16, n_heads=2, e_layers=2, d_layers=1, s_layers=[3, 2, 1], d_ff=32,
        factor=5, padding=0, distil=True, dropout=0.05, attn='prob', embed='timeF', activation='gelu',
        output_attention=False, do_predict=False, mix=True, cols=None, num_workers=0, itr=1, train_epochs=1,
        batch_size=4, patience=3, learning_rate=0.0001, des='test', loss='mse', lradj='type1', use_amp=False,
        inverse=False, use_gpu=False, gpu=0, use_multi_gpu=False, devices='0,1,2,3')


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            for model in ('informer', 'informerstack'):
                args = informer_args(model, os.path.join(tmp, 'checkpoints'))
                setting = '{}_{}_ft{}_sl{}_ll{}_pl{}_dm{}_nh{}_el{}_dl{}_df{}_at{}_fc{}_eb{}_dt{}_mx{}_{}_{}'.format(
                    args.model, args.data, args.features, args.seq_len, args.label_len, args.pred_len,
                    args.d_model, args.n_heads, args.e_layers, args.d_layers, args.d_ff, args.attn, args.factor,
                    args.embed, args.distil, args.mix, args.des, 0)
                exp = Exp_Informer(args)
                exp._get_data = random_get_data(exp)
                exp.model = torch.compile(exp.model)
                exp.train(setting)
                exp.test(setting)
        finally:
            os.chdir(cwd)


if __name__ == "__main__":
    main()
