"""paddle.text: viterbi_decode / ViterbiDecoder (values recorded from Paddle
3.3.1, eager vs @to_static vs static), and the text data sets read from tiny
archives built here in their standard formats (nothing is downloaded)."""
import gzip
import io
import tarfile
import zipfile

import numpy as np
import pytest

import framework as paddle
from framework import text

# ---- viterbi_decode -----------------------------------------------------------------

# inputs drawn with numpy's default_rng(0) and Paddle 3.3.1's outputs for them
_RNG = np.random.default_rng(0)
PADDLE_CASES = []
for _b, _t, _n, _incl, _lens in [(3, 5, 4, True, [5, 5, 1]), (3, 5, 4, False, [5, 4, 1]),
                                 (2, 1, 3, True, [1, 1]), (4, 6, 5, False, [6, 1, 6, 1]),
                                 (2, 3, 2, True, [3, 1])]:
    _pot = _RNG.standard_normal((_b, _t, _n))
    _trans = _RNG.standard_normal((_n, _n))
    _RNG.integers(1, _t + 1, _b)    # (the draw that picked the lengths)
    PADDLE_CASES.append((_pot, _trans, np.array(_lens), _incl))
PADDLE_RESULTS = [
    ([7.88405806, 7.24328017, 3.21991576], [[0, 2, 3, 2, 3], [0, 2, 3, 2, 3], [2, 0, 0, 0, 0]]),
    ([7.89067472, 2.87839037, 1.16486398], [[1, 0, 1, 1, 1], [3, 0, 1, 1, 0], [1, 0, 0, 0, 0]]),
    ([1.89822321, 1.51715938], [[1], [2]]),
    ([10.4822616, 0.806139359, 11.8748495, -0.0058760267],
     [[4, 2, 2, 2, 2, 0], [4, 0, 0, 0, 0, 0], [3, 4, 4, 2, 4, 4], [4, 0, 0, 0, 0, 0]]),
    ([0.55230357, 1.89561827], [[1, 1, 1], [1, 0, 0]]),
]


@pytest.mark.parametrize('k', range(len(PADDLE_CASES)))
def test_viterbi_decode_equals_paddle(k):
    pot, trans, lens, incl = PADDLE_CASES[k]
    scores, path = text.viterbi_decode(paddle.to_tensor(pot), paddle.to_tensor(trans),
                                       paddle.to_tensor(lens), incl)
    want_scores, want_path = PADDLE_RESULTS[k]
    np.testing.assert_allclose(scores.numpy(), want_scores, rtol=1e-7)
    assert path.numpy().tolist() == want_path
    assert path.dtype.name == 'int64' and scores.dtype.name == 'float64'


def test_path_is_as_long_as_the_longest_sequence_and_zero_padded():
    rng = np.random.default_rng(3)
    pot = paddle.to_tensor(rng.standard_normal((2, 6, 3)).astype('float32'))
    trans = paddle.to_tensor(rng.standard_normal((3, 3)).astype('float32'))
    scores, path = text.viterbi_decode(pot, trans, paddle.to_tensor([2, 4]))
    assert path.shape == [2, 4] and scores.dtype.name == 'float32'
    assert path.numpy()[0, 2:].tolist() == [0, 0]


def test_viterbi_decoder_layer_and_to_static_agree():
    pot, trans, lens, incl = PADDLE_CASES[0]
    decoder = text.ViterbiDecoder(paddle.to_tensor(trans), include_bos_eos_tag=incl)
    eager = decoder(paddle.to_tensor(pot), paddle.to_tensor(lens))

    @paddle.jit.to_static
    def decode(p, n):
        return decoder(p, n)
    static = decode(paddle.to_tensor(pot), paddle.to_tensor(lens))
    np.testing.assert_allclose(static[0].numpy(), eager[0].numpy())
    assert static[1].numpy().tolist() == eager[1].numpy().tolist() == PADDLE_RESULTS[0][1]


def test_viterbi_decode_in_a_static_program():
    pot, trans, lens, incl = PADDLE_CASES[1]
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            p = paddle.static.data('p', [None, 5, 4], 'float64')
            t = paddle.static.data('t', [4, 4], 'float64')
            n = paddle.static.data('n', [None], 'int64')
            scores, path = text.viterbi_decode(p, t, n, incl)
            assert list(path.shape) == [-1, -1]
        out = paddle.static.Executor().run(main, feed={'p': pot, 't': trans, 'n': lens},
                                           fetch_list=[scores, path])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(out[0], PADDLE_RESULTS[1][0])
    assert out[1].tolist() == PADDLE_RESULTS[1][1]


def test_viterbi_decode_rejects_bad_shapes_and_lengths():
    with pytest.raises(ValueError, match='transition_params'):
        text.viterbi_decode(paddle.rand([2, 3, 4]), paddle.rand([3, 3]), paddle.to_tensor([3, 3]))
    with pytest.raises(ValueError, match='lengths'):
        text.viterbi_decode(paddle.rand([2, 3, 4]), paddle.rand([4, 4]), paddle.to_tensor([4, 1]))


# ---- data sets from tiny archives ---------------------------------------------------------

def _add(archive, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))


def _tar(path, files, mode='w:gz'):
    with tarfile.open(path, mode) as archive:
        for name, data in files.items():
            _add(archive, name, data)
    return str(path)


def test_uci_housing_normalises_and_splits(tmp_path):
    rows = np.arange(10 * 14, dtype=np.float64).reshape(10, 14) % 17
    path = tmp_path / 'housing.data'
    path.write_text('\n'.join(' '.join('%g' % v for v in r) for r in rows))
    train = text.UCIHousing(str(path), mode='train')
    test = text.UCIHousing(str(path), mode='test')
    assert (len(train), len(test)) == (8, 2)
    features, price = train[1]
    assert features.shape == (13,) and price.shape == (1,) and features.dtype == np.float32
    span = rows.max(0) - rows.min(0)
    np.testing.assert_allclose(features, (rows[1, :13] - rows.mean(0)[:13]) / span[:13],
                               rtol=1e-6)
    assert price[0] == rows[1, 13]


def test_missing_archive_names_url_and_place(tmp_path, monkeypatch):
    monkeypatch.setenv('FRAMEWORK_DATA_HOME', str(tmp_path))
    with pytest.raises(FileNotFoundError) as info:
        text.UCIHousing(download=True)
    msg = str(info.value)
    assert 'housing.data' in msg and 'http' in msg and str(tmp_path / 'uci_housing') in msg
    assert 'never downloads' in msg
    (tmp_path / 'uci_housing').mkdir()
    (tmp_path / 'uci_housing' / 'housing.data').write_text(' '.join(['1'] * 28))
    assert len(text.UCIHousing(mode='train')) == 1      # found in the data folder
    with pytest.raises(FileNotFoundError, match='does not exist'):
        text.Imdb(data_file=str(tmp_path / 'nope.tar.gz'))


def test_imdb_vocabulary_and_labels(tmp_path):
    files = {'aclImdb/train/pos/0_9.txt': b'A great, great movie!\n',
             'aclImdb/train/neg/1_2.txt': b'A bad movie.',
             'aclImdb/test/pos/2_8.txt': b'great fun',
             'aclImdb/test/neg/3_1.txt': b'bad bad bad'}
    path = _tar(tmp_path / 'aclImdb_v1.tar.gz', files)
    ds = text.Imdb(path, mode='train', cutoff=1)
    # counts over train and test: bad 4, great 3, a 2, movie 2; ties by word
    assert ds.word_idx == {b'bad': 0, b'great': 1, b'a': 2, b'movie': 3, '<unk>': 4}
    assert len(ds) == 2
    doc, label = ds[0]
    assert doc.tolist() == [2, 1, 1, 3] and label.tolist() == [0]
    assert ds[1][0].tolist() == [2, 0, 3] and ds[1][1].tolist() == [1]
    assert text.Imdb(path, mode='test', cutoff=1)[0][0].tolist() == [1, 4]


def _ptb_archive(tmp_path):
    files = {'./simple-examples/data/ptb.train.txt': b'the cat sat\nthe dog\n',
             './simple-examples/data/ptb.valid.txt': b'the cat\n',
             './simple-examples/data/ptb.test.txt': b'a cat sat\n'}
    return _tar(tmp_path / 'simple-examples.tgz', files)


def test_imikolov_ngrams_and_sequences(tmp_path):
    path = _ptb_archive(tmp_path)
    ngram = text.Imikolov(path, data_type='NGRAM', window_size=3, mode='train', min_word_freq=0)
    # counts: <s> 3, <e> 3, the 3, cat 2, dog 1, sat 1
    assert ngram.word_idx == {'<e>': 0, '<s>': 1, 'the': 2, 'cat': 3, 'dog': 4, 'sat': 5,
                              '<unk>': 6}
    assert [t.tolist() for t in ngram[0]] == [1, 2, 3]
    assert len(ngram) == 3 + 2
    seq = text.Imikolov(path, data_type='SEQ', mode='test', min_word_freq=1)
    src, trg = seq[0]
    unk = seq.word_idx['<unk>']
    assert src.tolist() == [seq.word_idx['<s>'], unk, seq.word_idx['cat'], unk]
    assert trg.tolist() == [unk, seq.word_idx['cat'], unk, seq.word_idx['<e>']]
    with pytest.raises(ValueError, match='window_size'):
        text.Imikolov(path, data_type='NGRAM')


def test_movielens_split_follows_the_seeded_draws(tmp_path):
    path = tmp_path / 'ml-1m.zip'
    ratings = ['%d::%d::%d::97830%04d' % (1 + i % 2, 1 + i % 3, 1 + i % 5, i) for i in range(40)]
    with zipfile.ZipFile(path, 'w') as z:
        z.writestr('ml-1m/movies.dat', '1::Toy Story (1995)::Animation|Comedy\n'
                                       '2::Heat (1995)::Action\n3::Jumanji (1995)::Comedy\n')
        z.writestr('ml-1m/users.dat', '1::F::1::10::48067\n2::M::56::16::70072\n')
        z.writestr('ml-1m/ratings.dat', '\n'.join(ratings) + '\n')
    train = text.Movielens(str(path), mode='train', test_ratio=0.25, rand_seed=3)
    test = text.Movielens(str(path), mode='test', test_ratio=0.25, rand_seed=3)
    draws = np.random.RandomState(3).random_sample(40)
    assert len(test) == int((draws < 0.25).sum()) and len(train) + len(test) == 40
    first_test = int(np.argmax(draws < 0.25))
    sample = test[0]
    assert len(sample) == 8
    uid, gender, age, job, movie, cats, title, rating = [s.tolist() for s in sample]
    assert uid == [1 + first_test % 2] and movie == [1 + first_test % 3]
    assert rating == [(1 + first_test % 5) * 2 - 5.0]
    assert train.categories_dict == {'Action': 0, 'Animation': 1, 'Comedy': 2}
    assert train.movie_title_dict == {'heat': 0, 'jumanji': 1, 'story': 2, 'toy': 3}
    assert train.user_info[2].value() == [[2], [0], [6], [16]]


def test_conll05st_samples(tmp_path):
    words = b'The\ncat\nsat\ndown\n\n'
    props = b'-    (A0*\n-    *)\nsat  (V*)\n-    (AM*)\n\n'
    inner = {'conll05st-release/test.wsj/words/test.wsj.words.gz': gzip.compress(words),
             'conll05st-release/test.wsj/props/test.wsj.props.gz': gzip.compress(props)}
    data = _tar(tmp_path / 'conll05st-tests.tar.gz', inner)
    (tmp_path / 'words.txt').write_text('<unk>\nThe\ncat\nsat\ndown\nbos\neos\n')
    (tmp_path / 'verbs.txt').write_text('sit\nsat\n')
    (tmp_path / 'targets.txt').write_text('B-A0\nI-A0\nB-V\nI-V\nB-AM\nI-AM\nO\n')
    (tmp_path / 'emb').write_bytes(b'')
    ds = text.Conll05st(data, str(tmp_path / 'words.txt'), str(tmp_path / 'verbs.txt'),
                        str(tmp_path / 'targets.txt'), str(tmp_path / 'emb'))
    assert len(ds) == 1
    assert ds.label_dict == {'B-A0': 0, 'I-A0': 1, 'B-V': 2, 'I-V': 3, 'B-AM': 4, 'I-AM': 5,
                             'O': 6}
    out = [a.tolist() for a in ds[0]]
    assert out[0] == [1, 2, 3, 4]                   # word ids
    assert [o[0] for o in out[1:6]] == [1, 2, 3, 4, 6]   # contexts -2..+2 (eos past the end)
    assert out[6] == [1] * 4 and out[7] == [1, 1, 1, 1]
    assert out[8] == [0, 1, 2, 4]
    assert ds.get_embedding() == str(tmp_path / 'emb')


def test_wmt14_dictionaries_and_sequences(tmp_path):
    src_dict = b'<s>\n<e>\n<unk>\nle\nchat\n'
    trg_dict = b'<s>\n<e>\n<unk>\nthe\ncat\n'
    files = {'wmt14/src.dict': src_dict, 'wmt14/trg.dict': trg_dict,
             'wmt14/train/train': b'le chat\tthe cat\nle chien\tthe dog\nbad line\n',
             'wmt14/test/test': b'chat\tcat\n'}
    path = _tar(tmp_path / 'wmt14.tgz', files)
    ds = text.WMT14(path, mode='train', dict_size=5)
    assert len(ds) == 2
    assert [a.tolist() for a in ds[0]] == [[0, 3, 4, 1], [0, 3, 4], [3, 4, 1]]
    assert [a.tolist() for a in ds[1]] == [[0, 3, 2, 1], [0, 3, 2], [3, 2, 1]]
    small = text.WMT14(path, mode='test', dict_size=4)
    assert small.get_dict(reverse=True)[0][3] == 'le' and 'chat' not in small.src_dict
    with pytest.raises(ValueError, match='dict_size'):
        text.WMT14(path)


def test_wmt16_builds_each_dictionary_from_its_own_language(tmp_path):
    files = {'wmt16/train': b'a cat\teine katze\na dog\tein hund\na cat\teine katze\n',
             'wmt16/val': b'a bird\tein vogel\n', 'wmt16/test': b'cat\tkatze\n'}
    path = _tar(tmp_path / 'wmt16.tar.gz', files)
    ds = text.WMT16(path, mode='train', src_dict_size=5, trg_dict_size=6, lang='en')
    assert ds.src_dict == {'<s>': 0, '<e>': 1, '<unk>': 2, 'a': 3, 'cat': 4}
    assert ds.get_dict('de') == {'<s>': 0, '<e>': 1, '<unk>': 2, 'eine': 3, 'katze': 4,
                                 'ein': 5}
    assert [a.tolist() for a in ds[1]] == [[0, 3, 2, 1], [0, 5, 2], [5, 2, 1]]
    de = text.WMT16(path, mode='val', src_dict_size=4, trg_dict_size=4, lang='de')
    assert de.src_dict["eine"] == 3 and "ein" not in de.src_dict
    assert [a.tolist() for a in de[0]] == [[0, 2, 2, 1], [0, 3, 2], [3, 2, 1]]
    assert de.get_dict('en', reverse=True)[3] == 'a'
