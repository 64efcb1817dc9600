"""WMT'14 English-French translation in Paddle's packaging (``wmt14.tgz``:
``src.dict``, ``trg.dict`` and tab-separated ``train/train``, ``test/test``,
``gen/gen`` files). Samples are ``(source ids, target ids, next target ids)``
with ``<s>``/``<e>`` marks; pairs longer than 80 ids are skipped."""
import numpy as np

from ...io import Dataset
from ._files import check_mode, locate, open_tar

__all__ = ['WMT14']

URL_TRAIN = 'http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz'
START, END, UNK = '<s>', '<e>', '<unk>'
UNK_IDX = 2


class WMT14(Dataset):
    """Args: ``data_file`` (the archive; None looks it up in the data folders),
    ``mode`` ('train', 'test' or 'gen'), ``dict_size`` (how many dictionary
    lines to use; must be positive), ``download`` (nothing is downloaded)."""

    def __init__(self, data_file=None, mode='train', dict_size=-1, download=True):
        self.mode = check_mode('WMT14', mode, ('train', 'test', 'gen'))
        if not isinstance(dict_size, int) or dict_size <= 0:
            raise ValueError("WMT14: dict_size should be a positive number, got %r" % (dict_size,))
        self.data_file = locate(data_file, URL_TRAIN, 'wmt14', 'WMT14', download=download)
        self.dict_size = dict_size
        self._load_data()

    def _dict(self, archive, suffix):
        names = [m.name for m in archive if m.name.endswith(suffix)]
        if len(names) != 1:
            raise ValueError("WMT14: %r should hold one *%s file, found %d"
                             % (self.data_file, suffix, len(names)))
        out = {}
        for i, line in enumerate(archive.extractfile(names[0])):
            if i >= self.dict_size:
                break
            out[line.strip().decode()] = i
        return out

    def _load_data(self):
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        with open_tar('WMT14', self.data_file) as archive:
            self.src_dict = self._dict(archive, 'src.dict')
            self.trg_dict = self._dict(archive, 'trg.dict')
            suffix = '%s/%s' % (self.mode, self.mode)
            for name in [m.name for m in archive if m.name.endswith(suffix)]:
                for line in archive.extractfile(name):
                    parts = line.decode().strip().split('\t')
                    if len(parts) != 2:
                        continue
                    src = [self.src_dict.get(w, UNK_IDX) for w in [START, *parts[0].split(), END]]
                    trg = [self.trg_dict.get(w, UNK_IDX) for w in parts[1].split()]
                    if len(src) > 80 or len(trg) > 80:
                        continue
                    self.src_ids.append(src)
                    self.trg_ids.append([self.trg_dict[START], *trg])
                    self.trg_ids_next.append([*trg, self.trg_dict[END]])

    def __getitem__(self, idx):
        return (np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]),
                np.array(self.trg_ids_next[idx]))

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, reverse=False):
        """(source dict, target dict); ``reverse`` maps ids to words."""
        if reverse:
            return ({v: k for k, v in self.src_dict.items()},
                    {v: k for k, v in self.trg_dict.items()})
        return self.src_dict, self.trg_dict
