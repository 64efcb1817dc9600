"""Optimisation passes over a Program copy, run by the executor before codegen.

Each pass is a function ``(program, feed_names, fetch_names) -> None`` that
mutates the program in place and must keep results identical (tests compare
runs with and without each pass on random programs). ``PASSES`` lists them in
order with the ``BuildStrategy`` switch that enables each.
"""
PASSES = []   # (strategy attribute, pass function), appended by the pass modules


def register_pass(switch):
    def wrap(fn):
        PASSES.append((switch, fn))
        return fn
    return wrap


def run_passes(program, feed_names, fetch_names, strategy):
    for switch, fn in PASSES:
        if getattr(strategy, switch, True):
            fn(program, feed_names, fetch_names)


# registration order is run order: simplify, then move, then fuse, then clean
# up, then plan buffers
from . import constant_fold, identity, cse, hoist, fuse, dce, inplace  # noqa: E402,F401
