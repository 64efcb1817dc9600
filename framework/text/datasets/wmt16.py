"""WMT'16 English-German (Multi30k) translation (``wmt16.tar.gz``: tab-separated
``wmt16/train``, ``wmt16/test``, ``wmt16/val`` with English first).

Dictionaries are built from the training file (``<s>``, ``<e>``, ``<unk>``, then
words by decreasing count, ties in first-seen order), each from its own
language's column, and kept in memory: nothing is written next to the data
(Paddle caches them as files and builds the target dictionary from the source
column). Samples are ``(source ids, target ids, next target ids)``.
"""
import collections

import numpy as np

from ...io import Dataset
from ._files import check_mode, locate, member, open_tar

__all__ = ['WMT16']

DATA_URL = 'http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz'
TOTAL_EN_WORDS = 11250
TOTAL_DE_WORDS = 19220
START_MARK, END_MARK, UNK_MARK = '<s>', '<e>', '<unk>'


class WMT16(Dataset):
    """Args: ``data_file`` (the archive; None looks it up in the data folders),
    ``mode`` ('train', 'test' or 'val'), ``src_dict_size`` / ``trg_dict_size``
    (positive; capped at the vocabulary sizes), ``lang`` ('en' or 'de': the
    source language), ``download`` (nothing is downloaded)."""

    def __init__(self, data_file=None, mode='train', src_dict_size=-1, trg_dict_size=-1,
                 lang='en', download=True):
        self.mode = check_mode('WMT16', mode, ('train', 'test', 'val'))
        if lang not in ('en', 'de'):
            raise ValueError("WMT16: lang should be 'en' or 'de', got %r" % (lang,))
        for arg, size in (('src_dict_size', src_dict_size), ('trg_dict_size', trg_dict_size)):
            if not isinstance(size, int) or size <= 0:
                raise ValueError("WMT16: %s should be a positive number, got %r" % (arg, size))
        self.data_file = locate(data_file, DATA_URL, 'wmt16', 'WMT16', download=download)
        self.lang = lang
        trg_lang = 'de' if lang == 'en' else 'en'
        total = {'en': TOTAL_EN_WORDS, 'de': TOTAL_DE_WORDS}
        self.src_dict_size = min(src_dict_size, total[lang])
        self.trg_dict_size = min(trg_dict_size, total[trg_lang])
        with open_tar('WMT16', self.data_file) as archive:
            train = self._pairs(archive, 'train')
            self._dicts = {lang: self._build_dict(train, lang, self.src_dict_size),
                           trg_lang: self._build_dict(train, trg_lang, self.trg_dict_size)}
            self.src_dict, self.trg_dict = self._dicts[lang], self._dicts[trg_lang]
            self._load_data(train if self.mode == 'train' else self._pairs(archive, self.mode))

    def _pairs(self, archive, split):
        pairs = []
        for line in member('WMT16', archive, 'wmt16/' + split, self.data_file):
            parts = line.decode().strip().split('\t')
            if len(parts) == 2:
                pairs.append(parts)
        return pairs

    @staticmethod
    def _build_dict(pairs, lang, size):
        counts = collections.defaultdict(int)
        column = 0 if lang == 'en' else 1
        for pair in pairs:
            for w in pair[column].split():
                counts[w] += 1
        words = [START_MARK, END_MARK, UNK_MARK]
        words += [w for w, _ in sorted(counts.items(), key=lambda x: x[1], reverse=True)]
        return {w: i for i, w in enumerate(words[:size])}

    def _load_data(self, pairs):
        start, end = self.src_dict[START_MARK], self.src_dict[END_MARK]
        unk = self.src_dict[UNK_MARK]
        src_col = 0 if self.lang == 'en' else 1
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        for pair in pairs:
            src = [self.src_dict.get(w, unk) for w in pair[src_col].split()]
            trg = [self.trg_dict.get(w, unk) for w in pair[1 - src_col].split()]
            self.src_ids.append([start, *src, end])
            self.trg_ids.append([start, *trg])
            self.trg_ids_next.append([*trg, end])

    def __getitem__(self, idx):
        return (np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]),
                np.array(self.trg_ids_next[idx]))

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, lang, reverse=False):
        """The dictionary of ``lang`` ('en' or 'de'); ``reverse`` maps ids to words."""
        if lang not in self._dicts:
            raise ValueError("WMT16: lang should be 'en' or 'de', got %r" % (lang,))
        d = self._dicts[lang]
        return {v: k for k, v in d.items()} if reverse else dict(d)
