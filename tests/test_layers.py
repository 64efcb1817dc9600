"""The standard layers: forward against independent numpy references (and
PyTorch with copied weights when it is installed), gradients against finite
differences, train/eval behaviour, argument checks."""
import math

import numpy as np
import pytest

import framework as paddle
from framework import nn

RNG = np.random.default_rng(2024)


def _f64(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape)


def _t(a, grad=False):
    return paddle.to_tensor(a, stop_gradient=not grad)


def _np(t):
    return t.numpy().astype(np.float64)


# ---- finite-difference gradient check over inputs and parameters -----------------

def check_grads(layer, *inputs, seed=0, rtol=1e-4, atol=1e-6, max_elems=400):
    """d(sum(out * cot))/d(inputs, trainable params) against central differences.

    Runs in float64; random layers are re-seeded before every evaluation so
    all evaluations use the same mask.
    """
    layer.to(dtype='float64')
    ins = [paddle.to_tensor(np.asarray(a, np.float64), stop_gradient=False)
           if isinstance(a, np.ndarray) and a.dtype.kind == 'f' else a for a in inputs]
    targets = [t for t in ins if isinstance(t, paddle.Tensor) and not t.stop_gradient]
    targets += [p for p in layer.parameters() if p.trainable]
    assert sum(t.size for t in targets) <= max_elems, 'keep FD checks small'
    paddle.seed(seed)
    out = layer(*ins)
    cot = np.random.default_rng(seed + 1).standard_normal(out.shape)
    grads = paddle.grad((out * paddle.to_tensor(cot)).sum(), targets, allow_unused=True)

    def objective():
        paddle.seed(seed)
        with paddle.no_grad():
            return float(np.sum(layer(*ins).numpy() * cot))

    for t, g in zip(targets, grads):
        base = t.data
        num = np.zeros(base.size)
        for k in range(base.size):
            for sign in (1, -1):
                pert = base.copy().reshape(-1)
                pert[k] += sign * 1e-6
                t.data = pert.reshape(base.shape)
                num[k] += sign * objective()
            t.data = base
        num = num.reshape(base.shape) / 2e-6
        got = np.zeros_like(num) if g is None else g.numpy()
        np.testing.assert_allclose(got, num, rtol=rtol, atol=atol,
                                   err_msg='gradient of %s' % getattr(t, 'name', 'input'))


# ---- numpy references -------------------------------------------------------------------

def conv_nd_ref(x, w, b, stride, padding, dilation, groups):
    """Direct convolution over the trailing len(stride) dims of NC... arrays."""
    n = len(stride)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    N, C = x.shape[:2]
    O, cg = w.shape[:2]
    k = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - dilation[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(n)]
    out = np.zeros([N, O] + out_sp)
    og = O // groups
    for gi in range(groups):
        xs = xp[:, gi * cg:(gi + 1) * cg]
        for idx in np.ndindex(*k):
            sl = tuple(slice(idx[i] * dilation[i],
                             idx[i] * dilation[i] + stride[i] * (out_sp[i] - 1) + 1, stride[i])
                       for i in range(n))
            patch = xs[(slice(None), slice(None)) + sl]
            wk = w[(slice(gi * og, (gi + 1) * og), slice(None)) + idx]
            out[:, gi * og:(gi + 1) * og] += np.tensordot(patch, wk, axes=([1], [1])) \
                .transpose([0, n + 1] + list(range(1, n + 1)))
    if b is not None:
        out += b.reshape([1, O] + [1] * n)
    return out


def conv_transpose_nd_ref(x, w, b, stride, padding, output_padding, dilation, groups):
    n = len(stride)
    N, C = x.shape[:2]
    cg, og = C // groups, w.shape[1]
    k = w.shape[2:]
    in_sp = x.shape[2:]
    full_sp = [(in_sp[i] - 1) * stride[i] + dilation[i] * (k[i] - 1) + 1 + output_padding[i]
               for i in range(n)]
    full = np.zeros([N, og * groups] + full_sp)
    for gi in range(groups):
        xs = x[:, gi * cg:(gi + 1) * cg]
        for idx in np.ndindex(*k):
            wk = w[(slice(gi * cg, (gi + 1) * cg), slice(None)) + idx]   # [cg, og]
            contrib = np.tensordot(xs, wk, axes=([1], [0]))   # N, *in_sp, og
            contrib = np.moveaxis(contrib, -1, 1)
            sl = tuple(slice(idx[i] * dilation[i],
                             idx[i] * dilation[i] + stride[i] * (in_sp[i] - 1) + 1, stride[i])
                       for i in range(n))
            full[(slice(None), slice(gi * og, (gi + 1) * og)) + sl] += contrib
    out_sp = [full_sp[i] - 2 * padding[i] for i in range(n)]
    out = full[(slice(None), slice(None)) + tuple(slice(padding[i], padding[i] + out_sp[i])
                                                  for i in range(n))]
    if b is not None:
        out = out + b.reshape([1, -1] + [1] * n)
    return out


def pool_ref(x, k, s, p, kind, exclusive=True):
    n = len(k)
    sp = x.shape[2:]
    out_sp = [(sp[i] + 2 * p[i] - k[i]) // s[i] + 1 for i in range(n)]
    out = np.zeros(x.shape[:2] + tuple(out_sp))
    for o in np.ndindex(*out_sp):
        lo = [o[i] * s[i] - p[i] for i in range(n)]
        hi = [lo[i] + k[i] for i in range(n)]
        clo = [max(v, 0) for v in lo]
        chi = [min(hi[i], sp[i]) for i in range(n)]
        win = x[(Ellipsis,) + tuple(slice(clo[i], chi[i]) for i in range(n))]
        win = win.reshape(x.shape[:2] + (-1,))
        if kind == 'max':
            out[(Ellipsis,) + o] = win.max(-1)
        else:
            div = win.shape[-1] if exclusive else int(np.prod(k))
            out[(Ellipsis,) + o] = win.sum(-1) / div
    return out


def adaptive_pool_ref(x, out_size, kind):
    sp = x.shape[2:]
    out = np.zeros(x.shape[:2] + tuple(out_size))
    for o in np.ndindex(*out_size):
        sl = tuple(slice(int(math.floor(o[i] * sp[i] / out_size[i])),
                         int(math.ceil((o[i] + 1) * sp[i] / out_size[i])))
                   for i in range(len(sp)))
        win = x[(Ellipsis,) + sl].reshape(x.shape[:2] + (-1,))
        out[(Ellipsis,) + o] = win.max(-1) if kind == 'max' else win.mean(-1)
    return out


def norm_ref(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def softmax_ref(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


_erf = np.vectorize(math.erf)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


# ---- Linear --------------------------------------------------------------------------------

def test_linear_forward_and_grads():
    fc = nn.Linear(3, 4)
    x = _f64(5, 3).astype('float32')
    np.testing.assert_allclose(fc(_t(x)).numpy(), x @ fc.weight.numpy() + fc.bias.numpy(),
                               rtol=1e-5, atol=1e-6)
    assert fc(_t(_f64(2, 6, 3).astype('float32'))).shape == [2, 6, 4]
    check_grads(nn.Linear(3, 4), _f64(2, 3))
    check_grads(nn.Linear(3, 2, bias_attr=False), _f64(2, 3))


def test_linear_matches_torch():
    torch = pytest.importorskip('torch')
    fc = nn.Linear(6, 3)
    tfc = torch.nn.Linear(6, 3)
    with torch.no_grad():
        tfc.weight.copy_(torch.from_numpy(fc.weight.numpy().T))
        tfc.bias.copy_(torch.from_numpy(fc.bias.numpy()))
    x = _f64(4, 6).astype('float32')
    np.testing.assert_allclose(fc(_t(x)).numpy(), tfc(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


# ---- convolutions ------------------------------------------------------------------------

CONV_CASES = [
    # (layer class, ctor kwargs, input shape)
    (nn.Conv2D, dict(in_channels=2, out_channels=4, kernel_size=3), (2, 2, 6, 5)),
    (nn.Conv2D, dict(in_channels=4, out_channels=6, kernel_size=(3, 2), stride=2, padding=1,
                     groups=2), (1, 4, 7, 6)),
    (nn.Conv2D, dict(in_channels=2, out_channels=2, kernel_size=2, dilation=2, padding=[1, 2],
                     bias_attr=False), (1, 2, 6, 6)),
    (nn.Conv1D, dict(in_channels=3, out_channels=2, kernel_size=3, stride=2, padding=1),
     (2, 3, 9)),
]


@pytest.mark.parametrize('cls,kw,shape', CONV_CASES)
def test_conv_forward_matches_reference(cls, kw, shape):
    conv = cls(**kw)
    x = _f64(*shape)
    n = len(shape) - 2
    pad = kw.get('padding', 0)
    pad = [pad] * n if isinstance(pad, int) else list(pad)
    stride = kw.get('stride', 1)
    dil = kw.get('dilation', 1)
    ref = conv_nd_ref(x, _np(conv.weight), None if conv.bias is None else _np(conv.bias),
                      [stride] * n, pad, [dil] * n, kw.get('groups', 1))
    out = conv(_t(x.astype('float32')))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)


def test_conv2d_nhwc_equals_nchw():
    a = nn.Conv2D(3, 4, 3, padding=1)
    b = nn.Conv2D(3, 4, 3, padding=1, data_format='NHWC')
    b.set_state_dict(a.state_dict())
    x = _f64(2, 3, 5, 5).astype('float32')
    out = b(_t(x.transpose(0, 2, 3, 1))).numpy().transpose(0, 3, 1, 2)
    np.testing.assert_allclose(out, a(_t(x)).numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('mode', ['reflect', 'replicate', 'circular'])
def test_conv2d_padding_modes_match_torch(mode):
    torch = pytest.importorskip('torch')
    conv = nn.Conv2D(2, 3, 3, padding=1, padding_mode=mode)
    tconv = torch.nn.Conv2d(2, 3, 3, padding=1, padding_mode=mode)
    with torch.no_grad():
        tconv.weight.copy_(torch.from_numpy(conv.weight.numpy()))
        tconv.bias.copy_(torch.from_numpy(conv.bias.numpy()))
    x = _f64(1, 2, 5, 6).astype('float32')
    np.testing.assert_allclose(conv(_t(x)).numpy(),
                               tconv(torch.from_numpy(x)).detach().numpy(), rtol=1e-5,
                               atol=1e-5)


TRANSPOSE_CASES = [
    (nn.Conv2DTranspose, dict(in_channels=2, out_channels=3, kernel_size=3), (1, 2, 4, 3)),
    (nn.Conv2DTranspose, dict(in_channels=4, out_channels=2, kernel_size=3, stride=2,
                              padding=1, output_padding=1, groups=2), (2, 4, 3, 3)),
    (nn.Conv2DTranspose, dict(in_channels=2, out_channels=2, kernel_size=2, dilation=2),
     (1, 2, 3, 3)),
    (nn.Conv1DTranspose, dict(in_channels=3, out_channels=2, kernel_size=3, stride=2),
     (2, 3, 4)),
]


@pytest.mark.parametrize('cls,kw,shape', TRANSPOSE_CASES)
def test_conv_transpose_forward_matches_reference(cls, kw, shape):
    conv = cls(**kw)
    n = len(shape) - 2
    x = _f64(*shape)
    ref = conv_transpose_nd_ref(x, _np(conv.weight), _np(conv.bias), [kw.get('stride', 1)] * n,
                                [kw.get('padding', 0)] * n, [kw.get('output_padding', 0)] * n,
                                [kw.get('dilation', 1)] * n, kw.get('groups', 1))
    out = conv(_t(x.astype('float32')))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)


def test_conv_transpose_output_size():
    conv = nn.Conv2DTranspose(2, 2, 3, stride=2)
    x = _t(_f64(1, 2, 4, 4).astype('float32'))
    assert conv(x).shape == [1, 2, 9, 9]
    assert conv(x, output_size=[10, 10]).shape == [1, 2, 10, 10]


def test_conv_matches_torch():
    torch = pytest.importorskip('torch')
    conv = nn.Conv2D(4, 6, 3, stride=2, padding=1, groups=2)
    tconv = torch.nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2)
    up = nn.Conv2DTranspose(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
    tup = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
    with torch.no_grad():
        for ours, theirs in ((conv, tconv), (up, tup)):
            theirs.weight.copy_(torch.from_numpy(ours.weight.numpy()))
            theirs.bias.copy_(torch.from_numpy(ours.bias.numpy()))
    x = _f64(2, 4, 7, 7).astype('float32')
    for ours, theirs in ((conv, tconv), (up, tup)):
        np.testing.assert_allclose(ours(_t(x)).numpy(),
                                   theirs(torch.from_numpy(x)).detach().numpy(), rtol=1e-4,
                                   atol=1e-5)


@pytest.mark.parametrize('cls,kw,shape', [
    (nn.Conv2D, dict(in_channels=2, out_channels=2, kernel_size=2, stride=1, padding=1,
                     groups=2), (1, 2, 3, 3)),
    (nn.Conv1D, dict(in_channels=2, out_channels=3, kernel_size=2, padding=1), (2, 2, 4)),
    (nn.Conv2DTranspose, dict(in_channels=2, out_channels=2, kernel_size=2, stride=2),
     (1, 2, 2, 3)),
])
def test_conv_grads(cls, kw, shape):
    check_grads(cls(**kw), _f64(*shape))


def test_conv_argument_errors():
    with pytest.raises(ValueError, match='divisible by groups'):
        nn.Conv2D(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match='data_format'):
        nn.Conv2D(3, 4, 3, data_format='NCL')
    with pytest.raises(ValueError, match='padding_mode'):
        nn.Conv2D(3, 4, 3, padding_mode='mirror')
    with pytest.raises(ValueError, match='weight_attr'):
        nn.Conv2D(3, 4, 3, weight_attr=False)
    with pytest.raises(ValueError, match='4-D input'):
        nn.Conv2D(3, 4, 3)(paddle.ones([3, 5, 5]))
    assert nn.Conv2D(3, 4, 3, bias_attr=False).bias is None


def test_conv_repr():
    assert repr(nn.Conv2D(3, 8, 3, stride=2, padding=1)) == \
        'Conv2D(3, 8, kernel_size=[3, 3], stride=[2, 2], padding=1, data_format=NCHW)'


# ---- pooling ---------------------------------------------------------------------------

POOL_CASES = [
    (lambda: nn.MaxPool2D(2), (2, 3, 6, 5), 'max', [2, 2], [2, 2], [0, 0]),
    (lambda: nn.MaxPool2D(3, stride=2, padding=1), (1, 2, 7, 6), 'max', [3, 3], [2, 2], [1, 1]),
    (lambda: nn.AvgPool2D(2, stride=1), (1, 2, 4, 5), 'avg', [2, 2], [1, 1], [0, 0]),
    (lambda: nn.AvgPool2D(3, stride=2, padding=1), (1, 2, 7, 7), 'avg', [3, 3], [2, 2], [1, 1]),
    (lambda: nn.MaxPool1D(3, stride=2, padding=1), (2, 3, 9), 'max', [3], [2], [1]),
    (lambda: nn.AvgPool1D(2), (2, 3, 8), 'avg', [2], [2], [0]),
]


@pytest.mark.parametrize('make,shape,kind,k,s,p', POOL_CASES)
def test_pool_forward_and_grads(make, shape, kind, k, s, p):
    x = _f64(*shape)
    out = make()(_t(x))
    np.testing.assert_allclose(out.numpy(), pool_ref(x, k, s, p, kind), rtol=1e-6, atol=1e-7)
    small = tuple(shape[:1]) + (1,) + tuple(shape[2:])
    check_grads(make(), _f64(*small))


def test_avg_pool_inclusive_padding():
    x = _f64(1, 1, 5, 5)
    out = nn.AvgPool2D(3, stride=2, padding=1, exclusive=False)(_t(x))
    np.testing.assert_allclose(out.numpy(), pool_ref(x, [3, 3], [2, 2], [1, 1], 'avg', False),
                               rtol=1e-6)


def test_max_pool_return_mask():
    x = _f64(1, 1, 4, 4)
    out, mask = nn.MaxPool2D(2, return_mask=True)(_t(x))
    flat = x.reshape(-1)
    np.testing.assert_allclose(flat[mask.numpy().reshape(-1)], out.numpy().reshape(-1))


@pytest.mark.parametrize('make,shape,out_size,kind', [
    (lambda: nn.AdaptiveAvgPool2D(1), (2, 3, 5, 7), (1, 1), 'avg'),
    (lambda: nn.AdaptiveAvgPool2D((2, 3)), (1, 2, 5, 7), (2, 3), 'avg'),
    (lambda: nn.AdaptiveMaxPool2D(3), (1, 2, 7, 5), (3, 3), 'max'),
    (lambda: nn.AdaptiveAvgPool1D(3), (2, 2, 7), (3,), 'avg'),
    (lambda: nn.AdaptiveMaxPool1D(2), (2, 2, 5), (2,), 'max'),
])
def test_adaptive_pool_forward_and_grads(make, shape, out_size, kind):
    x = _f64(*shape)
    np.testing.assert_allclose(make()(_t(x)).numpy(), adaptive_pool_ref(x, out_size, kind),
                               rtol=1e-6, atol=1e-7)
    check_grads(make(), _f64(*(shape[:1] + (1,) + shape[2:])))


def test_pools_match_torch():
    torch = pytest.importorskip('torch')
    x = _f64(2, 3, 9, 8).astype('float32')
    tx = torch.from_numpy(x)
    pairs = [(nn.MaxPool2D(3, 2, 1), torch.nn.MaxPool2d(3, 2, 1)),
             (nn.AvgPool2D(2, 2), torch.nn.AvgPool2d(2, 2)),
             (nn.AdaptiveAvgPool2D((4, 3)), torch.nn.AdaptiveAvgPool2d((4, 3))),
             (nn.AdaptiveMaxPool2D((2, 5)), torch.nn.AdaptiveMaxPool2d((2, 5)))]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours(_t(x)).numpy(), theirs(tx).numpy(), rtol=1e-5,
                                   atol=1e-6)


# ---- normalisation -----------------------------------------------------------------------

def test_batch_norm_2d_train_updates_running_stats_and_eval_uses_them():
    bn = nn.BatchNorm2D(3, momentum=0.8, epsilon=1e-3)
    with paddle.no_grad():
        bn.weight.set_value(np.array([1.0, 2.0, 0.5], 'float32'))
        bn.bias.set_value(np.array([0.0, -1.0, 1.0], 'float32'))
    x = _f64(4, 3, 2, 3)
    w, b = _np(bn.weight).reshape(1, 3, 1, 1), _np(bn.bias).reshape(1, 3, 1, 1)
    out = bn(_t(x.astype('float32')))
    np.testing.assert_allclose(out.numpy(), norm_ref(x, (0, 2, 3), 1e-3) * w + b,
                               rtol=1e-4, atol=1e-5)
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    np.testing.assert_allclose(bn._mean.numpy(), 0.2 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn._variance.numpy(), 0.8 + 0.2 * var, rtol=1e-5)
    bn.eval()
    x2 = _f64(2, 3, 2, 2)
    rm, rv = _np(bn._mean).reshape(1, 3, 1, 1), _np(bn._variance).reshape(1, 3, 1, 1)
    out = bn(_t(x2.astype('float32')))
    np.testing.assert_allclose(out.numpy(), (x2 - rm) / np.sqrt(rv + 1e-3) * w + b,
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(_np(bn._mean).reshape(1, 3, 1, 1), rm)   # eval: no update


def test_batch_norm_state_dict_and_statistics():
    bn = nn.BatchNorm1D(4)
    # as Paddle: the running statistics are parameters that are not trainable
    assert [(n, p.trainable) for n, p in bn.named_parameters()] == [
        ('weight', True), ('bias', True), ('_mean', False), ('_variance', False)]
    assert list(bn.state_dict()) == ['weight', 'bias', '_mean', '_variance']
    bn(_t(_f64(8, 4).astype('float32')))
    fresh = nn.BatchNorm1D(4)
    fresh.set_state_dict(bn.state_dict())
    np.testing.assert_array_equal(fresh._mean.numpy(), bn._mean.numpy())
    bn.eval()
    fresh.eval()
    x = _t(_f64(3, 4).astype('float32'))
    np.testing.assert_array_equal(fresh(x).numpy(), bn(x).numpy())


def test_batch_norm_variants():
    x = _f64(4, 3, 5)
    bn = nn.BatchNorm1D(3)
    np.testing.assert_allclose(bn(_t(x)).numpy(), norm_ref(x, (0, 2), 1e-5), rtol=1e-4,
                               atol=1e-5)
    nlc = nn.BatchNorm1D(3, data_format='NLC')
    np.testing.assert_allclose(nlc(_t(x.transpose(0, 2, 1))).numpy().transpose(0, 2, 1),
                               norm_ref(x, (0, 2), 1e-5), rtol=1e-4, atol=1e-5)
    # use_global_stats=True normalises with the running statistics even in training
    g = nn.BatchNorm1D(3, use_global_stats=True)
    np.testing.assert_allclose(g(_t(x)).numpy(), x / np.sqrt(1 + 1e-5), rtol=1e-5)
    # weight_attr=False: a fixed scale of ones, not trained
    fixed = nn.BatchNorm2D(2, weight_attr=False, bias_attr=False)
    assert fixed.weight.stop_gradient and fixed.bias.stop_gradient
    with pytest.raises(ValueError, match='4-D'):
        nn.BatchNorm2D(3)(_t(x))
    bn3 = nn.BatchNorm3D(2)
    x3 = _f64(2, 2, 2, 3, 2)
    np.testing.assert_allclose(bn3(_t(x3)).numpy(), norm_ref(x3, (0, 2, 3, 4), 1e-5),
                               rtol=1e-4, atol=1e-5)


def test_legacy_batch_norm_with_act_and_is_test():
    x = _f64(4, 2, 3, 3)
    bn = nn.BatchNorm(2, act='relu')
    np.testing.assert_allclose(bn(_t(x)).numpy(), np.maximum(norm_ref(x, (0, 2, 3), 1e-5), 0),
                               rtol=1e-4, atol=1e-5)
    frozen = nn.BatchNorm(2, is_test=True)
    np.testing.assert_allclose(frozen(_t(x)).numpy(), x / np.sqrt(1 + 1e-5), rtol=1e-5)
    assert frozen._mean.numpy().tolist() == [0.0, 0.0]
    x2 = _f64(6, 3)
    np.testing.assert_allclose(nn.BatchNorm(3)(_t(x2)).numpy(), norm_ref(x2, (0,), 1e-5),
                               rtol=1e-4, atol=1e-5)


def test_batch_norm_matches_torch_in_train_and_eval():
    torch = pytest.importorskip('torch')
    bn = nn.BatchNorm2D(3, momentum=0.9)
    tbn = torch.nn.BatchNorm2d(3, momentum=0.1).double()
    bn.to(dtype='float64')
    with torch.no_grad():
        tbn.weight.copy_(torch.tensor([1.5, 0.5, 2.0]))
        tbn.bias.copy_(torch.tensor([0.1, 0.2, 0.3]))
    bn.weight.set_value(np.array([1.5, 0.5, 2.0]))
    bn.bias.set_value(np.array([0.1, 0.2, 0.3]))
    x = _f64(4, 3, 3, 3)
    np.testing.assert_allclose(bn(_t(x)).numpy(), tbn(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(bn._mean.numpy(), tbn.running_mean.numpy(), rtol=1e-6)
    bn.eval()
    tbn.eval()
    with torch.no_grad():   # Paddle's running variance uses the biased batch variance
        tbn.running_var.copy_(torch.from_numpy(bn._variance.numpy()))
    np.testing.assert_allclose(bn(_t(x)).numpy(), tbn(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-6, atol=1e-7)


def test_batch_norm_grads():
    check_grads(nn.BatchNorm2D(2), _f64(3, 2, 2, 2))
    check_grads(nn.BatchNorm1D(2).eval(), _f64(3, 2))


def test_layer_norm():
    x = _f64(2, 3, 4)
    ln = nn.LayerNorm(4)
    np.testing.assert_allclose(ln(_t(x)).numpy(), norm_ref(x, (2,), 1e-5), rtol=1e-4,
                               atol=1e-5)
    ln2 = nn.LayerNorm([3, 4], epsilon=1e-3)
    with paddle.no_grad():
        ln2.weight.set_value(np.arange(12, dtype='float32'))
    assert ln2.weight.shape == [12]
    np.testing.assert_allclose(
        ln2(_t(x)).numpy(),
        norm_ref(x, (1, 2), 1e-3) * np.arange(12).reshape(3, 4), rtol=1e-4, atol=1e-5)
    assert nn.LayerNorm(4, weight_attr=False, bias_attr=False).weight is None
    check_grads(nn.LayerNorm(3), _f64(2, 3))


def test_group_norm_and_instance_norm():
    x = _f64(2, 4, 3, 2)
    gn = nn.GroupNorm(2, 4)
    ref = norm_ref(x.reshape(2, 2, -1), (2,), 1e-5).reshape(x.shape)
    np.testing.assert_allclose(gn(_t(x)).numpy(), ref, rtol=1e-4, atol=1e-5)
    inorm = nn.InstanceNorm2D(4)
    np.testing.assert_allclose(inorm(_t(x)).numpy(), norm_ref(x, (2, 3), 1e-5), rtol=1e-4,
                               atol=1e-5)
    x1 = _f64(2, 3, 5)
    np.testing.assert_allclose(nn.InstanceNorm1D(3)(_t(x1)).numpy(), norm_ref(x1, (2,), 1e-5),
                               rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match='divisible'):
        nn.GroupNorm(3, 4)
    check_grads(nn.GroupNorm(2, 4), _f64(2, 4, 2))
    check_grads(nn.InstanceNorm2D(2), _f64(1, 2, 2, 3))


def test_norms_match_torch():
    torch = pytest.importorskip('torch')
    x = _f64(2, 4, 3, 5)
    tx = torch.from_numpy(x)
    pairs = [(nn.LayerNorm([3, 5]), torch.nn.LayerNorm([3, 5]).double()),
             (nn.GroupNorm(2, 4), torch.nn.GroupNorm(2, 4).double()),
             (nn.InstanceNorm2D(4), torch.nn.InstanceNorm2d(4, affine=True).double())]
    for ours, theirs in pairs:
        ours.to(dtype='float64')
        np.testing.assert_allclose(ours(_t(x)).numpy(), theirs(tx).detach().numpy(),
                                   rtol=1e-6, atol=1e-7)


# ---- dropout -----------------------------------------------------------------------------

def test_dropout_train_and_eval():
    x = np.ones((200, 50), 'float32')
    drop = nn.Dropout(0.3)
    paddle.seed(0)
    out = drop(_t(x)).numpy()
    assert set(np.unique(out)) <= {0.0, np.float32(1 / 0.7)}
    assert abs((out == 0).mean() - 0.3) < 0.02
    drop.eval()
    np.testing.assert_array_equal(drop(_t(x)).numpy(), x)
    down = nn.Dropout(0.3, mode='downscale_in_infer')
    assert set(np.unique(down(_t(x)).numpy())) <= {0.0, 1.0}
    down.eval()
    np.testing.assert_allclose(down(_t(x)).numpy(), x * 0.7, rtol=1e-6)
    # a shared mask along the other axes
    out = nn.Dropout(0.5, axis=1)(_t(x)).numpy()
    assert np.all(out == out[:1])
    with pytest.raises(ValueError):
        nn.Dropout(1.5)
    assert repr(nn.Dropout(0.2)) == 'Dropout(p=0.2, axis=None, mode=upscale_in_train, inplace=False)'


def test_dropout_is_seeded_and_grads_follow_the_mask():
    x = _f64(4, 5)
    paddle.seed(3)
    a = nn.Dropout(0.5)(_t(x)).numpy()
    paddle.seed(3)
    b = nn.Dropout(0.5)(_t(x)).numpy()
    np.testing.assert_array_equal(a, b)
    check_grads(nn.Dropout(0.4), _f64(3, 4), seed=5)


def test_dropout2d_drops_whole_channels():
    x = np.ones((8, 6, 3, 3), 'float32')
    out = nn.Dropout2D(0.5)(_t(x)).numpy()
    per_channel = out.reshape(8, 6, -1)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))
    assert {0.0, 2.0} >= set(np.unique(out))
    d = nn.Dropout2D(0.5, data_format='NHWC')
    out = d(_t(x.transpose(0, 2, 3, 1))).numpy()
    assert np.all(out.min(axis=(1, 2)) == out.max(axis=(1, 2)))
    d.eval()
    np.testing.assert_array_equal(d(_t(x)).numpy(), x)
    out3 = nn.Dropout3D(0.5)(_t(np.ones((4, 3, 2, 2, 2), 'float32'))).numpy().reshape(4, 3, -1)
    assert np.all(out3.min(-1) == out3.max(-1))


def test_alpha_dropout_keeps_statistics():
    paddle.seed(1)
    x = RNG.standard_normal((400, 250)).astype('float32')
    out = nn.AlphaDropout(0.2)(_t(x)).numpy()
    assert abs(out.mean()) < 0.03 and abs(out.std() - 1) < 0.03
    layer = nn.AlphaDropout(0.2)
    layer.eval()
    np.testing.assert_array_equal(layer(_t(x)).numpy(), x)


# ---- embedding, shape layers, padding, upsampling -------------------------------------

def test_embedding_lookup_and_padding_grad():
    emb = nn.Embedding(6, 3, padding_idx=2)
    ids = np.array([[0, 2, 5], [2, 1, 1]], dtype='int64')
    out = emb(_t(ids))
    np.testing.assert_array_equal(out.numpy(), emb.weight.numpy()[ids])
    (out * 2).sum().backward()
    g = emb.weight.grad.numpy()
    assert np.all(g[2] == 0) and np.all(g[1] == 4) and np.all(g[0] == 2) and np.all(g[3] == 0)
    with pytest.raises(ValueError, match='padding_idx'):
        nn.Embedding(4, 2, padding_idx=4)
    assert repr(nn.Embedding(4, 2, padding_idx=1)) == 'Embedding(4, 2, padding_idx=1)'


def test_flatten_unflatten_identity():
    x = _t(_f64(2, 3, 4, 5))
    assert nn.Flatten()(x).shape == [2, 60]
    assert nn.Flatten(0, 2)(x).shape == [24, 5]
    assert nn.Unflatten(1, [3, 1])(x).shape == [2, 3, 1, 4, 5]
    ident = nn.Identity(54, unused='x')
    assert ident(x) is x
    check_grads(nn.Flatten(), _f64(2, 2, 3))


def test_pad_layers():
    x = _f64(1, 2, 3, 4)
    out = nn.Pad2D([1, 2, 0, 1], value=0.5)(_t(x)).numpy()
    np.testing.assert_array_equal(out, np.pad(x, [(0, 0), (0, 0), (0, 1), (1, 2)],
                                              constant_values=0.5))
    out = nn.Pad2D(1, mode='reflect')(_t(x)).numpy()
    np.testing.assert_array_equal(out, np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)],
                                              mode='reflect'))
    out = nn.Pad2D([1, 0, 2, 0], mode='replicate', data_format='NHWC')(
        _t(x.transpose(0, 2, 3, 1))).numpy()
    np.testing.assert_array_equal(out, np.pad(x.transpose(0, 2, 3, 1),
                                              [(0, 0), (2, 0), (1, 0), (0, 0)], mode='edge'))
    x1 = _f64(2, 3, 4)
    np.testing.assert_array_equal(nn.Pad1D([2, 1], mode='circular')(_t(x1)).numpy(),
                                  np.pad(x1, [(0, 0), (0, 0), (2, 1)], mode='wrap'))
    x3 = _f64(1, 1, 2, 2, 2)
    assert nn.Pad3D(1)(_t(x3)).shape == [1, 1, 4, 4, 4]
    assert nn.ZeroPad2D([1, 1, 1, 1])(_t(x)).shape == [1, 2, 5, 6]
    with pytest.raises(ValueError, match='4 ints'):
        nn.Pad2D([1, 2])
    check_grads(nn.Pad2D(1, mode='reflect'), _f64(1, 1, 3, 3))


def test_upsample_layers():
    x = _f64(1, 2, 2, 3)
    out = nn.Upsample(scale_factor=2)(_t(x)).numpy()
    np.testing.assert_array_equal(out, x.repeat(2, axis=2).repeat(2, axis=3))
    out = nn.UpsamplingNearest2D(size=[4, 6])(_t(x)).numpy()
    np.testing.assert_array_equal(out, x.repeat(2, axis=2).repeat(2, axis=3))
    # bilinear with align_corners=True: corners kept, linear in between
    x = np.arange(4, dtype='float64').reshape(1, 1, 2, 2)
    out = nn.UpsamplingBilinear2D(size=[3, 3])(_t(x)).numpy()
    np.testing.assert_allclose(out[0, 0], [[0, 0.5, 1], [1, 1.5, 2], [2, 2.5, 3]])
    with pytest.raises(ValueError, match='exactly one'):
        nn.Upsample()
    check_grads(nn.Upsample(scale_factor=2, mode='bilinear'), _f64(1, 1, 2, 2))


def test_upsample_matches_torch():
    torch = pytest.importorskip('torch')
    x = _f64(1, 2, 3, 4)
    tx = torch.from_numpy(x)
    ours = nn.Upsample(size=[5, 7], mode='bilinear', align_corners=True)(_t(x)).numpy()
    theirs = torch.nn.Upsample(size=(5, 7), mode='bilinear', align_corners=True)(tx).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)
    ours = nn.UpsamplingBilinear2D(scale_factor=2)(_t(x)).numpy()
    theirs = torch.nn.UpsamplingBilinear2d(scale_factor=2)(tx).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)


# ---- activations ---------------------------------------------------------------------------

ACTIVATIONS = [
    (nn.ReLU, {}, lambda x: np.maximum(x, 0)),
    (nn.ReLU6, {}, lambda x: np.clip(x, 0, 6)),
    (nn.LeakyReLU, dict(negative_slope=0.1), lambda x: np.where(x > 0, x, 0.1 * x)),
    (nn.ELU, dict(alpha=0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1))),
    (nn.CELU, dict(alpha=0.7),
     lambda x: np.maximum(x, 0) + np.minimum(0, 0.7 * (np.exp(x / 0.7) - 1))),
    (nn.SELU, {}, lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * (np.exp(x) - 1))),
    (nn.GELU, {}, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    (nn.GELU, dict(approximate=True), lambda x: 0.5 * x * (1 + np.tanh(
        math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    (nn.Sigmoid, {}, _sigmoid),
    (nn.Tanh, {}, np.tanh),
    (nn.Softmax, dict(axis=1), lambda x: softmax_ref(x, 1)),
    (nn.LogSoftmax, {}, lambda x: np.log(softmax_ref(x, -1))),
    (nn.SiLU, {}, lambda x: x * _sigmoid(x)),
    (nn.Swish, {}, lambda x: x * _sigmoid(x)),
    (nn.Hardswish, {}, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (nn.Hardsigmoid, {}, lambda x: np.clip(x * 0.1666667 + 0.5, 0, 1)),
    (nn.Hardtanh, dict(min=-0.5, max=0.7), lambda x: np.clip(x, -0.5, 0.7)),
    (nn.Hardshrink, dict(threshold=0.3), lambda x: np.where(np.abs(x) > 0.3, x, 0)),
    (nn.Softshrink, dict(threshold=0.3),
     lambda x: np.sign(x) * np.maximum(np.abs(x) - 0.3, 0)),
    (nn.Softplus, dict(beta=2, threshold=3), lambda x: _softplus(x, 2, 3)),
    (nn.Softsign, {}, lambda x: x / (1 + np.abs(x))),
    (nn.Mish, {}, lambda x: x * np.tanh(_softplus(x))),
    (nn.LogSigmoid, {}, lambda x: -np.log1p(np.exp(-x))),
    (nn.Tanhshrink, {}, lambda x: x - np.tanh(x)),
    (nn.ThresholdedReLU, dict(threshold=0.5), lambda x: np.where(x > 0.5, x, 0)),
    (nn.Maxout, dict(groups=2), lambda x: x.reshape(2, 2, 2, 3).max(axis=2)),
    (nn.GLU, dict(axis=1), lambda x: x[:, :2] * _sigmoid(x[:, 2:])),
    (nn.Softmax2D, {}, lambda x: softmax_ref(x, 1)),
]


@pytest.mark.parametrize('cls,kw,ref', ACTIVATIONS,
                         ids=['%s-%d' % (c.__name__, i) for i, (c, _, _) in enumerate(ACTIVATIONS)])
def test_activation_forward_and_grads(cls, kw, ref):
    x = RNG.uniform(-3, 3, (2, 4, 3))
    if cls is nn.Softmax2D:
        x = x[:, :, :, None]
    layer = cls(**kw)
    np.testing.assert_allclose(layer(_t(x)).numpy(), ref(x), rtol=1e-6, atol=1e-7)
    check_grads(cls(**kw), x)


def test_activation_positional_args_and_repr():
    assert nn.LeakyReLU(0.2)._kwargs == {'negative_slope': 0.2}
    assert repr(nn.LeakyReLU(0.2)) == 'LeakyReLU(negative_slope=0.2)'
    assert repr(nn.ReLU()) == 'ReLU()'
    nn.ReLU(True)                      # Paddle's only argument is `name` (torch's inplace)
    with pytest.raises(TypeError):
        nn.ReLU(True, 1)
    with pytest.raises(TypeError):
        nn.ELU(beta=2)


def test_activations_match_torch():
    torch = pytest.importorskip('torch')
    x = RNG.uniform(-3, 3, (3, 5))
    tx = torch.from_numpy(x)
    pairs = [(nn.GELU(), torch.nn.GELU()), (nn.GELU(True), torch.nn.GELU('tanh')),
             (nn.SELU(), torch.nn.SELU()), (nn.Mish(), torch.nn.Mish()),
             (nn.Hardswish(), torch.nn.Hardswish()), (nn.Softplus(), torch.nn.Softplus()),
             (nn.LogSigmoid(), torch.nn.LogSigmoid()), (nn.CELU(0.5), torch.nn.CELU(0.5)),
             (nn.LogSoftmax(), torch.nn.LogSoftmax(-1))]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours(_t(x)).numpy(), theirs(tx).numpy(), rtol=1e-6,
                                   atol=1e-7, err_msg=type(ours).__name__)


def test_prelu():
    x = RNG.uniform(-2, 2, (2, 3, 4))
    single = nn.PReLU()
    np.testing.assert_allclose(single(_t(x)).numpy(), np.where(x > 0, x, 0.25 * x), rtol=1e-6)
    per_channel = nn.PReLU(3, init=0.1)
    with paddle.no_grad():
        per_channel.weight.set_value(np.array([0.1, 0.2, 0.3], 'float32'))
    slopes = np.array([0.1, 0.2, 0.3]).reshape(1, 3, 1)
    np.testing.assert_allclose(per_channel(_t(x)).numpy(), np.where(x > 0, x, slopes * x),
                               rtol=1e-6)
    nlc = nn.PReLU(4, data_format='NLC')
    assert nlc(_t(x)).shape == [2, 3, 4]
    check_grads(nn.PReLU(3), x)
    assert 'num_parameters=3' in repr(per_channel)


# ---- losses ------------------------------------------------------------------------------

def _ce_ref(logits, label, weight=None, ignore_index=-100, reduction='mean'):
    logp = np.log(softmax_ref(logits, -1))
    w = np.ones(logits.shape[-1]) if weight is None else weight
    keep = label != ignore_index
    safe = np.where(keep, label, 0)
    per = -logp[np.arange(len(label)), safe] * w[safe] * keep
    if reduction == 'none':
        return per
    if reduction == 'sum':
        return per.sum()
    return per.sum() / (w[safe] * keep).sum()


def test_cross_entropy_loss():
    logits = _f64(6, 4)
    label = np.array([0, 3, 1, 1, 2, 3], 'int64')
    loss = nn.CrossEntropyLoss()
    np.testing.assert_allclose(loss(_t(logits), _t(label)).numpy(), _ce_ref(logits, label),
                               rtol=1e-6)
    np.testing.assert_allclose(loss(_t(logits), _t(label[:, None])).numpy(),
                               _ce_ref(logits, label), rtol=1e-6)
    w = np.array([1.0, 2.0, 0.5, 1.5])
    weighted = nn.CrossEntropyLoss(weight=_t(w), ignore_index=1, reduction='mean')
    np.testing.assert_allclose(weighted(_t(logits), _t(label)).numpy(),
                               _ce_ref(logits, label, w, ignore_index=1), rtol=1e-6)
    for red in ('sum', 'none'):
        np.testing.assert_allclose(nn.CrossEntropyLoss(reduction=red)(_t(logits), _t(label))
                                   .numpy().reshape(-1),
                                   np.reshape(_ce_ref(logits, label, reduction=red), -1),
                                   rtol=1e-6)
    soft = softmax_ref(_f64(6, 4), -1)
    np.testing.assert_allclose(
        nn.CrossEntropyLoss(soft_label=True)(_t(logits), _t(soft)).numpy(),
        np.mean(-(soft * np.log(softmax_ref(logits, -1))).sum(-1)), rtol=1e-6)
    probs = softmax_ref(logits, -1)
    np.testing.assert_allclose(
        nn.CrossEntropyLoss(use_softmax=False)(_t(probs), _t(label)).numpy(),
        _ce_ref(logits, label), rtol=1e-6)
    x3 = _f64(2, 3, 4)
    lab3 = np.array([[0, 2, 1, 1], [2, 2, 0, 1]], 'int64')
    ref = _ce_ref(np.moveaxis(x3, 1, -1).reshape(-1, 3), lab3.reshape(-1))
    np.testing.assert_allclose(nn.CrossEntropyLoss(axis=1)(_t(x3), _t(lab3)).numpy(), ref,
                               rtol=1e-6)
    check_grads(nn.CrossEntropyLoss(weight=_t(w)), _f64(3, 4), _t(np.array([0, 3, 2])))


def test_cross_entropy_matches_torch_including_label_smoothing():
    torch = pytest.importorskip('torch')
    logits = _f64(5, 4)
    label = np.array([0, 3, 1, 2, 2], 'int64')
    w = np.array([1.0, 2.0, 0.5, 1.5])
    for kw, tkw in [({}, {}), (dict(weight=_t(w)), dict(weight=torch.from_numpy(w))),
                    (dict(label_smoothing=0.1), dict(label_smoothing=0.1)),
                    (dict(ignore_index=2), dict(ignore_index=2))]:
        ours = nn.CrossEntropyLoss(**kw)(_t(logits), _t(label)).numpy()
        theirs = torch.nn.CrossEntropyLoss(**tkw)(torch.from_numpy(logits),
                                                 torch.from_numpy(label)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, err_msg=str(kw))


def test_regression_losses():
    a, b = _f64(3, 4), _f64(3, 4)
    d = a - b
    cases = [(nn.MSELoss(), d ** 2), (nn.L1Loss(), np.abs(d)),
             (nn.SmoothL1Loss(), np.where(np.abs(d) < 1, 0.5 * d ** 2, np.abs(d) - 0.5)),
             (nn.SmoothL1Loss(delta=0.5),
              np.where(np.abs(d) < 0.5, 0.5 * d ** 2, 0.5 * np.abs(d) - 0.125))]
    for loss, per in cases:
        np.testing.assert_allclose(loss(_t(a), _t(b)).numpy(), per.mean(), rtol=1e-6,
                                   err_msg=type(loss).__name__)
        loss.reduction = 'sum'
        np.testing.assert_allclose(loss(_t(a), _t(b)).numpy(), per.sum(), rtol=1e-6)
        loss.reduction = 'none'
        np.testing.assert_allclose(loss(_t(a), _t(b)).numpy(), per, rtol=1e-6)
    with pytest.raises(ValueError, match='reduction'):
        nn.MSELoss(reduction='avg')
    check_grads(nn.MSELoss(), _f64(2, 3), _t(_f64(2, 3)))
    check_grads(nn.SmoothL1Loss(), _f64(2, 3), _t(_f64(2, 3)))


def test_nll_loss():
    logp = np.log(softmax_ref(_f64(5, 3), -1))
    label = np.array([0, 2, 1, 1, 0])
    w = np.array([0.5, 1.0, 2.0])
    ref = -(logp[np.arange(5), label] * w[label]).sum() / w[label].sum()
    np.testing.assert_allclose(nn.NLLLoss(weight=_t(w))(_t(logp), _t(label)).numpy(), ref,
                               rtol=1e-6)
    keep = label != 0
    ref = -(logp[np.arange(5), label] * keep).sum() / keep.sum()
    np.testing.assert_allclose(nn.NLLLoss(ignore_index=0)(_t(logp), _t(label)).numpy(), ref,
                               rtol=1e-6)
    check_grads(nn.NLLLoss(), logp, _t(label))


def test_binary_losses():
    p = RNG.uniform(0.05, 0.95, (4, 3))
    y = (RNG.uniform(size=(4, 3)) > 0.5).astype('float64')
    w = RNG.uniform(0.5, 1.5, (4, 3))
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(nn.BCELoss()(_t(p), _t(y)).numpy(), bce.mean(), rtol=1e-6)
    np.testing.assert_allclose(nn.BCELoss(weight=_t(w), reduction='sum')(_t(p), _t(y)).numpy(),
                               (bce * w).sum(), rtol=1e-6)
    logit = _f64(4, 3)
    pos = np.array([1.0, 2.0, 0.5])
    s = _sigmoid(logit)
    ref = -(pos * y * np.log(s) + (1 - y) * np.log(1 - s)) * w
    np.testing.assert_allclose(
        nn.BCEWithLogitsLoss(weight=_t(w), pos_weight=_t(pos))(_t(logit), _t(y)).numpy(),
        ref.mean(), rtol=1e-6)
    check_grads(nn.BCELoss(), p, _t(y))
    check_grads(nn.BCEWithLogitsLoss(pos_weight=_t(pos)), logit, _t(y))


def test_kl_div_loss():
    x = np.log(softmax_ref(_f64(3, 4), -1))
    y = softmax_ref(_f64(3, 4), -1)
    per = y * (np.log(y) - x)
    for red, ref in (('mean', per.mean()), ('sum', per.sum()), ('batchmean', per.sum() / 3),
                     ('none', per)):
        np.testing.assert_allclose(nn.KLDivLoss(reduction=red)(_t(x), _t(y)).numpy(), ref,
                                   rtol=1e-6, err_msg=red)
    check_grads(nn.KLDivLoss(), x, _t(y))


def test_losses_match_torch():
    torch = pytest.importorskip('torch')
    a, b = _f64(3, 4), RNG.uniform(0.1, 0.9, (3, 4))
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    pairs = [(nn.MSELoss(), torch.nn.MSELoss()), (nn.L1Loss(), torch.nn.L1Loss()),
             (nn.SmoothL1Loss(), torch.nn.SmoothL1Loss()),
             (nn.BCEWithLogitsLoss(), torch.nn.BCEWithLogitsLoss())]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours(_t(a), _t(b)).numpy(), theirs(ta, tb).numpy(),
                                   rtol=1e-6, err_msg=type(ours).__name__)
    np.testing.assert_allclose(nn.BCELoss()(_t(b), _t(b ** 2)).numpy(),
                               torch.nn.BCELoss()(tb, tb ** 2).numpy(), rtol=1e-6)


# ---- train/eval switching inside a model ---------------------------------------------------

def test_model_eval_makes_dropout_and_batchnorm_deterministic():
    paddle.seed(0)
    net = nn.Sequential(nn.Conv2D(2, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(),
                        nn.Dropout(0.5), nn.Flatten(), nn.Linear(4 * 4 * 4, 3))
    x = _t(_f64(3, 2, 4, 4).astype('float32'))
    a, b = net(x).numpy(), net(x).numpy()
    assert not np.allclose(a, b)   # fresh dropout masks while training
    net.eval()
    a, b = net(x).numpy(), net(x).numpy()
    np.testing.assert_array_equal(a, b)
    stats = net[1]._mean.numpy().copy()
    net(x)
    np.testing.assert_array_equal(net[1]._mean.numpy(), stats)
    net.train()
    net(x)
    assert not np.array_equal(net[1]._mean.numpy(), stats)


def test_small_model_trains():
    paddle.seed(0)
    net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
    # a local generator: the data must not depend on which tests ran before
    x = np.random.default_rng(42).uniform(-1, 1, (64, 2)).astype('float32')
    y = (x[:, :1] * x[:, 1:]).astype('float32')
    loss_fn = nn.MSELoss()
    first = None
    for _ in range(300):
        loss = loss_fn(net(_t(x)), _t(y))
        first = first if first is not None else float(loss)
        net.clear_gradients()
        loss.backward()
        with paddle.no_grad():
            for p in net.parameters():
                p.set_value(p.numpy() - 0.5 * p.grad.numpy())
    assert float(loss) < 0.3 * first


# ---- further layers -------------------------------------------------------------------------

def test_pixel_shuffle():
    x = _f64(2, 8, 2, 3)
    out = nn.PixelShuffle(2)(_t(x)).numpy()
    ref = np.zeros((2, 2, 4, 6))
    for c in range(2):
        for i in range(2):
            for j in range(2):
                ref[:, c, i::2, j::2] = x[:, c * 4 + i * 2 + j]
    np.testing.assert_array_equal(out, ref)
    nhwc = nn.PixelShuffle(2, data_format='NHWC')(_t(x.transpose(0, 2, 3, 1))).numpy()
    np.testing.assert_array_equal(nhwc.transpose(0, 3, 1, 2), ref)
    with pytest.raises(ValueError, match='divisible'):
        nn.PixelShuffle(3)(_t(x))
    check_grads(nn.PixelShuffle(2), _f64(1, 4, 2, 2))


def test_bilinear_layer():
    layer = nn.Bilinear(3, 2, 4)
    assert layer.weight.shape == [4, 3, 2] and layer.bias.shape == [1, 4]
    x1, x2 = _f64(5, 3).astype('float32'), _f64(5, 2).astype('float32')
    ref = np.einsum('ni,kij,nj->nk', x1, _np(layer.weight), x2) + _np(layer.bias)
    np.testing.assert_allclose(layer(_t(x1), _t(x2)).numpy(), ref, rtol=1e-5, atol=1e-5)
    check_grads(nn.Bilinear(2, 2, 3), _f64(2, 2), _f64(2, 2))


def test_bilinear_and_pixel_shuffle_match_torch():
    torch = pytest.importorskip('torch')
    layer = nn.Bilinear(3, 2, 4)
    tl = torch.nn.Bilinear(3, 2, 4)
    with torch.no_grad():
        tl.weight.copy_(torch.from_numpy(layer.weight.numpy()))
        tl.bias.copy_(torch.from_numpy(layer.bias.numpy().reshape(-1)))
    x1, x2 = _f64(5, 3).astype('float32'), _f64(5, 2).astype('float32')
    np.testing.assert_allclose(layer(_t(x1), _t(x2)).numpy(),
                               tl(torch.from_numpy(x1), torch.from_numpy(x2)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    x = _f64(2, 18, 2, 2)
    np.testing.assert_array_equal(nn.PixelShuffle(3)(_t(x)).numpy(),
                                  torch.nn.PixelShuffle(3)(torch.from_numpy(x)).numpy())


def test_margin_and_hinge_losses():
    a, b = _f64(6), _f64(6)
    y = np.array([1, -1, 1, 1, -1, -1], 'float64')
    ref = np.maximum(0, -y * (a - b) + 0.3).mean()
    np.testing.assert_allclose(nn.MarginRankingLoss(0.3)(_t(a), _t(b), _t(y)).numpy(), ref,
                               rtol=1e-6)
    ref = np.where(y == 1, a, np.maximum(0, 1.5 - a)).sum()
    np.testing.assert_allclose(
        nn.HingeEmbeddingLoss(1.5, reduction='sum')(_t(a), _t(y)).numpy(), ref, rtol=1e-6)


def test_cosine_similarity_and_local_response_norm():
    x1, x2 = _f64(3, 4), _f64(3, 4)
    ref = (x1 * x2).sum(1) / np.sqrt((x1 ** 2).sum(1) * (x2 ** 2).sum(1))
    np.testing.assert_allclose(nn.CosineSimilarity()(_t(x1), _t(x2)).numpy(), ref, rtol=1e-6)
    x = _f64(2, 5, 3, 3)
    sq = np.pad(x ** 2, [(0, 0), (1, 1), (0, 0), (0, 0)])
    div = (2.0 + 1e-2 / 3 * (sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:])) ** 0.75
    np.testing.assert_allclose(nn.LocalResponseNorm(3, 1e-2, 0.75, 2.0)(_t(x)).numpy(),
                               x / div, rtol=1e-6)


def test_instance_norm_3d_and_sync_batch_norm():
    x = _f64(2, 3, 2, 2, 3)
    np.testing.assert_allclose(nn.InstanceNorm3D(3)(_t(x)).numpy(),
                               norm_ref(x, (2, 3, 4), 1e-5), rtol=1e-4, atol=1e-5)
    net = nn.Sequential(nn.Conv2D(2, 3, 1), nn.BatchNorm2D(3), nn.Sequential(nn.BatchNorm1D(3)))
    bn = net[1]
    synced = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert isinstance(synced[1], nn.SyncBatchNorm) and isinstance(synced[2][0],
                                                                  nn.SyncBatchNorm)
    assert synced[1].weight is bn.weight and synced[1]._mean is bn._mean
    h = net[0](_t(_f64(4, 2, 3, 3).astype('float32')))
    np.testing.assert_allclose(synced[1](h).numpy(), norm_ref(_np(h), (0, 2, 3), 1e-5),
                               rtol=1e-4, atol=1e-4)


def test_legacy_batch_norm_layouts_and_dtype():
    x = _f64(3, 4, 2, 2)
    bn = nn.BatchNorm(2, data_layout='NHWC', dtype='float64')
    assert bn.weight.dtype == paddle.float64
    np.testing.assert_allclose(bn(_t(x)).numpy(), norm_ref(x, (0, 1, 2), 1e-5), rtol=1e-6)
    with pytest.raises(ValueError, match='act'):
        nn.BatchNorm(2, act='nope')


# ---- the same layer classes under static program_guard ---------------------------------------

def _cnn():
    return nn.Sequential(nn.Conv2D(2, 3, 3, padding=1), nn.BatchNorm2D(3), nn.ReLU(),
                         nn.MaxPool2D(2), nn.Conv2DTranspose(3, 2, 2, stride=2),
                         nn.AdaptiveAvgPool2D(2), nn.Flatten(), nn.Linear(8, 4), nn.GELU(),
                         nn.Dropout(0.5), nn.LayerNorm(4))


def test_layers_build_static_programs_matching_eager():
    paddle.seed(0)
    eager = _cnn()
    eager(_t(_f64(4, 2, 6, 6).astype('float32')))   # move the running statistics
    eager.eval()
    x = _f64(2, 2, 6, 6).astype('float32')
    expect = eager(_t(x)).numpy()
    values = {k: v.numpy() for k, v in eager.state_dict().items()}
    scope = paddle.static.Scope()
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.scope_guard(scope), paddle.static.program_guard(main, startup):
            net = _cnn()
            net.eval()
            out = net(paddle.static.data('x', [None, 2, 6, 6], 'float32'))
            assert list(net.state_dict()) == list(values)
            exe = paddle.static.Executor()
            exe.run(startup)
            for key, var in net.state_dict().items():
                scope.var(var.name).get_tensor().set(values[key])
            got, = exe.run(main, feed={'x': x}, fetch_list=[out])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('make,inputs', [
    (lambda: nn.Conv1DTranspose(2, 2, 3, stride=2, padding=1, output_padding=1),
     lambda: [_f64(1, 2, 3)]),
    (lambda: nn.AvgPool2D(3, stride=2, padding=1, exclusive=False), lambda: [_f64(1, 1, 4, 4)]),
    (lambda: nn.Dropout2D(0.5), lambda: [_f64(2, 3, 2, 2)]),
    (lambda: nn.AlphaDropout(0.3), lambda: [_f64(3, 4)]),
    (lambda: nn.LocalResponseNorm(3), lambda: [_f64(1, 4, 2, 2)]),
    (lambda: nn.CosineSimilarity(axis=1), lambda: [_f64(2, 3), _f64(2, 3)]),
    (lambda: nn.Unflatten(1, [2, 3]), lambda: [_f64(2, 6)]),
    (lambda: nn.BatchNorm(2, act='tanh'), lambda: [_f64(3, 2, 2, 2)]),
    (lambda: nn.SyncBatchNorm(2), lambda: [_f64(3, 2, 2, 2)]),
    (lambda: nn.Embedding(5, 3, padding_idx=1), lambda: [_t(np.array([[0, 1, 4], [4, 2, 1]]))]),
    (lambda: nn.L1Loss(), lambda: [_f64(2, 3), _t(_f64(2, 3))]),
    (lambda: nn.MarginRankingLoss(0.2), lambda: [_f64(5), _f64(5),
                                                 _t(np.array([1., -1., 1., -1., 1.]))]),
    (lambda: nn.HingeEmbeddingLoss(), lambda: [_f64(5), _t(np.array([1., -1., 1., -1., -1.]))]),
    (lambda: nn.CrossEntropyLoss(soft_label=True), lambda: [_f64(3, 4),
                                                             _t(softmax_ref(_f64(3, 4)))]),
])
def test_more_layer_grads(make, inputs):
    check_grads(make(), *inputs())
