"""paddle.tensor.top_p_sampling: nucleus draws by Paddle's GPU kernel rules
(its CPU build has no kernel), statistics, seeds, static mode and @to_static."""
import numpy as np
import pytest

import framework as paddle

PROBS = np.array([[0.5, 0.1, 0.3, 0.1], [0.05, 0.05, 0.2, 0.7]], np.float32)


def _frequencies(ids, rows, vocab):
    return np.stack([np.bincount(ids[:, r], minlength=vocab) / len(ids) for r in range(rows)])


def _draw(n, **kw):
    x = paddle.to_tensor(np.repeat(PROBS, n, axis=0))
    ps = paddle.to_tensor(np.tile(np.array(kw.pop('p'), np.float32), n).reshape(n, 2).T.ravel())
    _, ids = paddle.tensor.top_p_sampling(x, ps, **kw)
    return ids.numpy().reshape(2, n).T


def test_truncated_draws_follow_the_cut_distribution():
    paddle.seed(3)
    freq = _frequencies(_draw(4000, p=[0.6, 0.93]), 2, 4)
    # row 0 sorted 0.5 (id 0), 0.3 (id 2): mass 0.6 cut at p = 0.6 -> 5/6, 1/6
    np.testing.assert_allclose(freq[0], [5 / 6, 0, 1 / 6, 0], atol=0.03)
    # row 1: 0.7 (id 3), 0.2 (id 2), then 0.03 of id 0's 0.05 (a stable order) up to 0.93
    np.testing.assert_allclose(freq[1], np.array([0.03, 0, 0.2, 0.7]) / 0.93, atol=0.03)


def test_non_truncated_keeps_the_crossing_token_whole():
    paddle.seed(4)
    freq = _frequencies(_draw(4000, p=[0.6, 0.93], mode='non-truncated'), 2, 4)
    np.testing.assert_allclose(freq[0], [0.625, 0, 0.375, 0], atol=0.03)     # 0.5 : 0.3
    # row 1's nucleus: 0.7, 0.2, then all of id 0's 0.05 (it crosses 0.93)
    np.testing.assert_allclose(freq[1], np.array([0.05, 0, 0.2, 0.7]) / 0.95, atol=0.03)


def test_threshold_and_tiny_p():
    paddle.seed(5)
    ids = _draw(500, p=[0.99, 0.99], threshold=paddle.to_tensor(np.tile([0.25, 0.5], 500)
                                                                 .astype(np.float32)))
    assert set(ids[:, 0]) <= {0, 2} and set(ids[:, 1]) == {3}
    x = paddle.to_tensor(PROBS)
    for mode in ('truncated', 'non-truncated'):       # p <= first token: always the top one
        out, ids = paddle.tensor.top_p_sampling(x, paddle.to_tensor([-0.3, 0.1]), mode=mode)
        assert ids.numpy().ravel().tolist() == [0, 3] and ids.dtype == paddle.int64
        np.testing.assert_allclose(out.numpy().ravel(), [0.5, 0.7])


def test_return_top_and_seeds():
    x, ps = paddle.to_tensor(PROBS), paddle.to_tensor([0.9, 0.9])
    out, ids, scores, top_ids = paddle.tensor.top_p_sampling(x, ps, k=3, return_top=True)
    assert out.shape == [2, 1] and scores.shape == [2, 3]
    assert top_ids.numpy().tolist() == [[0, 2, 1], [3, 2, 0]]
    np.testing.assert_allclose(scores.numpy(), [[0.5, 0.3, 0.1], [0.7, 0.2, 0.05]])
    np.testing.assert_allclose(np.take_along_axis(PROBS, ids.numpy(), 1), out.numpy())
    big = paddle.to_tensor(np.tile(PROBS, (50, 1)))
    bps = paddle.full([100], 0.9)
    a = paddle.tensor.top_p_sampling(big, bps, seed=7)[1].numpy()
    assert (paddle.tensor.top_p_sampling(big, bps, seed=7)[1].numpy() == a).all()
    rows = paddle.to_tensor(np.arange(100, dtype=np.int64))
    b = x.top_p_sampling(ps, topp_seed=paddle.to_tensor([1, 2]))[1].numpy()
    assert (x.top_p_sampling(ps, topp_seed=paddle.to_tensor([1, 2]))[1].numpy() == b).all()
    assert paddle.tensor.top_p_sampling(big, bps, topp_seed=rows)[1].shape == [100, 1]


def test_bad_arguments():
    x = paddle.to_tensor(PROBS)
    with pytest.raises(ValueError, match="mode"):
        paddle.tensor.top_p_sampling(x, paddle.to_tensor([0.5, 0.5]), mode='greedy')
    with pytest.raises(ValueError, match="ps must have one entry per row"):
        paddle.tensor.top_p_sampling(x, paddle.to_tensor([0.5, 0.5, 0.5]))
    with pytest.raises(ValueError, match="k must be in"):
        paddle.tensor.top_p_sampling(x, paddle.to_tensor([0.5, 0.5]), k=5)
    with pytest.raises(ValueError, match="2"):
        paddle.tensor.top_p_sampling(paddle.ones([4]), paddle.to_tensor([0.5]))


def test_static_mode_and_to_static_match_eager():
    x, ps = paddle.to_tensor(PROBS), paddle.to_tensor([0.8, 0.8])

    def f(x, ps):
        return paddle.tensor.top_p_sampling(x, ps, seed=11, k=2, return_top=True)

    eager = [t.numpy() for t in f(x, ps)]
    converted = [t.numpy() for t in paddle.jit.to_static(f)(x, ps)]
    for e, c in zip(eager, converted):
        np.testing.assert_array_equal(e, c)
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            xv = paddle.static.data('x', [2, 4], 'float32')
            pv = paddle.static.data('ps', [2], 'float32')
            outs = f(xv, pv)
            assert outs[1].shape == (2, 1) or list(outs[1].shape) == [2, 1]
        exe = paddle.static.Executor()
        got = exe.run(main, feed={'x': PROBS, 'ps': np.array([0.8, 0.8], np.float32)},
                      fetch_list=list(outs))
    finally:
        paddle.disable_static()
    for e, g in zip(eager, got):
        np.testing.assert_array_equal(e, g)
