"""Vision data sets from tiny archives built here in the standard formats:
CIFAR python batches (read by a restricted unpickler that refuses code),
Flowers (JPEG tarball + MATLAB .mat files), VOC2012 (tar of JPEG + PNG),
DatasetFolder / ImageFolder, and the PNG / baseline-JPEG readers used
without Pillow (checked against what Pillow decodes). Nothing is downloaded:
a missing file names its URL and where to put it."""
import base64
import io
import os
import pickle
import struct
import tarfile
import zlib

import numpy as np
import pytest

import framework as paddle
from framework.vision import datasets
from framework.vision.image import decode_image, load_image
from framework.vision.datasets._matlab import load_mat

# Two baseline JPEGs written by Pillow 13 (16x12, 4:2:0 colour and grey)
JPEG_RGB420 = base64.b64decode(
    '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsK'
    'CwsNDhIQDQ4RDgsLEBYQERMUFRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQU'
    'FBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBT/wAARCAAMABADASIA'
    'AhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQA'
    'AAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3'
    'ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWm'
    'p6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEA'
    'AwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSEx'
    'BhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElK'
    'U1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3'
    'uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDwTQfg'
    'p93/AEf9K9H0H4Kfd/cfpX0ZoHhTTfl/c16RoPhTTvl/c1+jeInF+I9/c+X8M+PMX+736H//2Q=='
)
JPEG_GREY = base64.b64decode(
    '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsK'
    'CwsNDhIQDQ4RDgsLEBYQERMUFRUVDA8XGBYUGBIUFRT/wAALCAAMABABAREA/8QAHwAAAQUBAQEB'
    'AQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1Fh'
    'ByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZ'
    'WmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXG'
    'x8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/9oACAEBAAA/APBNB+Cn3f8AR/0r0fQf'
    'gp939x+lfRmgeFNN+X9zXpGg+FNO+X9zX//Z'
)

# what Pillow 13 decodes from JPEG_RGB420: shape [12, 16, 3], zlib-compressed
JPEG_RGB420_PIXELS = np.frombuffer(zlib.decompress(base64.b64decode(
    'eNoBQAK//QAE8AgE7hoD5yoC3jgD0UYExlQEvWIEsnUErIMDoJIEmJ8EjK0Ff70Fd84Db9gDbQUU'
    '9w8U8iAS7TAS4j4S10sTzFkVwmgTt3oSr4gSppYUnKQUkLIUhcITetQSdd4ScQYp9w8p8iEn7TEm'
    '4j4n100ozVopwWkouHoosIkmpZYom6UokLIphcIpe9Qndt0ncQU99g898iA77DA74j081ks8y1k+'
    'wWg8t3g8rog7pZc8m6Q9kLI9hME9edM8c908cAJR9AxS8B5R6y1Q4DxQ1UhRylZSwGZStXhRroZQ'
    'pJVRmqJSjbBTgsBSedJQctxRcAFm9Apl8Rxk6ixj4Tpj1UllyVdnv2RltXdlr4Zjo5RlmaNmj7Bn'
    'hL9meNFldNplbgN59w159R947i934zx42Ep4zVh6wmd5t3l4sYh4p5V6naR6krJ6h8F5fNN4d954'
    'cwSM+A2M9R+L7jCL5DyL2EuMzlmOxGeMuHmLsYeLqJSLnqOMkrKNh8GMftOKd9yKdAKg9wyh9R6g'
    '7i6f5Tyf2kygzlmiw2ehuXqgs4mgqJagn6WhlbKiicKhftSgeN2gdAKz9wuz9B2x7S6y4zyy2Eqy'
    'zVi0w2a0uHizsYiyqJeyn6SzkrKzh8CzftKyd9yzcwbJ+Q/I9iHH7zLH50DH203Iz1vKxGvJu33I'
    'tIvIqZnHoKfJlrXJisXJf9fHeeDHcwrV/RTW+ibV9DXU6kTU3VHW02HXyW7Wv4DVtpDUrZzUo6zV'
    'mbjWjMjVg9rVeuPUd1nQLgQ='
)), np.uint8).reshape((12, 16, 3))
# what Pillow 13 decodes from JPEG_GREY: shape [12, 16], zlib-compressed
JPEG_GREY_PIXELS = np.frombuffer(zlib.decompress(base64.b64decode(
    'eNqTVVBR19IzNLG0tndy9fTx19TRNzaztLV3dvPyDQgOjzKzsLF3cvP0CQgKi4xJSElzdHH39gsM'
    'DY+OS0rNyM4v8vEPBkkkp2flFZaUV9dFRMUlpmTk5BWXVtY2NLd3pqRnAyUqquub2jp7+idPKygq'
    'q6ppaGnr6p0wZfqseQuq65paO3omTJo+a+7CJctXr20DciZPA3FWrF63ceuOKdNmzQOx12/aunPP'
    '/sNH5y5YsnzVuk1bduzed+joiTPnAMn/WPk='
)), np.uint8).reshape((12, 16))


# ---- small writers for the standard formats ------------------------------------------------

def png_bytes(arr, palette=None):
    """A PNG file of a uint8 HW (grey, or palette indices) or HWC (RGB/RGBA) array,
    rows filtered with 'sub' and 'up' alternately so the decoder's filters run."""
    arr = np.asarray(arr, np.uint8)
    color = 3 if palette is not None else {1: 0, 3: 2, 4: 6}[1 if arr.ndim == 2 else
                                                             arr.shape[2]]
    h, w = arr.shape[:2]
    flat = arr.reshape(h, -1).astype(np.int32)
    bpp = 1 if arr.ndim == 2 else arr.shape[2]
    rows = []
    for y in range(h):
        if y % 2:
            rows.append(b'\x02' + ((flat[y] - flat[y - 1]) % 256).astype(np.uint8).tobytes())
        else:
            left = np.concatenate([np.zeros(bpp, np.int32), flat[y, :-bpp]])
            rows.append(b'\x01' + ((flat[y] - left) % 256).astype(np.uint8).tobytes())

    def chunk(kind, body):
        return (struct.pack('>I', len(body)) + kind + body
                + struct.pack('>I', zlib.crc32(kind + body)))
    out = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, color, 0, 0, 0))
    if palette is not None:
        out += chunk(b'PLTE', np.asarray(palette, np.uint8).tobytes())
    return out + chunk(b'IDAT', zlib.compress(b''.join(rows))) + chunk(b'IEND', b'')


def mat_bytes(arrays, compress=False):
    """A MATLAB level-5 .mat file of double matrices (column-major, as MATLAB)."""
    out = b'MATLAB 5.0 MAT-file'.ljust(116) + b'\0' * 8 + struct.pack('<H', 0x0100) + b'IM'
    for name, arr in arrays.items():
        arr = np.atleast_2d(np.asarray(arr, np.float64))

        def element(kind, body):
            return struct.pack('<II', kind, len(body)) + body + b'\0' * (-len(body) % 8)
        body = (element(6, struct.pack('<II', 6, 0))
                + element(5, struct.pack('<%di' % arr.ndim, *arr.shape))
                + element(1, name.encode()) + element(9, arr.tobytes(order='F')))
        matrix = struct.pack('<II', 14, len(body)) + body
        out += (struct.pack('<II', 15, len(zlib.compress(matrix))) + zlib.compress(matrix)
                if compress else matrix)
    return out


def _add(archive, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))


def _tar(path, files, mode='w:gz'):
    with tarfile.open(path, mode) as archive:
        for name, data in files.items():
            _add(archive, name, data)
    return str(path)


# ---- image readers ----------------------------------------------------------------------

def test_baseline_jpeg_decodes_like_pillow():
    rgb = decode_image(JPEG_RGB420, pil=False)
    grey = decode_image(JPEG_GREY, pil=False)
    assert rgb.shape == (12, 16, 3) and rgb.dtype == np.uint8 and grey.shape == (12, 16)
    assert np.abs(rgb.astype(int) - JPEG_RGB420_PIXELS).max() <= 2
    assert np.abs(grey.astype(int) - JPEG_GREY_PIXELS).max() <= 1


def test_jpeg_errors_are_clear():
    progressive = JPEG_GREY.replace(b'\xff\xc0', b'\xff\xc2', 1)
    with pytest.raises(ValueError, match='progressive.*Pillow'):
        decode_image(progressive, pil=False)
    scan = JPEG_GREY.find(b'\xff\xda')
    for broken in (JPEG_GREY[:scan + 30] + b'\xff\xd9', JPEG_GREY[:150]):
        with pytest.raises(ValueError, match='damaged'):
            decode_image(broken, pil=False)
    with pytest.raises(ValueError, match='only PNG and JPEG'):
        decode_image(b'GIF89a...', pil=False)


@pytest.mark.parametrize('shape', [(5, 7), (5, 7, 3), (4, 6, 4)])
def test_png_round_trips_with_filters(shape):
    arr = np.random.default_rng(1).integers(0, 256, shape).astype(np.uint8)
    assert np.array_equal(decode_image(png_bytes(arr), pil=False), arr)


def test_palette_png_gives_indices_and_rgb_on_request(tmp_path):
    idx = np.array([[0, 1], [2, 1]], np.uint8)
    palette = [[10, 20, 30], [40, 50, 60], [70, 80, 90]]
    path = tmp_path / 'p.png'
    path.write_bytes(png_bytes(idx, palette))
    assert np.array_equal(load_image(str(path)), idx)
    if not __import__('framework').vision.image.pil_available():
        assert load_image(str(path), mode='RGB').tolist() == [
            [[10, 20, 30], [40, 50, 60]], [[70, 80, 90], [40, 50, 60]]]


def test_mat_reader_plain_and_compressed():
    for compress in (False, True):
        mat = load_mat_bytes(mat_bytes({'labels': [[3, 1, 2]], 'm': np.arange(6).reshape(2, 3)},
                                       compress))
        assert mat['labels'].tolist() == [[3, 1, 2]]
        assert mat['m'].tolist() == [[0, 1, 2], [3, 4, 5]]


def load_mat_bytes(data, _tmp=[]):
    import tempfile
    with tempfile.NamedTemporaryFile(suffix='.mat', delete=False) as f:
        f.write(data)
    try:
        return load_mat(f.name)
    finally:
        os.unlink(f.name)


def test_mat_reader_reads_scipy_files(tmp_path):
    sio = pytest.importorskip('scipy.io')
    for compress in (False, True):
        path = str(tmp_path / ('s%d.mat' % compress))
        sio.savemat(path, {'setid': np.array([[5, 2, 9]], np.uint16), 'x': np.eye(2)},
                    do_compression=compress)
        mat = load_mat(path)
        assert mat['setid'].tolist() == [[5, 2, 9]] and mat['setid'].dtype == np.uint16
        assert mat['x'].tolist() == [[1, 0], [0, 1]]


# ---- CIFAR ------------------------------------------------------------------------------

def _cifar_batch(n, seed, label_key=b'labels'):
    rng = np.random.default_rng(seed)
    return {b'batch_label': b'batch', label_key: [int(v) for v in rng.integers(0, 10, n)],
            b'data': rng.integers(0, 256, (n, 3072)).astype(np.uint8),
            b'filenames': [b'img%d.png' % i for i in range(n)]}


def _cifar10_archive(tmp_path):
    batches = {'cifar-10-batches-py/data_batch_%d' % i: _cifar_batch(3, i) for i in (1, 2)}
    batches['cifar-10-batches-py/test_batch'] = _cifar_batch(2, 9)
    files = {k: pickle.dumps(v, protocol=2) for k, v in batches.items()}
    files['cifar-10-batches-py/batches.meta'] = pickle.dumps({b'label_names': [b'cat']}, 2)
    return _tar(tmp_path / 'cifar-10-python.tar.gz', files), batches


def test_cifar10_reads_python_batches(tmp_path):
    path, batches = _cifar10_archive(tmp_path)
    train = datasets.Cifar10(data_file=path, mode='train')
    assert len(train) == 6
    image, label = train[4]
    raw = batches['cifar-10-batches-py/data_batch_2'][b'data'][1]
    assert image.shape == (32, 32, 3) and image.dtype == np.float32
    np.testing.assert_array_equal(image, raw.reshape(3, 32, 32).transpose(1, 2, 0))
    assert label.dtype == np.int64 and label.shape == ()
    assert int(label) == batches['cifar-10-batches-py/data_batch_2'][b'labels'][1]
    test = datasets.Cifar10(path, mode='test', transform=lambda im: im[:4, :4])
    assert len(test) == 2 and test[0][0].shape == (4, 4, 3)


def test_cifar100_uses_fine_labels(tmp_path):
    files = {'cifar-100-python/train': pickle.dumps(_cifar_batch(4, 1, b'fine_labels'), 2),
             'cifar-100-python/test': pickle.dumps(_cifar_batch(2, 2, b'fine_labels'), 2)}
    path = _tar(tmp_path / 'cifar-100-python.tar.gz', files)
    ds = datasets.Cifar100(path, mode='test')
    assert len(ds) == 2
    loader = paddle.io.DataLoader(ds, batch_size=2)
    images, labels = next(iter(loader))
    assert images.shape == [2, 32, 32, 3] and labels.shape == [2]


def test_cifar_never_runs_code_from_the_archive(tmp_path):
    class Payload:
        def __reduce__(self):
            return (os.system, ('echo should-not-run',))
    evil = {b'data': np.zeros((1, 3072), np.uint8), b'labels': [Payload()]}
    path = _tar(tmp_path / 'evil.tar.gz', {'x/data_batch_1': pickle.dumps(evil)})
    with pytest.raises(pickle.UnpicklingError, match='refusing to load'):
        datasets.Cifar10(path)


def test_cifar_missing_archive_says_where_to_put_it(tmp_path, monkeypatch):
    monkeypatch.setenv('FRAMEWORK_DATA_HOME', str(tmp_path))
    with pytest.raises(FileNotFoundError) as info:
        datasets.Cifar10(mode='test', download=True)
    msg = str(info.value)
    assert 'cifar-10-python.tar.gz' in msg and 'https://' in msg
    assert str(tmp_path / 'cifar') in msg
    path, _ = _cifar10_archive(tmp_path)
    (tmp_path / 'cifar').mkdir()
    os.rename(path, tmp_path / 'cifar' / 'cifar-10-python.tar.gz')
    assert len(datasets.Cifar10(mode='test')) == 2


# ---- Flowers and VOC2012 --------------------------------------------------------------------

def test_flowers_reads_images_labels_and_splits(tmp_path):
    jpgs = {'jpg/image_%05d.jpg' % i: (JPEG_RGB420 if i % 2 else JPEG_GREY) for i in (1, 2, 3)}
    data = _tar(tmp_path / '102flowers.tgz', jpgs)
    (tmp_path / 'imagelabels.mat').write_bytes(mat_bytes({'labels': [[7, 8, 9]]}))
    (tmp_path / 'setid.mat').write_bytes(mat_bytes(
        {'trnid': [[2]], 'valid': [[1]], 'tstid': [[3, 1]]}, compress=True))
    ds = datasets.Flowers(data, str(tmp_path / 'imagelabels.mat'), str(tmp_path / 'setid.mat'),
                          mode='train')
    assert len(ds) == 2 and os.path.isdir(tmp_path / '102flowers' / 'jpg')
    image, label = ds[0]            # image 3 (colour), label 9
    assert image.shape == (12, 16, 3) and image.dtype == np.float32
    assert label.tolist() == [9] and label.dtype == np.int64
    assert np.abs(image - JPEG_RGB420_PIXELS).max() <= 2
    test = datasets.Flowers(data, str(tmp_path / 'imagelabels.mat'),
                            str(tmp_path / 'setid.mat'), mode='test')
    grey, label = test[0]
    assert grey.shape == (12, 16) and label.tolist() == [8]
    with pytest.raises(ValueError, match='mode'):
        datasets.Flowers(data, mode='eval')


def test_voc2012_segmentation_pairs(tmp_path):
    root = 'VOCdevkit/VOC2012/'
    mask = np.array([[0, 1] * 8] * 12, np.uint8)
    files = {root + 'ImageSets/Segmentation/trainval.txt': b'2007_000032\n2007_000039\n',
             root + 'ImageSets/Segmentation/val.txt': b'2007_000039\n',
             root + 'JPEGImages/2007_000032.jpg': JPEG_RGB420,
             root + 'JPEGImages/2007_000039.jpg': JPEG_RGB420,
             root + 'SegmentationClass/2007_000032.png': png_bytes(mask, [[0, 0, 0], [128, 0, 0]]),
             root + 'SegmentationClass/2007_000039.png': png_bytes(1 - mask, [[0, 0, 0],
                                                                              [128, 0, 0]])}
    path = _tar(tmp_path / 'VOCtrainval_11-May-2012.tar', files, mode='w')
    ds = datasets.VOC2012(path, mode='train')
    assert len(ds) == 2
    image, label = ds[1]
    assert image.shape == (12, 16, 3) and label.shape == (12, 16)
    assert image.dtype == np.float32 and label.dtype == np.float32
    assert np.array_equal(label, 1 - mask)
    assert len(datasets.VOC2012(path, mode='valid')) == 1
    with pytest.raises(ValueError, match='has no'):
        datasets.VOC2012(path, mode='test')      # 'train' list is not in this archive


# ---- folders ------------------------------------------------------------------------------

def _image_tree(tmp_path):
    (tmp_path / 'cat').mkdir()
    (tmp_path / 'dog' / 'more').mkdir(parents=True)
    rng = np.random.default_rng(0)
    (tmp_path / 'cat' / 'a.png').write_bytes(png_bytes(rng.integers(0, 256, (4, 5, 3))))
    (tmp_path / 'dog' / 'b.PNG').write_bytes(png_bytes(rng.integers(0, 256, (3, 2))))
    (tmp_path / 'dog' / 'more' / 'c.jpg').write_bytes(JPEG_GREY)
    (tmp_path / 'dog' / 'notes.txt').write_text('not an image')
    return tmp_path


def test_dataset_folder_classes_and_default_loader(tmp_path):
    root = _image_tree(tmp_path)
    ds = datasets.DatasetFolder(str(root))
    assert ds.classes == ['cat', 'dog'] and ds.class_to_idx == {'cat': 0, 'dog': 1}
    assert [os.path.basename(p) for p, _ in ds.samples] == ['a.png', 'b.PNG', 'c.jpg']
    assert ds.targets == [0, 1, 1]
    image, target = ds[1]
    assert image.shape == (3, 2, 3) and image.dtype == np.uint8 and target == 1   # grey -> RGB
    assert ds[2][0].shape == (12, 16, 3)
    only_png = datasets.DatasetFolder(str(root), extensions=('.png',), transform=lambda x: x.sum())
    assert len(only_png) == 2 and isinstance(only_png[0][0], np.integer)
    text = datasets.DatasetFolder(str(root), loader=lambda p: open(p).read(),
                                  is_valid_file=lambda p: p.endswith('.txt'))
    assert text[0] == ('not an image', 1)
    with pytest.raises(RuntimeError, match='Found 0|found 0'):
        datasets.DatasetFolder(str(root), extensions=('.bmp',))


def test_image_folder_lists_every_image(tmp_path):
    root = _image_tree(tmp_path)
    ds = datasets.ImageFolder(str(root))
    assert len(ds) == 3
    sample = ds[0]
    assert isinstance(sample, list) and sample[0].shape == (4, 5, 3)
    small = datasets.ImageFolder(str(root), transform=lambda im: im[:1, :1])
    assert small[2][0].shape == (1, 1, 3)


def test_mnist_signature_defaults_like_paddle():
    import inspect
    assert inspect.signature(datasets.MNIST).parameters['download'].default is True
