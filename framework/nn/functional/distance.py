"""Distances (Paddle's ``paddle.nn.functional.distance``)."""
from ...ops.registry import OpError

__all__ = ['pairwise_distance']


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """The ``p``-norm of ``x - y + epsilon`` along the last axis (Paddle adds
    ``epsilon`` to the difference; ``p`` may be ``inf``, ``-inf`` or 0, the
    number of non-zero entries).

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.pairwise_distance(paddle.to_tensor([[3.0, 4.0]]), paddle.zeros([1, 2]),
    ...                     epsilon=0.0).numpy().tolist()
    [5.0]
    """
    import framework as ops
    if not isinstance(p, (int, float)):
        raise OpError("pairwise_distance: p must be a number, got %r" % (p,))
    diff = x - y
    if epsilon != 0.0:
        diff = diff + epsilon
    axis = -1 if len(diff.shape) else None
    return ops.linalg.norm(diff, p=float(p), axis=axis, keepdim=keepdim)
