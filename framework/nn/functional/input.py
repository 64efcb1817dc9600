"""Input encodings (Paddle's ``paddle.nn.functional.input``)."""
from ...ops import manipulation as _manip
from ...ops.modes import in_static_mode
from ...ops.nn import embedding  # noqa: F401
from ...ops.registry import OpError

__all__ = ['embedding', 'one_hot']


def one_hot(x, num_classes=-1, name=None):
    """Float32 one-hot encoding of integer labels: a new last dim of size
    ``num_classes``; -1 (the default) means ``max(x) + 1``.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.one_hot(paddle.to_tensor([0, 2]), 3).numpy().tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    if num_classes is None or (isinstance(num_classes, int) and num_classes == -1):
        if in_static_mode():
            raise OpError("one_hot: num_classes=-1 (max(x) + 1) needs the values of x; give "
                          "num_classes explicitly in static mode")
        import numpy as np
        data = np.asarray(x.numpy())
        num_classes = int(data.max()) + 1 if data.size else 0
    return _manip.one_hot(x, num_classes)
