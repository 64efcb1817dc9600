"""The Penn Treebank language-model data of Mikolov's ``simple-examples.tgz``.

The vocabulary counts the words of ``ptb.train.txt`` and ``ptb.valid.txt``
(plus ``<s>`` / ``<e>`` once per line), keeps those seen more than
``min_word_freq`` times, most frequent first, then ``'<unk>'``. With
``data_type='NGRAM'`` samples are ``window_size``-grams of ``<s> line <e>``;
with 'SEQ' they are ``(<s> + line, line + <e>)`` id sequences (lines longer
than ``window_size`` skipped when it is positive).
"""
import collections

import numpy as np

from ...io import Dataset
from ._files import check_mode, locate, member, open_tar

__all__ = ['Imikolov']

URL = 'https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz'
_DATA = './simple-examples/data/ptb.%s.txt'


class Imikolov(Dataset):
    """Args: ``data_file`` (the archive; None looks it up in the data folders),
    ``data_type`` ('NGRAM' or 'SEQ'), ``window_size``, ``mode`` ('train' or
    'test'; 'test' reads ``ptb.test.txt``), ``min_word_freq``, ``download``
    (nothing is downloaded)."""

    def __init__(self, data_file=None, data_type='NGRAM', window_size=-1, mode='train',
                 min_word_freq=50, download=True):
        if not isinstance(data_type, str) or data_type.upper() not in ('NGRAM', 'SEQ'):
            raise ValueError("Imikolov: data_type should be 'NGRAM' or 'SEQ', got %r"
                             % (data_type,))
        self.data_type = data_type.upper()
        self.mode = check_mode('Imikolov', mode, ('train', 'test'))
        if self.data_type == 'NGRAM' and window_size < 1:
            raise ValueError("Imikolov: data_type 'NGRAM' needs a positive window_size, got %r"
                             % (window_size,))
        self.window_size = window_size
        self.min_word_freq = min_word_freq
        self.data_file = locate(data_file, URL, 'imikolov', 'Imikolov', download=download)
        self.word_idx = self._build_work_dict(min_word_freq)
        self._load_anno()

    @staticmethod
    def word_count(f, word_freq=None):
        word_freq = collections.defaultdict(int) if word_freq is None else word_freq
        for line in f:
            for w in line.strip().split():
                word_freq[w] += 1
            word_freq['<s>'] += 1
            word_freq['<e>'] += 1
        return word_freq

    def _lines(self, archive, split):
        return [line.decode('utf-8') for line in
                member('Imikolov', archive, _DATA % split, self.data_file)]

    def _build_work_dict(self, cutoff):
        with open_tar('Imikolov', self.data_file) as archive:
            freq = self.word_count(self._lines(archive, 'valid'),
                                   self.word_count(self._lines(archive, 'train')))
        freq.pop('<unk>', None)
        kept = sorted((x for x in freq.items() if x[1] > cutoff), key=lambda x: (-x[1], x[0]))
        word_idx = {w: i for i, (w, _) in enumerate(kept)}
        word_idx['<unk>'] = len(kept)
        return word_idx

    def _load_anno(self):
        self.data = []
        unk = self.word_idx['<unk>']
        with open_tar('Imikolov', self.data_file) as archive:
            lines = self._lines(archive, self.mode)
        for line in lines:
            words = line.strip().split()
            if self.data_type == 'NGRAM':
                ids = [self.word_idx.get(w, unk) for w in ['<s>', *words, '<e>']]
                for i in range(self.window_size, len(ids) + 1):
                    self.data.append(tuple(ids[i - self.window_size:i]))
            else:
                ids = [self.word_idx.get(w, unk) for w in words]
                src = [self.word_idx['<s>'], *ids]
                if self.window_size > 0 and len(src) > self.window_size:
                    continue
                self.data.append((src, [*ids, self.word_idx['<e>']]))

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self):
        return len(self.data)
