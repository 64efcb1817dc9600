"""Distances (Paddle's ``paddle.nn.functional.distance``)."""
from ...ops import creation as _creation, linalg_api as _linalg, manipulation as _manip
from ...ops.registry import OpError

__all__ = ['pairwise_distance', 'pdist']


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """The ``p``-norm of ``x - y + epsilon`` along the last axis (Paddle adds
    ``epsilon`` to the difference; ``p`` may be ``inf``, ``-inf`` or 0, the
    number of non-zero entries).

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.pairwise_distance(paddle.to_tensor([[3.0, 4.0]]), paddle.zeros([1, 2]),
    ...                     epsilon=0.0).numpy().tolist()
    [5.0]
    """
    if not isinstance(p, (int, float)):
        raise OpError("pairwise_distance: p must be a number, got %r" % (p,))
    diff = x - y
    if epsilon != 0.0:
        diff = diff + epsilon
    axis = -1 if len(diff.shape) else None
    return _linalg.norm(diff, p=float(p), axis=axis, keepdim=keepdim)


def pdist(x, p=2.0, name=None):
    """The ``p``-norm distances between every pair of rows of ``x`` ``[N, M]``:
    the ``N * (N - 1) / 2`` entries above the diagonal of the distance matrix,
    row by row.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.pdist(paddle.to_tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])).numpy().tolist()
    [5.0, 1.0, 4.242640495300293]
    """
    import numpy as np
    if len(x.shape) != 2:
        raise OpError("pdist: x must be 2-D [N, M], got shape %s" % list(x.shape))
    n = x.shape[0]
    i, j = np.triu_indices(n, 1)
    diff = _manip.gather(x, _creation.to_tensor(i)) - _manip.gather(x, _creation.to_tensor(j))
    return _linalg.norm(diff, p=float(p), axis=-1)
