"""framework.vision: transforms and data sets (MNIST from small IDX files made here,
Digits from scikit-learn)."""
import gzip
import math
import os
import struct
import sys

import numpy as np
import pytest

import framework
from framework.io import DataLoader
from framework.vision import datasets
from framework.vision import transforms as T
from framework.vision.transforms import functional as F

rng = np.random.default_rng(42)


# ----------------------------------------------------------------------------- ToTensor
def test_to_tensor_uint8_hwc_scales_and_transposes():
    img = rng.integers(0, 256, size=(4, 5, 3), dtype=np.uint8)
    out = T.ToTensor()(img)
    assert isinstance(out, framework.Tensor) and out.shape == [3, 4, 5]
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    hwc = T.ToTensor(data_format='HWC')(img)
    assert hwc.shape == [4, 5, 3]


def test_to_tensor_grey_and_float_inputs():
    grey = np.full((3, 2), 255, np.uint8)
    out = T.ToTensor()(grey)
    assert out.shape == [1, 3, 2] and np.all(out.numpy() == 1.0)
    f = np.full((2, 2, 1), 7.0, np.float32)        # floats are not rescaled (as Paddle)
    assert np.all(T.ToTensor()(f).numpy() == 7.0)


def test_to_tensor_errors():
    with pytest.raises(ValueError, match='data_format'):
        T.ToTensor(data_format='NCHW')
    with pytest.raises(TypeError, match=r'shape \(2,\)'):
        T.ToTensor()(np.zeros(2))
    with pytest.raises(TypeError, match='list'):
        F.to_tensor([[1, 2]])


# ----------------------------------------------------------------------------- Normalize
def test_normalize_chw_and_hwc():
    img = rng.random((3, 4, 5)).astype(np.float32)
    mean, std = [0.1, 0.2, 0.3], [0.5, 0.25, 2.0]
    out = T.Normalize(mean, std)(img)
    for c in range(3):
        np.testing.assert_allclose(out[c], (img[c] - mean[c]) / std[c], rtol=1e-6)
    hwc = img.transpose(1, 2, 0)
    out2 = T.Normalize(mean, std, data_format='HWC')(hwc)
    np.testing.assert_allclose(out2.transpose(2, 0, 1), out, rtol=1e-6)


def test_normalize_tensor_stays_tensor_and_mnist_idiom():
    t = T.ToTensor()(np.full((2, 2, 3), 255, np.uint8))
    out = T.Normalize(mean=[0.5] * 3, std=[0.5] * 3)(t)
    assert isinstance(out, framework.Tensor) and np.allclose(out.numpy(), 1.0)
    # Paddle's MNIST idiom: a single-channel mean/std on an HW image gives 1 x H x W
    hw = np.full((28, 28), 255.0, np.float32)
    out = T.Normalize(mean=[127.5], std=[127.5], data_format='CHW')(hw)
    assert out.shape == (1, 28, 28) and np.allclose(out, 1.0)


def test_normalize_to_rgb_reverses_channels():
    img = np.stack([np.full((2, 2), v, np.float32) for v in (1, 2, 3)])
    out = T.Normalize(0.0, 1.0, to_rgb=True)(img)
    assert out[:, 0, 0].tolist() == [3.0, 2.0, 1.0]
    with pytest.raises(ValueError, match='std contains 0'):
        T.Normalize([0.0], [0.0])(img)


# ----------------------------------------------------------------------------- Resize
def _resize_reference(img, oh, ow, mode):
    """Per-pixel loops, straight from OpenCV's definitions."""
    h, w = img.shape[:2]
    sy, sx = h / oh, w / ow
    out = np.zeros((oh, ow) + img.shape[2:])

    def cubic(x, a=-0.75):
        x = abs(x)
        if x <= 1:
            return (a + 2) * x ** 3 - (a + 3) * x ** 2 + 1
        if x < 2:
            return a * x ** 3 - 5 * a * x ** 2 + 8 * a * x - 4 * a
        return 0.0

    for y in range(oh):
        for x in range(ow):
            if mode == 'nearest':
                out[y, x] = img[min(int(math.floor(y * sy)), h - 1),
                                min(int(math.floor(x * sx)), w - 1)]
                continue
            fy, fx = (y + 0.5) * sy - 0.5, (x + 0.5) * sx - 0.5
            if mode == 'bilinear':
                fy, fx = min(max(fy, 0), h - 1), min(max(fx, 0), w - 1)
                y0, x0 = int(fy), int(fx)
                y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
                dy, dx = fy - y0, fx - x0
                out[y, x] = ((1 - dy) * ((1 - dx) * img[y0, x0] + dx * img[y0, x1])
                             + dy * ((1 - dx) * img[y1, x0] + dx * img[y1, x1]))
            else:
                y0, x0 = math.floor(fy), math.floor(fx)
                acc = 0.0
                for i in range(-1, 3):
                    for j in range(-1, 3):
                        yy, xx = min(max(y0 + i, 0), h - 1), min(max(x0 + j, 0), w - 1)
                        acc = acc + cubic(fy - (y0 + i)) * cubic(fx - (x0 + j)) * img[yy, xx]
                out[y, x] = acc
    return out


@pytest.mark.parametrize('mode', ['nearest', 'bilinear', 'bicubic'])
@pytest.mark.parametrize('shape,size', [((7, 9, 3), (13, 5)), ((16, 12), (8, 6)),
                                        ((5, 6, 1), (5, 11))])
def test_resize_matches_reference(mode, shape, size):
    img = rng.random(shape)
    out = T.Resize(size, interpolation=mode)(img)
    assert out.shape == tuple(size) + shape[2:] and out.dtype == img.dtype
    np.testing.assert_allclose(out, _resize_reference(img, size[0], size[1], mode),
                               rtol=1e-10, atol=1e-12)


def test_resize_matches_torch_when_available():
    torch = pytest.importorskip('torch')
    img = rng.random((9, 7, 2)).astype(np.float32)
    t = torch.from_numpy(img.transpose(2, 0, 1))[None]
    for mode in ('nearest', 'bilinear', 'bicubic'):
        kw = {} if mode == 'nearest' else {'align_corners': False}
        ref = torch.nn.functional.interpolate(t, size=(4, 11), mode=mode, **kw)
        np.testing.assert_allclose(F.resize(img, (4, 11), mode),
                                   ref[0].numpy().transpose(1, 2, 0), rtol=1e-5, atol=1e-6)


def test_resize_int_size_matches_shorter_side():
    img = np.zeros((20, 40, 3), np.uint8)
    assert T.Resize(10)(img).shape == (10, 20, 3)
    assert T.Resize(10)(np.zeros((40, 20))).shape == (20, 10)
    same = np.zeros((10, 30))
    assert T.Resize(10)(same) is same


def test_resize_uint8_rounds_and_keeps_dtype():
    img = np.array([[0, 255]], np.uint8)
    out = F.resize(img, (1, 4), 'bilinear')
    assert out.dtype == np.uint8
    ref = np.clip(np.rint(_resize_reference(img.astype(float), 1, 4, 'bilinear')), 0, 255)
    assert out.tolist() == ref.astype(np.uint8).tolist()


def test_resize_tensor_chw():
    img = rng.random((2, 6, 8))
    out = F.resize(framework.to_tensor(img), (3, 4))
    assert isinstance(out, framework.Tensor) and out.shape == [2, 3, 4]
    np.testing.assert_allclose(out.numpy(), F.resize(img.transpose(1, 2, 0), (3, 4))
                               .transpose(2, 0, 1), rtol=1e-12)


def test_resize_errors():
    with pytest.raises(ValueError, match='interpolation'):
        T.Resize(4, interpolation='lanczos')
    with pytest.raises(TypeError, match='size'):
        T.Resize((1, 2, 3))
    with pytest.raises(TypeError, match='numpy image'):
        F.resize([[1]], 3)


# ----------------------------------------------------------------------------- crops & flips
def test_random_crop_is_a_window_of_the_padded_image():
    img = rng.integers(0, 256, size=(8, 9, 3), dtype=np.uint8)
    padded = np.pad(img, ((2, 2), (2, 2), (0, 0)))
    framework.seed(0)
    corners = set()
    for _ in range(40):
        out = T.RandomCrop((6, 7), padding=2)(img)
        assert out.shape == (6, 7, 3)
        hits = [(i, j) for i in range(padded.shape[0] - 5) for j in range(padded.shape[1] - 6)
                if np.array_equal(padded[i:i + 6, j:j + 7], out)]
        assert hits
        corners.add(hits[0])
    assert len(corners) > 10          # really random


def test_random_crop_repeatable_with_seed():
    img = rng.random((10, 10))
    framework.seed(8)
    a = [T.RandomCrop(4)(img) for _ in range(5)]
    framework.seed(8)
    b = [T.RandomCrop(4)(img) for _ in range(5)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_random_crop_pad_if_needed_and_error():
    img = np.ones((3, 4), np.float32)
    out = T.RandomCrop((5, 6), pad_if_needed=True)(img)
    assert out.shape == (5, 6) and out.sum() == 12
    with pytest.raises(ValueError, match=r'larger than the image.*pad_if_needed'):
        T.RandomCrop(5)(img)


def test_center_crop_and_crop():
    img = np.arange(36).reshape(6, 6)
    assert T.CenterCrop(2)(img).tolist() == [[14, 15], [20, 21]]
    assert F.crop(img, 1, 2, 2, 3).tolist() == [[8, 9, 10], [14, 15, 16]]
    with pytest.raises(ValueError, match='not inside'):
        F.crop(img, 5, 5, 2, 2)
    with pytest.raises(ValueError, match='larger than the image'):
        T.CenterCrop(7)(img)


def test_flips():
    img = np.arange(6).reshape(2, 3)
    assert T.RandomHorizontalFlip(1.0)(img).tolist() == [[2, 1, 0], [5, 4, 3]]
    assert T.RandomHorizontalFlip(0.0)(img).tolist() == img.tolist()
    assert T.RandomVerticalFlip(1.0)(img).tolist() == [[3, 4, 5], [0, 1, 2]]
    t = framework.to_tensor(img[None].astype(np.float32))
    assert T.RandomHorizontalFlip(1.0)(t).numpy()[0].tolist() == [[2, 1, 0], [5, 4, 3]]
    framework.seed(1)
    flips = [T.RandomHorizontalFlip()(img)[0, 0] == 2 for _ in range(200)]
    assert 60 < sum(flips) < 140
    with pytest.raises(ValueError, match='prob'):
        T.RandomHorizontalFlip(1.5)


@pytest.mark.parametrize('mode', ['constant', 'edge', 'reflect', 'symmetric'])
def test_pad_modes_match_numpy(mode):
    img = rng.integers(0, 9, size=(3, 4, 2))
    out = T.Pad((1, 2, 3, 4), padding_mode=mode)(img)    # left, top, right, bottom
    np.testing.assert_array_equal(out, np.pad(img, ((2, 4), (1, 3), (0, 0)), mode=mode))


def test_pad_fill_per_channel():
    out = F.pad(np.zeros((1, 1, 3), np.uint8), 1, fill=(1, 2, 3))
    assert out[0, 0].tolist() == [1, 2, 3] and out[1, 1].tolist() == [0, 0, 0]


def test_transpose():
    img = np.zeros((4, 5, 3))
    assert T.Transpose()(img).shape == (3, 4, 5)
    assert T.Transpose()(np.zeros((4, 5))).shape == (1, 4, 5)
    t = framework.to_tensor(np.zeros((4, 5, 3), np.float32))
    assert T.Transpose()(t).shape == [3, 4, 5]
    with pytest.raises(ValueError, match='permutation'):
        T.Transpose((0, 1))(img)


def test_compose_and_keys_share_random_params():
    img = rng.random((10, 10))
    mask = img.copy()
    crop = T.RandomCrop(5, keys=('image', 'mask'))
    a, b = crop((img, mask))
    assert np.array_equal(a, b)
    flip = T.RandomHorizontalFlip(0.5, keys=('image', 'mask'))
    for _ in range(10):
        a, b, extra = flip((img, mask, 'label'))
        assert np.array_equal(a, b) and extra == 'label'
    pipeline = T.Compose([T.Resize((6, 6)), T.CenterCrop(4), T.ToTensor()])
    assert pipeline(np.zeros((8, 8, 3), np.uint8)).shape == [3, 4, 4]
    assert 'Resize' in repr(pipeline)
    with pytest.raises(TypeError, match='not callable'):
        T.Compose([1])
    with pytest.raises(NotImplementedError, match='boxes'):
        T.RandomCrop(3, keys=('image', 'boxes'))


def test_custom_base_transform():
    class AddOne(T.BaseTransform):
        def _apply_image(self, img):
            return img + 1
    assert AddOne()(np.zeros(2)).tolist() == [1.0, 1.0]


def test_pil_images_round_trip():
    Image = pytest.importorskip('PIL.Image')
    img = Image.fromarray(rng.integers(0, 256, size=(8, 6, 3), dtype=np.uint8))
    out = T.Compose([T.Resize((4, 3)), T.RandomHorizontalFlip(1.0)])(img)
    assert isinstance(out, Image.Image) and out.size == (3, 4)
    assert T.ToTensor()(img).shape == [3, 8, 6]


# ----------------------------------------------------------------------------- MNIST
def _write_idx(path, array, gz):
    header = struct.pack('>HBB', 0, 0x08, array.ndim) + struct.pack('>%dI' % array.ndim,
                                                                    *array.shape)
    data = header + array.astype(np.uint8).tobytes()
    if gz:
        data = gzip.compress(data)
    with open(path, 'wb') as f:
        f.write(data)


@pytest.fixture
def mnist_files(tmp_path):
    images = rng.integers(0, 256, size=(5, 28, 28), dtype=np.uint8)
    labels = np.array([3, 1, 4, 1, 5], np.uint8)
    _write_idx(tmp_path / 'img.gz', images, gz=True)
    _write_idx(tmp_path / 'lbl', labels, gz=False)
    return str(tmp_path / 'img.gz'), str(tmp_path / 'lbl'), images, labels


def test_mnist_reads_idx_files(mnist_files):
    img_path, lbl_path, images, labels = mnist_files
    ds = datasets.MNIST(image_path=img_path, label_path=lbl_path, mode='test')
    assert len(ds) == 5
    image, label = ds[2]
    assert image.shape == (28, 28) and image.dtype == np.float32
    assert np.array_equal(image, images[2].astype(np.float32))
    assert label.dtype == np.int64 and label.tolist() == [4]


def test_mnist_transform_gets_uint8_and_batches(mnist_files):
    img_path, lbl_path, images, _ = mnist_files
    seen = []

    def spy(img):
        seen.append(img.dtype)
        return img
    datasets.MNIST(image_path=img_path, label_path=lbl_path, transform=spy)[0]
    assert seen == [np.uint8]
    tf = T.Compose([T.ToTensor(), T.Normalize([0.5], [0.5])])
    ds = datasets.MNIST(image_path=img_path, label_path=lbl_path, transform=tf)
    x, y = next(iter(DataLoader(ds, batch_size=4)))
    assert x.shape == [4, 1, 28, 28] and y.shape == [4, 1] and y.dtype == np.int64
    np.testing.assert_allclose(x.numpy()[0, 0], images[0] / 127.5 - 1, rtol=1e-5, atol=1e-6)
    ds = datasets.FashionMNIST(image_path=img_path, label_path=lbl_path,
                               transform=T.Normalize(mean=[127.5], std=[127.5]))
    assert ds[0][0].shape == (1, 28, 28)


def test_mnist_missing_files_explain_how_to_get_them(tmp_path, monkeypatch):
    monkeypatch.setenv('FRAMEWORK_DATA_HOME', str(tmp_path))
    monkeypatch.setenv('HOME', str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r'train-images-idx3-ubyte\.gz.*Download'):
        datasets.MNIST()
    with pytest.raises(FileNotFoundError, match='never downloads'):
        datasets.MNIST(mode='test', download=True)
    with pytest.raises(FileNotFoundError, match='fashion'):
        datasets.FashionMNIST()
    with pytest.raises(FileNotFoundError, match='nope.gz'):
        datasets.MNIST(image_path=str(tmp_path / 'nope.gz'), label_path=str(tmp_path / 'x'))


def test_mnist_found_in_data_home(tmp_path, monkeypatch):
    monkeypatch.setenv('FRAMEWORK_DATA_HOME', str(tmp_path))
    (tmp_path / 'mnist').mkdir()
    _write_idx(tmp_path / 'mnist' / 't10k-images-idx3-ubyte.gz',
               np.zeros((2, 28, 28), np.uint8), gz=True)
    _write_idx(tmp_path / 'mnist' / 't10k-labels-idx1-ubyte', np.array([7, 8]), gz=False)
    ds = datasets.MNIST(mode='test', download=True)      # files present: no download needed
    assert len(ds) == 2 and ds[1][1].tolist() == [8]


def test_mnist_bad_files(tmp_path, mnist_files):
    img_path, lbl_path, _, _ = mnist_files
    with open(img_path, 'rb') as f:
        raw = gzip.decompress(f.read())
    (tmp_path / 'short').write_bytes(raw[:-10])
    with pytest.raises(ValueError, match='truncated'):
        datasets.MNIST(image_path=str(tmp_path / 'short'), label_path=lbl_path)
    (tmp_path / 'broken.gz').write_bytes(gzip.compress(raw)[:-20])
    with pytest.raises(ValueError, match='damaged gzip'):
        datasets.MNIST(image_path=str(tmp_path / 'broken.gz'), label_path=lbl_path)
    with pytest.raises(ValueError, match='not an IDX file'):
        datasets.MNIST(image_path=lbl_path, label_path=lbl_path)
    _write_idx(tmp_path / 'three', np.array([1, 2, 3]), gz=False)
    with pytest.raises(ValueError, match='5 images but .* 3 labels'):
        datasets.MNIST(image_path=img_path, label_path=str(tmp_path / 'three'))
    with pytest.raises(ValueError, match='mode'):
        datasets.MNIST(image_path=img_path, label_path=lbl_path, mode='val')


def test_image_backend_choice():
    assert framework.vision.get_image_backend() == 'cv2'
    with pytest.raises(ValueError, match="'pil' or 'cv2'"):
        framework.vision.set_image_backend('opencv')


# ----------------------------------------------------------------------------- Digits
def test_digits_split_and_samples():
    pytest.importorskip('sklearn')
    train, test = datasets.Digits(mode='train'), datasets.Digits(mode='test')
    assert len(train) + len(test) == 1797
    assert abs(len(test) / 1797 - 0.2) < 0.01
    image, label = train[0]
    assert image.shape == (1, 8, 8) and image.dtype == np.float32
    assert label.shape == (1,) and label.dtype == np.int64
    assert image.min() >= 0 and train.images.max() == 255 and train.images.min() == 0
    # stratified: every digit is in both parts, in about the same proportion
    for ds in (train, test):
        counts = np.bincount(ds.labels, minlength=10)
        assert counts.min() > 0 and counts.max() / counts.min() < 1.2


def test_digits_split_is_deterministic_and_disjoint():
    pytest.importorskip('sklearn')
    from sklearn.datasets import load_digits
    src = load_digits().images * (255.0 / 16)
    a, b = datasets.Digits(mode='test'), datasets.Digits(mode='test')
    framework.seed(123)
    c = datasets.Digits(mode='test')
    assert np.array_equal(a.images, b.images) and np.array_equal(a.images, c.images)
    train = datasets.Digits(mode='train', test_split=0.5)
    test = datasets.Digits(mode='test', test_split=0.5)
    assert len(train) + len(test) == 1797 and abs(len(train) - len(test)) < 15
    # every source image appears exactly once across the two parts
    keys = {im.tobytes() for im in np.rint(src).astype(np.uint8)}
    got = [im.tobytes() for im in np.concatenate([train.images, test.images])]
    assert set(got) == keys


def test_digits_upscale_and_transform():
    pytest.importorskip('sklearn')
    ds = datasets.Digits(mode='test', image_size=28,
                         transform=T.Compose([T.ToTensor(), T.Normalize([0.5], [0.5])]))
    x, y = next(iter(DataLoader(ds, batch_size=16, shuffle=True)))
    assert x.shape == [16, 1, 28, 28] and y.shape == [16, 1]
    assert -1.0 <= x.numpy().min() and x.numpy().max() <= 1.0
    raw = datasets.Digits(mode='test', image_size=28)
    assert raw[0][0].shape == (1, 28, 28)
    seen = []
    datasets.Digits(mode='test', transform=lambda im: seen.append((im.dtype, im.shape)) or im)[0]
    assert seen == [(np.uint8, (8, 8))]


def test_digits_errors():
    pytest.importorskip('sklearn')
    with pytest.raises(ValueError, match='mode'):
        datasets.Digits(mode='valid')
    with pytest.raises(ValueError, match='test_split'):
        datasets.Digits(test_split=1.0)
    with pytest.raises(ValueError, match='image_size'):
        datasets.Digits(image_size=0)


def test_digits_without_sklearn_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, 'sklearn', None)
    monkeypatch.setitem(sys.modules, 'sklearn.datasets', None)
    with pytest.raises(ImportError, match='pip install scikit-learn'):
        datasets.Digits()


def test_digits_learnable_by_nearest_centroid():
    """The data are real digits: a nearest-class-mean classifier on the train part
    gets most of the test part right."""
    pytest.importorskip('sklearn')
    train, test = datasets.Digits(mode='train'), datasets.Digits(mode='test')
    xtr, xte = train.images.reshape(len(train), -1) / 255.0, test.images.reshape(len(test), -1) / 255.0
    means = np.stack([xtr[train.labels == c].mean(0) for c in range(10)])
    pred = np.argmin(((xte[:, None, :] - means[None]) ** 2).sum(-1), axis=1)
    assert (pred == test.labels).mean() > 0.85
    assert os.path.basename(datasets.digits.__file__) == 'digits.py'


def test_pil_backend_datasets(mnist_files):
    Image = pytest.importorskip('PIL.Image')
    img_path, lbl_path, images, _ = mnist_files
    ds = datasets.MNIST(image_path=img_path, label_path=lbl_path, backend='pil')
    image, label = ds[1]
    assert isinstance(image, Image.Image) and np.array_equal(np.asarray(image), images[1])
    ds = datasets.MNIST(image_path=img_path, label_path=lbl_path, backend='pil',
                        transform=T.ToTensor())
    assert ds[1][0].shape == [1, 28, 28] and float(ds[1][0].numpy().max()) <= 1.0
    if pytest.importorskip('sklearn'):
        assert isinstance(datasets.Digits(mode='test', backend='pil')[0][0], Image.Image)
