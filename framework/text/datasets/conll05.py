"""The CoNLL-2005 semantic role labelling test set (``conll05st-tests.tar.gz``)
with its word, verb and label dictionaries and embedding file.

Each sample is nine int arrays of the sentence's length: word ids, the ids of
the words two before, one before, at, one after and two after the predicate
(repeated), the predicate id, the predicate-context mark and the BIO label ids.
The label dictionary numbers B-/I- pairs in the order the tags first appear in
the target dictionary, then 'O' (Paddle numbers a Python set, whose order
changes from run to run).
"""
import gzip

import numpy as np

from ...io import Dataset
from ._files import locate, member, open_tar

__all__ = ['Conll05st']

DATA_URL = 'http://paddlemodels.bj.bcebos.com/conll05st/conll05st-tests.tar.gz'
WORDDICT_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2FwordDict.txt'
VERBDICT_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2FverbDict.txt'
TRGDICT_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2FtargetDict.txt'
EMB_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2Femb'
UNK_IDX = 0
_WORDS = 'conll05st-release/test.wsj/words/test.wsj.words.gz'
_PROPS = 'conll05st-release/test.wsj/props/test.wsj.props.gz'


def _bio_labels(column):
    """A props column ('(A0*', '*', '*)', '(V*)' ...) as B-/I-/O tags."""
    tags, tag, inside = [], 'O', False
    for mark in column:
        if mark == '*':
            tags.append('I-' + tag if inside else 'O')
        elif mark == '*)':
            tags.append('I-' + tag)
            inside = False
        elif '(' in mark:
            tag = mark[1:mark.find('*')]
            tags.append('B-' + tag)
            inside = ')' not in mark
        else:
            raise ValueError("Conll05st: unexpected label %r" % (mark,))
    return tags


class Conll05st(Dataset):
    """Args: the data archive and the four auxiliary files; each that is None is
    looked up in the data folders (``framework.utils.dataset_files``); nothing is
    downloaded."""

    def __init__(self, data_file=None, word_dict_file=None, verb_dict_file=None,
                 target_dict_file=None, emb_file=None, download=True):
        def find(given, url, arg):
            return locate(given, url, 'conll05st', 'Conll05st', arg, download)
        self.data_file = find(data_file, DATA_URL, 'data_file')
        self.word_dict_file = find(word_dict_file, WORDDICT_URL, 'word_dict_file')
        self.verb_dict_file = find(verb_dict_file, VERBDICT_URL, 'verb_dict_file')
        self.target_dict_file = find(target_dict_file, TRGDICT_URL, 'target_dict_file')
        self.emb_file = find(emb_file, EMB_URL, 'emb_file')
        self.word_dict = self._load_dict(self.word_dict_file)
        self.predicate_dict = self._load_dict(self.verb_dict_file)
        self.label_dict = self._load_label_dict(self.target_dict_file)
        self._load_anno()

    @staticmethod
    def _load_dict(filename):
        with open(filename, 'r') as f:
            return {line.strip(): i for i, line in enumerate(f)}

    @staticmethod
    def _load_label_dict(filename):
        tags = []
        with open(filename, 'r') as f:
            for line in f:
                line = line.strip()
                if line[:2] in ('B-', 'I-') and line[2:] not in tags:
                    tags.append(line[2:])
        d = {}
        for tag in tags:
            d['B-' + tag] = len(d)
            d['I-' + tag] = len(d)
        d['O'] = len(d)
        return d

    def _load_anno(self):
        self.sentences, self.predicates, self.labels = [], [], []
        with open_tar('Conll05st', self.data_file) as archive:
            words = gzip.decompress(member('Conll05st', archive, _WORDS, self.data_file).read())
            props = gzip.decompress(member('Conll05st', archive, _PROPS, self.data_file).read())
        sentence, rows = [], []
        for word, prop in zip(words.decode().splitlines(), props.decode().splitlines()):
            marks = prop.split()
            if marks:
                sentence.append(word.strip())
                rows.append(marks)
                continue
            if rows:
                columns = list(zip(*rows))
                verbs = [v for v in columns[0] if v != '-']
                for i, column in enumerate(columns[1:]):
                    self.sentences.append(sentence)
                    self.predicates.append(verbs[i])
                    self.labels.append(_bio_labels(column))
            sentence, rows = [], []

    def __getitem__(self, idx):
        sentence, predicate, labels = self.sentences[idx], self.predicates[idx], self.labels[idx]
        n = len(sentence)
        verb = labels.index('B-V')
        mark = [0] * n
        context = []
        for offset in (-2, -1, 0, 1, 2):
            j = verb + offset
            if 0 <= j < n:
                mark[j] = 1
                context.append(sentence[j])
            else:
                context.append('bos' if offset < 0 else 'eos')
        word_ids = [self.word_dict.get(w, UNK_IDX) for w in sentence]
        ctx = [[self.word_dict.get(w, UNK_IDX)] * n for w in context]
        pred = [self.predicate_dict.get(predicate)] * n
        label_ids = [self.label_dict.get(w) for w in labels]
        return tuple(np.array(a) for a in [word_ids, *ctx, pred, mark, label_ids])

    def __len__(self):
        return len(self.sentences)

    def get_dict(self):
        """(word dict, predicate dict, label dict)."""
        return self.word_dict, self.predicate_dict, self.label_dict

    def get_embedding(self):
        """The path of the embedding file."""
        return self.emb_file
