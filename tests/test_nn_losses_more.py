"""The losses beyond cross entropy / MSE: values against numpy references
written from the definitions, gradients by finite differences, static and
@to_static agreement, the loss layers, and errors."""
import itertools
import math

import numpy as np
import pytest

import framework as paddle
import framework.nn as nn
import framework.nn.functional as F

from nn_check import check_grads, check_modes

rng = np.random.default_rng(23)
X = rng.standard_normal((4, 5))
Y = rng.standard_normal((4, 5))
LAB = np.array([1, 4, 0, 2])
PM = np.where(rng.random((4, 5)) > 0.5, 1.0, -1.0)


def t(a):
    return paddle.to_tensor(a)


def red(v, reduction):
    return {'mean': np.mean, 'sum': np.sum, 'none': lambda a: a}[reduction](v)


@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
def test_margin_and_logistic_losses_match_numpy(reduction):
    np.testing.assert_allclose(F.soft_margin_loss(t(X), t(PM), reduction).numpy(),
                               red(np.log1p(np.exp(-PM * X)), reduction), rtol=1e-12)
    y01 = (PM > 0) * 1.0
    sig = 1 / (1 + np.exp(-X))
    want = -(y01 * np.log(sig) + (1 - y01) * np.log(1 - sig)).mean(-1)
    np.testing.assert_allclose(
        F.multi_label_soft_margin_loss(t(X), t(y01), reduction=reduction).numpy(),
        red(want, reduction), rtol=1e-10)
    # multi-class hinge: sum over i != y of max(0, margin - x_y + x_i)^p / C
    for p, margin in ((1, 1.0), (2, 0.7)):
        w = rng.uniform(0.5, 2, 5)
        want = np.array([sum(w[y] * max(0.0, margin - x[y] + x[i]) ** p
                             for i in range(5) if i != y) / 5 for x, y in zip(X, LAB)])
        np.testing.assert_allclose(
            F.multi_margin_loss(t(X), t(LAB), p=p, margin=margin, weight=t(w),
                                reduction=reduction).numpy(), red(want, reduction), rtol=1e-10)


def test_multi_label_margin_loss_targets_end_at_minus_one():
    label = np.array([[3, 0, -1, 1, 2], [1, 4, 2, -1, -1], [-1, 2, 3, 0, 0], [0, 1, 2, 3, 4]])
    want = []
    for x, lab in zip(X, label):
        targets = list(itertools.takewhile(lambda v: v != -1, lab))
        others = [i for i in range(5) if i not in targets]
        want.append(sum(max(0.0, 1 - (x[j] - x[i])) for j in targets for i in others) / 5)
    np.testing.assert_allclose(F.multi_label_margin_loss(t(X), t(label), 'none').numpy(),
                               want, rtol=1e-12)
    assert nn.MultiLabelMarginLoss('sum')(t(X), t(label)).shape == []


def test_embedding_distance_losses():
    lab = np.array([1, -1, 1, -1])
    cos = (X * Y).sum(1) / np.sqrt(((X ** 2).sum(1) + 1e-11) * ((Y ** 2).sum(1) + 1e-11))
    want = np.where(lab == 1, 1 - cos, np.maximum(cos - 0.2, 0))
    np.testing.assert_allclose(F.cosine_embedding_loss(t(X), t(Y), t(lab), 0.2, 'none').numpy(),
                               want, rtol=1e-10)
    neg = rng.standard_normal((4, 5))

    def dist(a, b, p=2.0):
        return (np.abs(a - b + 1e-6) ** p).sum(-1) ** (1 / p)
    want = np.maximum(dist(X, Y) - np.minimum(dist(X, neg), dist(Y, neg)) + 1.0, 0).mean()
    assert np.isclose(float(F.triplet_margin_loss(t(X), t(Y), t(neg), swap=True)), want)
    assert np.isclose(float(nn.TripletMarginLoss(p=1.0)(t(X), t(Y), t(neg))),
                      np.maximum(dist(X, Y, 1) - dist(X, neg, 1) + 1, 0).mean())

    def l1(a, b):
        return paddle.sum(paddle.abs(a - b), -1)
    got = F.triplet_margin_with_distance_loss(t(X), t(Y), t(neg), distance_function=l1,
                                              margin=0.5, reduction='none').numpy()
    np.testing.assert_allclose(got, np.maximum(np.abs(X - Y).sum(1) - np.abs(X - neg).sum(1)
                                               + 0.5, 0))
    np.testing.assert_allclose(F.pairwise_distance(t(X), t(Y), p=3.0).numpy(), dist(X, Y, 3))


def test_likelihood_losses():
    var = rng.uniform(0.1, 2, (4, 5))
    want = 0.5 * (np.log(var) + (X - Y) ** 2 / var)
    np.testing.assert_allclose(F.gaussian_nll_loss(t(X), t(Y), t(var), reduction='none').numpy(),
                               want, rtol=1e-12)
    full = F.gaussian_nll_loss(t(X), t(Y), t(var[:, :1]), full=True, reduction='sum').numpy()
    assert np.isclose(full, (0.5 * (np.log(var[:, :1]) + (X - Y) ** 2 / var[:, :1])
                             + 0.5 * math.log(2 * math.pi)).sum())
    rate = rng.uniform(0, 3, (4, 5))
    np.testing.assert_allclose(F.poisson_nll_loss(t(X), t(rate), reduction='none').numpy(),
                               np.exp(X) - rate * X, rtol=1e-12)
    lam = rng.uniform(0.1, 3, (4, 5))
    stirling = rate * np.log(rate) - rate + 0.5 * np.log(2 * math.pi * rate)
    want = lam - rate * np.log(lam + 1e-8) + np.where(rate > 1, stirling, 0)
    np.testing.assert_allclose(F.poisson_nll_loss(t(lam), t(rate), log_input=False, full=True,
                                                  reduction='none').numpy(), want, rtol=1e-10)
    p = rng.uniform(0.05, 0.95, (6, 1))
    y = (rng.random((6, 1)) > 0.5) * 1.0
    np.testing.assert_allclose(F.log_loss(t(p), t(y)).numpy(),
                               -y * np.log(p + 1e-4) - (1 - y) * np.log(1 - p + 1e-4))
    probs = rng.dirichlet(np.ones(4), size=(3, 2))
    lab = rng.integers(0, 4, (3, 2, 1))
    onehot = np.eye(4)[lab[..., 0]]
    inter = (probs * onehot).sum((1, 2))
    want = np.mean(1 - 2 * inter / (probs.sum((1, 2)) + onehot.sum((1, 2)) + 1e-5))
    assert np.isclose(float(F.dice_loss(t(probs), t(lab))), want)


def test_npair_loss_closed_form():
    a, p = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    labels = np.array([1, 2, 1, 3])
    same = (labels[:, None] == labels[None, :]) * 1.0
    target = same / same.sum(1, keepdims=True)
    sim = a @ p.T
    logsm = sim - np.log(np.exp(sim).sum(1, keepdims=True))
    ce = -(target * logsm).sum(1)
    want = 0.25 * 0.002 * ((a ** 2).sum(1).mean() + (p ** 2).sum(1).mean()) + \
        (target * ce[:, None]).sum(0).mean()
    assert np.isclose(float(F.npair_loss(t(a), t(p), t(labels))), want)


def test_gaussian_nll_passes_no_gradient_to_variance_as_paddle():
    var = paddle.to_tensor(np.array([0.5, 2.0]), stop_gradient=False)
    x = paddle.to_tensor(np.array([1.0, 2.0]), stop_gradient=False)
    F.gaussian_nll_loss(x, paddle.zeros([2], 'float64'), var).backward()
    assert var.grad is None
    np.testing.assert_allclose(x.grad.numpy(), [1.0 / 0.5, 2.0 / 2.0] / np.array(2.0))


def test_composed_losses_gradients_and_modes():
    neg = rng.standard_normal((4, 5))
    rate = rng.uniform(0, 3, (4, 5))

    def f(x, y):
        return (F.soft_margin_loss(x, paddle.sign(y))
                + F.multi_margin_loss(x, paddle.to_tensor(LAB))
                + F.cosine_embedding_loss(x, y, paddle.to_tensor(np.array([1, -1, 1, -1])))
                + F.triplet_margin_loss(x, y, paddle.to_tensor(neg))
                + F.poisson_nll_loss(x, paddle.to_tensor(rate))
                + F.multi_label_soft_margin_loss(x, (y > 0).astype(x.dtype)))
    check_grads(f, [X, Y], wrt=[0])
    check_modes(f, [X, Y])

    def g(x, var):
        return F.gaussian_nll_loss(x, paddle.to_tensor(Y), var, reduction='sum')
    check_grads(g, [X, rng.uniform(0.5, 1.5, (4, 5))], wrt=[0])


def _ctc_brute(logits, labels, blank):
    """-log sum over every path collapsing to the labels, from the definition."""
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    total = 0.0
    for path in itertools.product(range(logits.shape[1]), repeat=logits.shape[0]):
        out, prev = [], None
        for k in path:
            if k != prev and k != blank:
                out.append(k)
            prev = k
        if out == list(labels):
            total += math.exp(sum(lp[i, k] for i, k in enumerate(path)))
    return -math.log(total)


def test_ctc_loss_against_all_alignments():
    logits = rng.standard_normal((5, 2, 3))
    labels = np.array([[1, 2], [2, 2]], 'int32')
    ilen, llen = np.array([5, 4]), np.array([2, 2])
    loss = F.ctc_loss(t(logits), t(labels), t(ilen), t(llen), reduction='none').numpy()
    want = [_ctc_brute(logits[:5, 0], [1, 2], 0), _ctc_brute(logits[:4, 1], [2, 2], 0)]
    np.testing.assert_allclose(loss, want, rtol=1e-10)
    mean = F.ctc_loss(t(logits), t(labels), t(ilen), t(llen)).numpy()
    assert np.isclose(mean, np.mean(np.array(want) / llen))
    assert np.isclose(float(nn.CTCLoss(reduction='sum')(t(logits), t(labels), t(ilen), t(llen))),
                      sum(want))
    # blank not 0; a sample whose labels cannot fit its length gives 0 (as warpctc)
    l2 = F.ctc_loss(t(logits), t(np.array([[0, 0], [1, 1]], 'int32')), t(np.array([5, 2])),
                    t(np.array([2, 2])), blank=2, reduction='none').numpy()
    np.testing.assert_allclose(l2, [_ctc_brute(logits[:, 0], [0, 0], 2), 0.0], rtol=1e-10)

    def f(x):
        return F.ctc_loss(x, paddle.to_tensor(labels), paddle.to_tensor(ilen),
                          paddle.to_tensor(llen))
    check_grads(f, [logits])
    check_modes(f, [logits])
    with pytest.raises(ValueError, match='ctc_loss.*blank'):
        F.ctc_loss(t(logits), t(np.array([[0, 1], [1, 1]], 'int32')), t(ilen), t(llen))


def _rnnt_brute(lp, labels, blank):
    """-log of the sum over every lattice path: T blanks and U labels in order."""
    t_len, u_len = lp.shape[0], len(labels)
    total = 0.0
    for steps in itertools.combinations(range(t_len + u_len - 1), u_len):
        ti = ui = 0
        s = 0.0
        for step in range(t_len + u_len - 1):
            if step in steps:
                s += lp[ti, ui, labels[ui]]
                ui += 1
            else:
                s += lp[ti, ui, blank]
                ti += 1
        total += math.exp(s + lp[t_len - 1, u_len, blank])
    return -math.log(total)


def test_rnnt_loss_against_all_lattice_paths():
    logits = rng.standard_normal((2, 4, 3, 5))
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    labels = np.array([[1, 2], [3, 0]], 'int32')
    ilen, llen = np.array([4, 3], 'int32'), np.array([2, 1], 'int32')
    loss = F.rnnt_loss(t(lp), t(labels), t(ilen), t(llen), reduction='none').numpy()
    want = [_rnnt_brute(lp[0, :4, :3], [1, 2], 0), _rnnt_brute(lp[1, :3, :2], [3], 0)]
    np.testing.assert_allclose(loss, want, rtol=1e-10)
    assert np.isclose(float(nn.RNNTLoss()(t(lp), t(labels), t(ilen), t(llen))), sum(want) / 2)

    def f(x):
        return F.rnnt_loss(x, paddle.to_tensor(labels), paddle.to_tensor(ilen),
                           paddle.to_tensor(llen), fastemit_lambda=0.0)
    check_grads(f, [lp])
    check_modes(f, [lp])
    # FastEmit scales the label gradients only; the loss stays
    x = paddle.to_tensor(lp, stop_gradient=False)
    F.rnnt_loss(x, t(labels), t(ilen), t(llen), fastemit_lambda=0.5).backward()
    g_fe = x.grad.numpy()
    x.clear_grad()
    F.rnnt_loss(x, t(labels), t(ilen), t(llen), fastemit_lambda=0.0).backward()
    assert not np.allclose(g_fe, x.grad.numpy())
    np.testing.assert_allclose(g_fe[..., 0], x.grad.numpy()[..., 0])     # blank column


def _hsig_ref(x, label, num_classes, w, b):
    """Per sample: sum of binary log-losses along the default tree's path, plus
    log 2 for every step the path is shorter than the tree's depth."""
    depth = (num_classes - 1).bit_length()
    out = []
    for xi, c in zip(x, label):
        code = int(c) + num_classes
        length = code.bit_length() - 1
        s = 0.0
        for j in range(depth):
            if j < length:
                node, bit = (code >> (j + 1)) - 1, (code >> j) & 1
                z = xi @ w[node] + b[node, 0]
                s += math.log1p(math.exp(z)) - bit * z
            else:
                s += math.log(2)
        out.append([s])
    return np.array(out)


def test_hsigmoid_loss_default_and_custom_tree():
    x = rng.standard_normal((4, 3))
    w, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 1))
    label = np.array([0, 3, 5, 2])
    np.testing.assert_allclose(F.hsigmoid_loss(t(x), t(label), 6, t(w), t(b)).numpy(),
                               _hsig_ref(x, label, 6, w, b), rtol=1e-10)
    table = np.array([[0, 1, -1], [2, -1, -1]])
    code = np.array([[1, 0, 0], [0, 0, 0]])
    wc, bc = rng.standard_normal((4, 3)), rng.standard_normal((4, 1))
    got = F.hsigmoid_loss(t(x[:2]), t(label[:2]), 4, t(wc), t(bc), t(table), t(code)).numpy()
    z = [x[0] @ wc[0] + bc[0, 0], x[0] @ wc[1] + bc[1, 0], x[1] @ wc[2] + bc[2, 0]]
    want = [math.log1p(math.exp(z[0])) - z[0] + math.log1p(math.exp(z[1])) + math.log(2),
            math.log1p(math.exp(z[2])) + 2 * math.log(2)]
    np.testing.assert_allclose(got.ravel(), want, rtol=1e-10)
    layer = nn.HSigmoidLoss(3, 6)
    assert layer.weight.shape == [5, 3] and layer(t(x.astype('float32')), t(label)).shape == [4, 1]

    def f(x, w, b):
        return F.hsigmoid_loss(x, paddle.to_tensor(label), 6, w, b)
    check_grads(f, [x, w, b])
    check_modes(f, [x, w, b])


def test_adaptive_log_softmax_with_loss():
    x = rng.standard_normal((6, 8))
    labels = np.array([0, 3, 5, 9, 12, 2])
    hw = rng.standard_normal((8, 6))
    tails = [[rng.standard_normal((8, 2)), rng.standard_normal((2, 5))],
             [rng.standard_normal((8, 1)), rng.standard_normal((1, 4))]]
    out, loss = F.adaptive_log_softmax_with_loss(t(x), t(labels), t(hw),
                                                 [[t(a), t(b)] for a, b in tails], [4, 9, 13])

    def lsm(z):
        return z - np.log(np.exp(z).sum(-1, keepdims=True))
    head = lsm(x @ hw)
    want = []
    for i, c in enumerate(labels):
        if c < 4:
            want.append(head[i, c])
        else:
            k = 0 if c < 9 else 1
            lo = [4, 9][k]
            want.append(head[i, 4 + k] + lsm(x[i] @ tails[k][0] @ tails[k][1])[c - lo])
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10)
    assert np.isclose(float(loss), -np.mean(want))
    layer = nn.AdaptiveLogSoftmaxWithLoss(8, 13, [4, 9], div_value=2.0, head_bias=True)
    xs = t(x.astype('float32'))
    full = layer.log_prob(xs).numpy()
    np.testing.assert_allclose(np.exp(full).sum(1), 1, rtol=1e-5)
    o, _ = layer(xs, t(labels))
    np.testing.assert_allclose(o.numpy(), full[np.arange(6), labels], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(layer.predict(xs).numpy(), full.argmax(1))
    with pytest.raises(ValueError, match='cutoffs'):
        nn.AdaptiveLogSoftmaxWithLoss(8, 13, [9, 4])

    def f(x, hw):
        return F.adaptive_log_softmax_with_loss(
            x, paddle.to_tensor(labels), hw, [[paddle.to_tensor(a), paddle.to_tensor(b)]
                                              for a, b in tails], [4, 9, 13])[1]
    check_grads(f, [x, hw])
    check_modes(f, [x, hw])


def test_margin_cross_entropy_arcface_formula():
    cos = rng.uniform(-0.9, 0.9, (4, 6))
    label = np.array([0, 5, 2, 2])
    m1, m2, m3, s = 1.0, 0.5, 0.1, 8.0
    z = cos.copy()
    z[np.arange(4), label] = np.cos(m1 * np.arccos(cos[np.arange(4), label]) + m2) - m3
    z *= s
    lsm = z - np.log(np.exp(z).sum(1, keepdims=True))
    want = -lsm[np.arange(4), label]
    loss, sm = F.margin_cross_entropy(t(cos), t(label), m1, m2, m3, s, return_softmax=True,
                                      reduction=None)
    np.testing.assert_allclose(loss.numpy().ravel(), want, rtol=1e-10)
    np.testing.assert_allclose(sm.numpy(), np.exp(lsm), rtol=1e-10)

    def f(x):
        return F.margin_cross_entropy(x, paddle.to_tensor(label), scale=4.0)
    check_grads(f, [cos])
    check_modes(f, [cos])


def test_loss_layers_wrap_the_functionals():
    neg = rng.standard_normal((4, 5))
    assert np.isclose(float(nn.SoftMarginLoss()(t(X), t(PM))),
                      float(F.soft_margin_loss(t(X), t(PM))))
    assert np.isclose(float(nn.MultiMarginLoss(p=2)(t(X), t(LAB))),
                      float(F.multi_margin_loss(t(X), t(LAB), p=2)))
    assert np.isclose(float(nn.CosineEmbeddingLoss(0.1)(t(X), t(Y), t(np.array([1, -1, 1, 1])))),
                      float(F.cosine_embedding_loss(t(X), t(Y), t(np.array([1, -1, 1, 1])), 0.1)))
    assert np.isclose(float(nn.GaussianNLLLoss()(t(X), t(Y), t(np.ones((4, 5))))),
                      float(F.gaussian_nll_loss(t(X), t(Y), t(np.ones((4, 5))))))
    assert np.isclose(float(nn.PoissonNLLLoss()(t(X), t(np.ones((4, 5))))),
                      float(F.poisson_nll_loss(t(X), t(np.ones((4, 5))))))
    assert nn.TripletMarginWithDistanceLoss(reduction='none')(t(X), t(Y), t(neg)).shape == [4]
    assert nn.MultiLabelSoftMarginLoss(reduction='sum')(t(X), t((PM > 0) * 1.0)).shape == []
    with pytest.raises(ValueError, match='reduction'):
        F.soft_margin_loss(t(X), t(PM), 'avg')
    with pytest.raises(ValueError, match='margin'):
        nn.CosineEmbeddingLoss(margin=2)
