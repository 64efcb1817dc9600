"""The static core: the Program IR (Program / Block / Operator / Variable),
static backward, control-flow ops, the passes and the verifier, code
generation and the executor, and the files a program is saved as.

It sits on the op registry (``framework/ops/``) beside eager mode
(``framework/dygraph/``), which it never imports; Paddle's user-facing static
API (``paddle.static``: ``static.nn``, parameter creation, EMA, metrics,
``save_inference_model``) is ``framework/static/``, built on this package from
above ``nn``. Importing it installs static mode's handler into
``ops/modes.py`` (``program``) and registers the control-flow ops
(``control_flow``).
"""
from . import program  # noqa: F401  (installs static_append into ops.modes)
from . import control_flow  # noqa: F401  (registers cond / while / while_grad)
from . import executor, passes  # noqa: F401
