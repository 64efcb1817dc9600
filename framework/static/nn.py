"""``framework.static.nn``: control flow as single ops with sub-blocks."""
from .control_flow import case, cond, switch_case, while_loop  # noqa: F401

__all__ = ['cond', 'while_loop', 'case', 'switch_case']
