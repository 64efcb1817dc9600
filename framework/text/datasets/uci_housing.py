"""The UCI Boston housing data (``housing.data``: 506 rows of 13 features and
the median price), features normalised as Paddle does ((x - mean) / (max -
min)); the first 80% of the rows are 'train', the rest 'test'."""
import numpy as np

from ... import dtype as _dtype
from ...io import Dataset
from ._files import check_mode, locate

__all__ = ['UCIHousing']

URL = 'http://paddlemodels.bj.bcebos.com/uci_housing/housing.data'
feature_names = ['CRIM', 'ZN', 'INDUS', 'CHAS', 'NOX', 'RM', 'AGE', 'DIS', 'RAD', 'TAX',
                 'PTRATIO', 'B', 'LSTAT']


class UCIHousing(Dataset):
    """Samples ``(features [13], price [1])`` in the default float dtype.

    ``data_file`` is the whitespace-separated ``housing.data``; when None it is
    looked up in the data folders (``framework.utils.dataset_files``); nothing is
    downloaded.
    """

    def __init__(self, data_file=None, mode='train', download=True):
        self.mode = check_mode('UCIHousing', mode, ('train', 'test'))
        self.data_file = locate(data_file, URL, 'uci_housing', 'UCIHousing', download=download)
        self.dtype = _dtype.get_default_dtype()
        self._load_data()

    def _load_data(self, feature_num=14, ratio=0.8):
        data = np.fromfile(self.data_file, sep=' ')
        if data.size == 0 or data.size % feature_num:
            raise ValueError("UCIHousing: %r holds %d numbers, not rows of %d"
                             % (self.data_file, data.size, feature_num))
        data = data.reshape(-1, feature_num)
        maximums, minimums = data.max(axis=0), data.min(axis=0)
        avgs = data.sum(axis=0) / data.shape[0]
        span = np.where(maximums == minimums, 1, maximums - minimums)
        data[:, :-1] = (data[:, :-1] - avgs[:-1]) / span[:-1]
        offset = int(data.shape[0] * ratio)
        self.data = data[:offset] if self.mode == 'train' else data[offset:]

    def __getitem__(self, idx):
        row = self.data[idx]
        return row[:-1].astype(self.dtype), row[-1:].astype(self.dtype)

    def __len__(self):
        return len(self.data)
