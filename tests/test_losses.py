"""Behaviour of the losses in framework.nn.functional (Paddle 2.x semantics),
against hand computations and, where the definitions agree, PyTorch."""
import numpy as np
import pytest

import framework as paddle
import framework.nn.functional as F
from framework.ops.registry import OpError

rng = np.random.default_rng(5)


def t(a, stop_gradient=True):
    return paddle.to_tensor(np.asarray(a), stop_gradient=stop_gradient)


def log_softmax(x, axis=-1):
    z = x - x.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


LOGITS = rng.standard_normal((6, 4))
LABELS = np.array([0, 3, 1, 1, 2, 3])


# ---- cross_entropy: hand computations ----------------------------------------------

def test_cross_entropy_hard_labels_mean_sum_none():
    nll = -log_softmax(LOGITS)[np.arange(6), LABELS]
    x, y = t(LOGITS), t(LABELS)
    assert F.cross_entropy(x, y).shape == []
    np.testing.assert_allclose(F.cross_entropy(x, y).numpy(), nll.mean(), rtol=1e-12)
    np.testing.assert_allclose(F.cross_entropy(x, y, reduction='sum').numpy(), nll.sum(),
                               rtol=1e-12)
    none = F.cross_entropy(x, y, reduction='none')
    assert none.shape == [6]
    np.testing.assert_allclose(none.numpy(), nll, rtol=1e-12)
    # labels shaped [N, 1] give a [N, 1] unreduced loss, as in Paddle
    none1 = F.cross_entropy(x, t(LABELS.reshape(6, 1)), reduction='none')
    assert none1.shape == [6, 1]
    np.testing.assert_allclose(none1.numpy()[:, 0], nll, rtol=1e-12)


def test_cross_entropy_class_weights_use_paddles_weighted_mean():
    w = np.array([0.5, 2.0, 1.0, 3.0])
    nll = -log_softmax(LOGITS)[np.arange(6), LABELS]
    expect = (w[LABELS] * nll).sum() / w[LABELS].sum()
    np.testing.assert_allclose(F.cross_entropy(t(LOGITS), t(LABELS), weight=t(w)).numpy(),
                               expect, rtol=1e-12)
    np.testing.assert_allclose(
        F.cross_entropy(t(LOGITS), t(LABELS), weight=t(w), reduction='none').numpy(),
        w[LABELS] * nll, rtol=1e-12)


def test_cross_entropy_ignore_index():
    labels = LABELS.copy()
    labels[[1, 4]] = -1
    nll = -log_softmax(LOGITS)[np.arange(6), np.where(labels < 0, 0, labels)]
    keep = labels >= 0
    np.testing.assert_allclose(
        F.cross_entropy(t(LOGITS), t(labels), ignore_index=-1).numpy(), nll[keep].mean(),
        rtol=1e-12)
    none = F.cross_entropy(t(LOGITS), t(labels), ignore_index=-1, reduction='none').numpy()
    np.testing.assert_array_equal(none[~keep], 0)
    # everything ignored: 0 rather than nan
    assert F.cross_entropy(t(LOGITS), t(np.full(6, -1)), ignore_index=-1).item() == 0.0


def test_cross_entropy_soft_labels_with_and_without_weight():
    soft = rng.uniform(0.1, 1, (6, 4))
    soft /= soft.sum(1, keepdims=True)
    per = -(soft * log_softmax(LOGITS)).sum(1)
    np.testing.assert_allclose(
        F.cross_entropy(t(LOGITS), t(soft), soft_label=True).numpy(), per.mean(), rtol=1e-12)
    w = np.array([0.5, 2.0, 1.0, 3.0])
    sw = soft @ w                          # Paddle: per-sample weight label @ weight
    np.testing.assert_allclose(
        F.cross_entropy(t(LOGITS), t(soft), weight=t(w), soft_label=True).numpy(),
        (per * sw).sum() / sw.sum(), rtol=1e-12)
    none = F.cross_entropy(t(LOGITS), t(soft), soft_label=True, reduction='none')
    assert none.shape == [6, 1]


def test_cross_entropy_without_softmax_takes_probabilities():
    probs = np.exp(log_softmax(LOGITS))
    a = F.cross_entropy(t(LOGITS), t(LABELS))
    b = F.cross_entropy(t(probs), t(LABELS), use_softmax=False)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_cross_entropy_on_another_axis():
    x = rng.standard_normal((2, 3, 5))
    y = rng.integers(0, 3, (2, 5))
    lsm = log_softmax(x, axis=1)
    nll = -np.take_along_axis(lsm, y[:, None, :], axis=1)[:, 0]
    np.testing.assert_allclose(F.cross_entropy(t(x), t(y), axis=1, reduction='none').numpy(),
                               nll, rtol=1e-12)


def test_cross_entropy_label_smoothing():
    eps = 0.1
    target = np.full((6, 4), eps / 4)
    target[np.arange(6), LABELS] += 1 - eps
    expect = -(target * log_softmax(LOGITS)).sum(1).mean()
    np.testing.assert_allclose(
        F.cross_entropy(t(LOGITS), t(LABELS), label_smoothing=eps).numpy(), expect, rtol=1e-12)


def test_cross_entropy_is_numerically_stable():
    x = np.array([[1000.0, 0.0, -1000.0], [-1e4, 1e4, 0.0]])
    out = F.cross_entropy(t(x), t(np.array([0, 0])), reduction='none').numpy()
    np.testing.assert_allclose(out, [0.0, 2e4])
    xt = paddle.to_tensor(x, stop_gradient=False)
    F.cross_entropy(xt, t(np.array([0, 0]))).backward()
    assert np.all(np.isfinite(xt.grad.numpy()))


def test_cross_entropy_grad_hand_computed():
    w = np.array([0.5, 2.0, 1.0, 3.0])
    x = paddle.to_tensor(LOGITS, stop_gradient=False)
    F.cross_entropy(x, t(LABELS), weight=t(w)).backward()
    p = np.exp(log_softmax(LOGITS))
    onehot = np.eye(4)[LABELS]
    expect = (p - onehot) * w[LABELS][:, None] / w[LABELS].sum()
    np.testing.assert_allclose(x.grad.numpy(), expect, rtol=1e-10)


def test_cross_entropy_double_grad_matches_finite_differences():
    x0 = rng.standard_normal((3, 4))
    v = rng.standard_normal((3, 4))
    y = t(np.array([1, 0, 3]))

    def gv(a):
        xa = paddle.to_tensor(a, stop_gradient=False)
        (g,) = paddle.grad(F.cross_entropy(xa, y, label_smoothing=0.1), [xa], create_graph=True)
        return g, xa

    g, xa = gv(x0)
    (hv,) = paddle.grad((g * t(v)).sum(), [xa])
    eps = 1e-6
    fd = (gv(x0 + eps * v)[0].numpy() - gv(x0 - eps * v)[0].numpy()) / (2 * eps)
    np.testing.assert_allclose(hv.numpy(), fd, rtol=1e-5, atol=1e-8)


def test_softmax_with_cross_entropy_keeps_the_class_axis():
    loss = F.softmax_with_cross_entropy(t(LOGITS), t(LABELS.reshape(6, 1)))
    assert loss.shape == [6, 1]
    nll = -log_softmax(LOGITS)[np.arange(6), LABELS]
    np.testing.assert_allclose(loss.numpy()[:, 0], nll, rtol=1e-12)
    loss, sm = F.softmax_with_cross_entropy(t(LOGITS), t(LABELS), return_softmax=True)
    assert loss.shape == [6, 1]
    np.testing.assert_allclose(sm.numpy(), np.exp(log_softmax(LOGITS)), rtol=1e-12)


# ---- cross_entropy: errors -----------------------------------------------------------

def test_cross_entropy_label_out_of_range_names_api_and_class_count():
    with pytest.raises(OpError, match=r'cross_entropy: label value 4 is out of range: the '
                                      r'input has 4 classes'):
        F.cross_entropy(t(LOGITS), t(np.array([0, 1, 4, 0, 0, 0])))
    with pytest.raises(OpError, match='cross_entropy.*label value -2'):
        F.cross_entropy(t(LOGITS), t(np.array([0, 1, -2, 0, 0, 0])))


def test_cross_entropy_shape_mismatch_names_both_shapes():
    with pytest.raises(OpError, match=r'cross_entropy: label of shape \[5\] does not match '
                                      r'input of shape \[6, 4\]'):
        F.cross_entropy(t(LOGITS), t(np.zeros(5, np.int64)))
    with pytest.raises(OpError, match=r'soft labels must have the input.s shape \[6, 4\]'):
        F.cross_entropy(t(LOGITS), t(np.ones((6, 3))), soft_label=True)
    with pytest.raises(OpError, match=r'weight must have shape \[4\]'):
        F.cross_entropy(t(LOGITS), t(LABELS), weight=t(np.ones(3)))
    with pytest.raises(OpError, match='reduction'):
        F.cross_entropy(t(LOGITS), t(LABELS), reduction='avg')


# ---- cross_entropy and nll vs PyTorch ---------------------------------------------------

def test_cross_entropy_vs_torch_values_and_grads():
    torch = pytest.importorskip('torch')
    tF = torch.nn.functional
    w = rng.uniform(0.5, 2, 4)
    labels = LABELS.copy()
    labels[2] = 1
    soft = rng.uniform(0.1, 1, (6, 4))
    soft /= soft.sum(1, keepdims=True)
    cases = [
        (dict(), dict()),
        (dict(weight=w), dict(weight=w)),
        (dict(ignore_index=1), dict(ignore_index=1)),
        (dict(weight=w, ignore_index=1, reduction='sum'),
         dict(weight=w, ignore_index=1, reduction='sum')),
        (dict(label_smoothing=0.2), dict(label_smoothing=0.2)),
        (dict(reduction='none'), dict(reduction='none')),
    ]
    for ours_kw, torch_kw in cases:
        x = paddle.to_tensor(LOGITS, stop_gradient=False)
        kw = {k: (t(v) if k == 'weight' else v) for k, v in ours_kw.items()}
        out = F.cross_entropy(x, t(labels), **kw)
        out.sum().backward()
        tx = torch.tensor(LOGITS, requires_grad=True)
        tkw = {k: (torch.tensor(v) if k == 'weight' else v) for k, v in torch_kw.items()}
        ref = tF.cross_entropy(tx, torch.tensor(labels), **tkw)
        ref.sum().backward()
        np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10,
                                   err_msg=str(ours_kw))
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=str(ours_kw))
    # soft labels (no weight: torch weights soft targets differently)
    x = paddle.to_tensor(LOGITS, stop_gradient=False)
    F.cross_entropy(x, t(soft), soft_label=True).backward()
    tx = torch.tensor(LOGITS, requires_grad=True)
    tF.cross_entropy(tx, torch.tensor(soft)).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10)


def test_nll_loss_vs_torch():
    torch = pytest.importorskip('torch')
    x = log_softmax(rng.standard_normal((3, 4, 2, 2)), axis=1)
    y = rng.integers(0, 4, (3, 2, 2))
    w = rng.uniform(0.5, 2, 4)
    for kw in (dict(), dict(weight=w), dict(ignore_index=2, reduction='sum'),
               dict(weight=w, reduction='none')):
        xt = paddle.to_tensor(x, stop_gradient=False)
        ours = F.nll_loss(xt, t(y), **{k: (t(v) if k == 'weight' else v) for k, v in kw.items()})
        ours.sum().backward()
        tx = torch.tensor(x, requires_grad=True)
        ref = torch.nn.functional.nll_loss(
            tx, torch.tensor(y), **{k: (torch.tensor(v) if k == 'weight' else v)
                                    for k, v in kw.items()})
        ref.sum().backward()
        np.testing.assert_allclose(ours.numpy(), ref.detach().numpy(), rtol=1e-10)
        np.testing.assert_allclose(xt.grad.numpy(), tx.grad.numpy(), rtol=1e-10)


def test_nll_loss_errors():
    with pytest.raises(OpError, match=r'nll_loss: label of shape \[3\] does not match input '
                                      r'of shape \[2, 4\]'):
        F.nll_loss(t(np.zeros((2, 4))), t(np.zeros(3, np.int64)))
    with pytest.raises(OpError, match='nll_loss: label value 9 is out of range'):
        F.nll_loss(t(np.zeros((2, 4))), t(np.array([0, 9])))


# ---- elementwise losses ----------------------------------------------------------------

def test_regression_losses_hand_computed():
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    d = x - y
    np.testing.assert_allclose(F.mse_loss(t(x), t(y)).numpy(), (d ** 2).mean(), rtol=1e-12)
    np.testing.assert_allclose(F.l1_loss(t(x), t(y), 'sum').numpy(), abs(d).sum(), rtol=1e-12)
    delta = 0.5
    hub = np.where(abs(d) < delta, 0.5 * d ** 2, delta * abs(d) - 0.5 * delta ** 2)
    np.testing.assert_allclose(F.smooth_l1_loss(t(x), t(y), 'none', delta).numpy(), hub,
                               rtol=1e-12)
    np.testing.assert_allclose(F.square_error_cost(t(x), t(y)).numpy(), d ** 2, rtol=1e-12)


def test_bce_and_bce_with_logits_hand_computed():
    p = rng.uniform(0.05, 0.95, (4, 3))
    y = (rng.uniform(size=(4, 3)) > 0.5).astype(float)
    w = rng.uniform(0.5, 2, 3)
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(F.binary_cross_entropy(t(p), t(y), t(w)).numpy(),
                               (bce * w).mean(), rtol=1e-12)
    logit = np.log(p / (1 - p))
    pw = rng.uniform(0.5, 3, 3)
    bcel = -(pw * y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(
        F.binary_cross_entropy_with_logits(t(logit), t(y), pos_weight=t(pw),
                                           reduction='sum').numpy(), bcel.sum(), rtol=1e-10)


def test_bce_with_logits_is_stable_and_bce_clamps_logs():
    logit = t(np.array([-1000.0, 1000.0, 0.0]))
    y = t(np.array([1.0, 0.0, 1.0]))
    out = F.binary_cross_entropy_with_logits(logit, y, reduction='none').numpy()
    np.testing.assert_allclose(out, [1000.0, 1000.0, np.log(2)])
    out = F.binary_cross_entropy(t(np.array([0.0, 1.0])), t(np.array([1.0, 0.0])),
                                 reduction='none').numpy()
    np.testing.assert_allclose(out, [100.0, 100.0])


def test_kl_div_definition_and_reductions():
    x = log_softmax(rng.standard_normal((4, 3)))
    y = np.exp(log_softmax(rng.standard_normal((4, 3))))
    y[0, 0] = 0.0
    elem = np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), 0)
    np.testing.assert_allclose(F.kl_div(t(x), t(y), 'none').numpy(), elem, rtol=1e-12)
    np.testing.assert_allclose(F.kl_div(t(x), t(y)).numpy(), elem.mean(), rtol=1e-12)
    np.testing.assert_allclose(F.kl_div(t(x), t(y), 'batchmean').numpy(), elem.sum() / 4,
                               rtol=1e-12)
    with pytest.raises(OpError, match='kl_div: reduction'):
        F.kl_div(t(x), t(y), 'avg')


def test_elementwise_losses_vs_torch():
    torch = pytest.importorskip('torch')
    tF = torch.nn.functional
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    p = rng.uniform(0.05, 0.95, (3, 4))
    yb = rng.uniform(size=(3, 4))
    w, pw = rng.uniform(0.5, 2, 4), rng.uniform(0.5, 2, 4)
    lab = np.sign(rng.standard_normal((3, 4)))
    T = torch.tensor
    pairs = [
        (lambda a: F.mse_loss(a, t(y)), lambda a: tF.mse_loss(a, T(y)), x),
        (lambda a: F.l1_loss(a, t(y), 'sum'), lambda a: tF.l1_loss(a, T(y), reduction='sum'), x),
        (lambda a: F.smooth_l1_loss(a, t(y), delta=0.7),
         lambda a: tF.huber_loss(a, T(y), delta=0.7), x),
        (lambda a: F.binary_cross_entropy(a, t(yb), t(w)),
         lambda a: tF.binary_cross_entropy(a, T(yb), T(w)), p),
        (lambda a: F.binary_cross_entropy_with_logits(a, t(yb), t(w), 'none', t(pw)),
         lambda a: tF.binary_cross_entropy_with_logits(a, T(yb), T(w), reduction='none',
                                                       pos_weight=T(pw)), x),
        (lambda a: F.kl_div(a, t(p), 'batchmean'),
         lambda a: tF.kl_div(a, T(p), reduction='batchmean'), x),
        (lambda a: F.margin_ranking_loss(a, t(y), t(lab), 0.3),
         lambda a: tF.margin_ranking_loss(a, T(y), T(lab), 0.3), x),
        (lambda a: F.hinge_embedding_loss(a, t(lab), 0.5),
         lambda a: tF.hinge_embedding_loss(a, T(lab), 0.5), x),
    ]
    for ours, theirs, inp in pairs:
        a = paddle.to_tensor(inp, stop_gradient=False)
        out = ours(a)
        out.sum().backward()
        ta = torch.tensor(inp, requires_grad=True)
        ref = theirs(ta)
        ref.sum().backward()
        np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10)
        np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_sigmoid_focal_loss_hand_computed():
    logit = rng.standard_normal((3, 2))
    y = (rng.uniform(size=(3, 2)) > 0.5).astype(float)
    p = 1 / (1 + np.exp(-logit))
    ce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    p_t = p * y + (1 - p) * (1 - y)
    a_t = 0.25 * y + 0.75 * (1 - y)
    expect = (a_t * (1 - p_t) ** 2 * ce).sum()
    np.testing.assert_allclose(F.sigmoid_focal_loss(t(logit), t(y)).numpy(), expect, rtol=1e-10)


def test_losses_train_a_tiny_classifier():
    """cross_entropy + linear + backward in a loop decreases the loss."""
    x = t(rng.standard_normal((32, 5)).astype(np.float32))
    y = t(rng.integers(0, 3, 32))
    w = paddle.to_tensor(np.zeros((5, 3), np.float32), stop_gradient=False)
    b = paddle.to_tensor(np.zeros(3, np.float32), stop_gradient=False)
    losses = []
    for _ in range(20):
        loss = F.cross_entropy(F.linear(x, w, b), y)
        loss.backward()
        losses.append(loss.item())
        with paddle.no_grad():
            w.set_value(w.numpy() - 0.5 * w.grad.numpy())
            b.set_value(b.numpy() - 0.5 * b.grad.numpy())
        w.clear_grad()
        b.clear_grad()
    assert losses[-1] < losses[0] - 0.1
    assert loss.dtype == paddle.float32
