"""The IMDB movie review sentiment data (``aclImdb_v1.tar.gz``).

As in Paddle: reviews are lower-cased, punctuation removed and split on
whitespace (words are ``bytes``); the vocabulary holds the words seen more
than ``cutoff`` times in train and test, most frequent first, then
``'<unk>'``. Samples are ``(word ids, label)`` with label 0 for positive and
1 for negative reviews.
"""
import collections
import re
import string

import numpy as np

from ...io import Dataset
from ._files import check_mode, locate, open_tar

__all__ = ['Imdb']

URL = 'https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz'
_PUNCTUATION = string.punctuation.encode('latin-1')


class Imdb(Dataset):
    """Args: ``data_file`` (the archive; None looks it up in the data folders),
    ``mode`` ('train' or 'test'), ``cutoff`` (minimum count, exclusive, for a
    word to be in the vocabulary), ``download`` (nothing is downloaded)."""

    def __init__(self, data_file=None, mode='train', cutoff=150, download=True):
        self.mode = check_mode('Imdb', mode, ('train', 'test'))
        self.data_file = locate(data_file, URL, 'imdb', 'Imdb', download=download)
        self.word_idx = self._build_work_dict(cutoff)
        self._load_anno()

    def _tokenize(self, pattern):
        docs = []
        with open_tar('Imdb', self.data_file) as archive:
            for info in archive:
                if info.isfile() and pattern.match(info.name):
                    text = archive.extractfile(info).read().rstrip(b'\n\r')
                    docs.append(text.translate(None, _PUNCTUATION).lower().split())
        return docs

    def _build_work_dict(self, cutoff):
        freq = collections.defaultdict(int)
        for doc in self._tokenize(re.compile(r'aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$')):
            for word in doc:
                freq[word] += 1
        kept = sorted((x for x in freq.items() if x[1] > cutoff), key=lambda x: (-x[1], x[0]))
        word_idx = {w: i for i, (w, _) in enumerate(kept)}
        word_idx['<unk>'] = len(kept)
        return word_idx

    def _load_anno(self):
        unk = self.word_idx['<unk>']
        self.docs, self.labels = [], []
        for label, kind in ((0, 'pos'), (1, 'neg')):
            pattern = re.compile(r'aclImdb/%s/%s/.*\.txt$' % (self.mode, kind))
            for doc in self._tokenize(pattern):
                self.docs.append([self.word_idx.get(w, unk) for w in doc])
                self.labels.append(label)

    def __getitem__(self, idx):
        return np.array(self.docs[idx]), np.array([self.labels[idx]])

    def __len__(self):
        return len(self.docs)
