"""``paddle.nn.Parameter``: the class of every layer parameter (Paddle's
``EagerParamBase``). ``Parameter(tensor)``, ``Parameter(tensor,
requires_grad=False)`` and ``Parameter(shape_list, dtype)`` all build one."""
from ..dygraph.tensor import Parameter  # noqa: F401
