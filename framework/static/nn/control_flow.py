"""``paddle.static.nn.control_flow``: the control-flow ops (one op each, with
sub-blocks), kept in ``framework.graph.control_flow``."""
from ...graph.control_flow import case, cond, switch_case, while_loop  # noqa: F401

__all__ = ['case', 'cond', 'switch_case', 'while_loop']
