"""paddle.compat: PyTorch's semantics of its functions and layers (against
numpy references), and the torch proxy of enable_compat / disable_compat."""
import importlib
import importlib.util
import sys

import numpy as np
import pytest

import framework as paddle
from framework import compat

RNG = np.random.RandomState(3)


@pytest.fixture
def proxy_off():
    yield
    paddle.disable_compat()


def _torch_module():
    try:
        return importlib.import_module('torch')
    except ModuleNotFoundError:
        return None


def test_enable_compat_makes_import_torch_this_framework(proxy_off):
    before = _torch_module()
    paddle.enable_compat()
    import torch
    import torch.nn.functional as tf
    assert torch is paddle and torch.sin is paddle.sin and tf is paddle.nn.functional
    assert paddle.__spec__.name == 'framework'
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module('torch.no_such_module')
    paddle.disable_compat()
    assert 'torch' not in sys.modules or sys.modules['torch'] is before
    assert _torch_module() is before


@pytest.mark.skipif(importlib.util.find_spec('torch') is not None,
                    reason='needs a process without a real torch (a real torch cannot be '
                           'imported twice)')
def test_scope_and_blocked_modules(tmp_path, monkeypatch, proxy_off):
    for name in ('scoped_user', 'blocked_user'):
        (tmp_path / (name + '.py')).write_text('import torch\nT = torch\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    paddle.enable_compat(scope={'scoped_user', 'blocked_user'}, blocked_modules='blocked_user')
    with pytest.raises(ModuleNotFoundError):          # this test module is out of scope
        importlib.import_module('torch')
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module('blocked_user')
    assert importlib.import_module('scoped_user').T is paddle
    for name in ('scoped_user', 'blocked_user'):
        sys.modules.pop(name, None)
    paddle.disable_compat()
    assert 'torch' not in sys.modules
    with compat.use_torch_proxy_guard():
        import torch
        assert torch is paddle
    assert 'torch' not in sys.modules


def test_reductions_and_sort_return_named_tuples():
    a = RNG.standard_normal((3, 4)).astype('float32')
    x = paddle.to_tensor(a)
    s = compat.sort(x, dim=1, descending=True)
    np.testing.assert_array_equal(s.values.numpy(), -np.sort(-a, axis=1))
    np.testing.assert_array_equal(s.indices.numpy(), np.argsort(-a, axis=1, kind='stable'))
    m = compat.max(x, dim=0, keepdim=True)
    np.testing.assert_array_equal(m.values.numpy(), a.max(0, keepdims=True))
    np.testing.assert_array_equal(m.indices.numpy(), a.argmax(0)[None])
    assert float(compat.min(x)) == a.min()
    np.testing.assert_array_equal(compat.max(x, paddle.zeros([3, 4])).numpy(), np.maximum(a, 0))
    assert float(compat.median(paddle.to_tensor([1.0, 4.0, 2.0, 3.0]))) == 2.0   # the lower
    med = compat.median(x, dim=1)
    np.testing.assert_array_equal(med.values.numpy(), np.sort(a, 1)[:, 1])
    assert float(compat.nanmedian(paddle.to_tensor([1.0, np.nan, 3.0, 2.0]))) == 2.0
    with pytest.raises(TypeError, match='compat.max: unexpected arguments'):
        compat.max(x, dim=0, bogus=1)


def test_split_unique_slogdet_equal_seed():
    parts = compat.split(paddle.arange(7), 3)
    assert [p.numpy().tolist() for p in parts] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [p.shape[0] for p in compat.split(paddle.arange(7), [2, 5])] == [2, 5]
    with pytest.raises(ValueError, match='split_size must be positive'):
        compat.split(paddle.arange(3), 0)
    u, inv = compat.unique(paddle.to_tensor([3, 1, 3]), return_inverse=True)
    assert u.numpy().tolist() == [1, 3] and inv.numpy().tolist() == [1, 0, 1]
    a = np.array([[2.0, 1.0], [1.0, -3.0]])
    r = compat.slogdet(paddle.to_tensor(a))
    sign, logdet = np.linalg.slogdet(a)
    assert float(r.sign) == sign and np.isclose(float(r.logabsdet), logdet)
    x = paddle.ones([2])
    assert compat.equal(x, x) and not compat.equal(x, paddle.ones([3]))
    assert not compat.equal(x, paddle.zeros([2]))
    s = compat.seed()
    first = paddle.rand([3]).numpy()
    paddle.seed(s)
    np.testing.assert_array_equal(paddle.rand([3]).numpy(), first)


def test_functional_layouts():
    F = compat.nn.functional
    x = RNG.standard_normal((2, 3, 4)).astype('float32')
    e = np.exp(x - x.max(0, keepdims=True))
    np.testing.assert_allclose(F.softmax(paddle.to_tensor(x)).numpy(), e / e.sum(0),
                               rtol=1e-6)        # PyTorch's dim for 3-d input: 0
    assert F.softmax(paddle.to_tensor(x), -1, dtype='float64').dtype == paddle.float64
    w, b = RNG.standard_normal((5, 4)), RNG.standard_normal(5)
    np.testing.assert_allclose(F.linear(paddle.to_tensor(x.astype('float64')),
                                        paddle.to_tensor(w), paddle.to_tensor(b)).numpy(),
                               x @ w.T + b, rtol=1e-10)
    padded = F.pad(paddle.to_tensor(x), [1, 2, 0, 1], value=7.0).numpy()
    np.testing.assert_array_equal(padded, np.pad(x, [(0, 0), (0, 1), (1, 2)],
                                                 constant_values=7.0))
    q, k, v = (RNG.standard_normal((2, 3, 5, 4)).astype('float32') for _ in range(3))
    scores = q @ k.transpose(0, 1, 3, 2) / 2.0
    p = np.exp(scores - scores.max(-1, keepdims=True))
    ref = (p / p.sum(-1, keepdims=True)) @ v
    out = F.scaled_dot_product_attention(paddle.to_tensor(q), paddle.to_tensor(k),
                                         paddle.to_tensor(v))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)
    cols = F.unfold(paddle.ones([1, 2, 4, 4]), 2, stride=2)
    assert cols.shape == [1, 8, 4]


def test_layers_use_pytorchs_layout_and_counting():
    lin = compat.nn.Linear(4, 3)
    assert lin.weight.shape == [3, 4] and lin.bias.shape == [3]
    assert np.abs(lin.weight.numpy()).max() <= 0.5              # 1/sqrt(4)
    x = paddle.to_tensor(RNG.standard_normal((2, 4)).astype('float32'))
    np.testing.assert_allclose(lin(x).numpy(), x.numpy() @ lin.weight.numpy().T +
                               lin.bias.numpy(), rtol=1e-5)
    assert compat.nn.Linear(4, 3, bias=False).bias is None
    ones = paddle.ones([1, 1, 3, 3])
    counted = compat.nn.AvgPool2d(2, stride=1, padding=1)(ones).numpy()
    assert counted[0, 0, 0, 0] == 0.25                            # padding counts
    assert compat.nn.AvgPool2d(2, 1, 1, count_include_pad=False)(ones).numpy()[0, 0, 0, 0] == 1.0
    with pytest.raises(ValueError, match='divisor_override is not supported'):
        compat.nn.AvgPool1d(2, divisor_override=3)
    sm = compat.nn.Softmax(dim=1)(paddle.ones([2, 4]))
    np.testing.assert_allclose(sm.numpy(), np.full((2, 4), 0.25))
    assert compat.nn.Unfold(2)(paddle.ones([1, 1, 3, 3])).shape == [1, 4, 4]


def test_pytorchs_defaults_where_they_differ_from_paddles():
    # sort: last dim, ascending, ties in their order (stable)
    x = paddle.to_tensor([[3.0, 1.0, 3.0, 1.0], [0.0, -1.0, 0.0, 2.0]])
    s = compat.sort(x)
    assert s.values.numpy().tolist() == [[1.0, 1.0, 3.0, 3.0], [-1.0, 0.0, 0.0, 2.0]]
    assert s.indices.numpy().tolist() == [[1, 3, 0, 2], [1, 0, 2, 3]]
    down = compat.sort(x, descending=True, stable=True)
    assert down.indices.numpy().tolist() == [[0, 2, 1, 3], [3, 0, 2, 1]]
    # softmax without dim: PyTorch's legacy choice per rank (0 for 0-d, 1-d and 3-d, else 1)
    F = compat.nn.functional
    v = RNG.standard_normal(5).astype('float32')
    np.testing.assert_allclose(F.softmax(paddle.to_tensor(v)).numpy(),
                               np.exp(v) / np.exp(v).sum(), rtol=1e-6)
    m = RNG.standard_normal((2, 3)).astype('float32')
    np.testing.assert_allclose(F.softmax(paddle.to_tensor(m)).numpy().sum(1), [1.0, 1.0],
                               rtol=1e-6)
    f4 = RNG.standard_normal((2, 3, 2, 2)).astype('float32')
    np.testing.assert_allclose(F.softmax(paddle.to_tensor(f4)).numpy().sum(1),
                               np.ones((2, 2, 2)), rtol=1e-6)
    assert float(F.softmax(paddle.to_tensor(2.0))) == 1.0
    # unfold's stride defaults to 1; sdpa needs enable_gqa for fewer key/value heads
    assert F.unfold(paddle.ones([1, 2, 4, 4]), 2).shape == [1, 8, 9]
    q, kv = paddle.ones([1, 4, 5, 8]), paddle.ones([1, 2, 5, 8])
    with pytest.raises(ValueError, match='same number of heads without enable_gqa'):
        F.scaled_dot_product_attention(q, kv, kv)
    assert F.scaled_dot_product_attention(q, kv, kv, enable_gqa=True).shape == [1, 4, 5, 8]
    # a Linear's bias is a bias parameter (Paddle names it .b_0)
    assert compat.nn.Linear(4, 3).bias.name.endswith('.b_0')


@pytest.mark.parametrize('shape', [(2, 3, 5), (1, 2, 4, 5), (1, 1, 3, 4, 5)])
@pytest.mark.parametrize('mode', ['reflect', 'replicate', 'circular'])
def test_pad_modes_pad_the_last_dims_in_pytorchs_order(shape, mode):
    x = RNG.standard_normal(shape).astype('float32')
    pad = [1, 2, 2, 1, 1, 0][:2 * (len(shape) - 2)]
    pairs = [(0, 0)] * len(shape)
    for k in range(len(pad) // 2):
        pairs[len(shape) - 1 - k] = (pad[2 * k], pad[2 * k + 1])
    ref = np.pad(x, pairs, mode={'reflect': 'reflect', 'replicate': 'edge',
                                 'circular': 'wrap'}[mode])
    out = compat.nn.functional.pad(paddle.to_tensor(x), pad, mode=mode)
    np.testing.assert_allclose(out.numpy(), ref)


def test_blocked_and_scoped_module_names_match_whole_packages():
    from framework.compat.proxy import _within
    assert _within('a', ['a']) and _within('a.b.c', ['x', 'a.b'])
    assert not _within('ab', ['a']) and not _within('a', ['a.b']) and not _within('a', [])
