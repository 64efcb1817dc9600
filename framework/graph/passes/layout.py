"""Layout planning: activations stay in the backend's own memory layout
between consecutive ops that have a layout kernel on it.

oneDNN's convolutions, pooling and normalizations run fastest on blocked
layouts (``nChw16c``...); their kernels in eager mode reorder from NCHW and
back at every call (``backends/onednn/core.py``). In a static plan on such a
backend this pass marks, in the global block, each variable that
(a) one op writes through an output its layout kernel ``gives``
    (``OpDef.def_layout_kernel``, ``applies`` to that op), and
(b) every reader reads only through inputs its own layout kernel ``takes``
    (and which ``applies`` there, with the outputs it ``drops`` unread),
(c) is private to the run: not fed, fetched, persistable, captured, named in
    attributes or read in a sub-block.
Such a value is left opaque (a ``backends.Opaque``) by its writer and read
as such by its readers: the reorders happen only at the edges, where a value
enters from or leaves to anything else. Every op involved gets ``op_layout``
(the outputs it leaves opaque, possibly none): the code generator calls its
layout kernel (``OpDef.layout_kernel_for``), which falls back to the op's
kernel on plain arrays where it declines, so a plan never depends on oneDNN
accepting a shape.

``crossing`` names the feeds and fetches that may pass the plan's boundary
opaque: a training step's saved values, which its forward plan fetches and
its backward plan is fed, and nobody else sees (``dy2static/partial_program.py``).
Such a fetch may stay opaque as (c) allows for a private value; such a feed
may arrive opaque, so either every reader takes it (and is marked), or the
plan makes it plain as it enters (``program._plain_on_entry``, which the
code generator reads).
"""
from ...ops import registry
from .analysis import Usage, is_structural


def _rule(op, block, backend):
    """The op's layout kernel on ``backend`` where it applies, else None."""
    if is_structural(op) or not registry.has_op(op.type):
        return None
    rule = registry.lookup(op.type).layout_kernels.get(backend)
    if rule is None or not rule.applies(op, block):
        return None
    return rule


def _reads_through(op, name, slots):
    """Whether ``op`` reads ``name`` only through inputs ``slots``."""
    return all(slot in slots for slot, names in op.inputs.items() if name in names)


def _taken_by_all(name, readers, usage, rules, block, writer=None):
    """Whether every op of ``readers`` reads ``name`` through its layout
    kernel, in ``block``."""
    for r in readers:
        rule = rules.get(id(r))
        if rule is None or usage.block_of[id(r)] != block.idx or \
                not _reads_through(r, name, rule.takes) or r is writer:
            return False
    return True


def _leaves_opaque(name, usage, crossing):
    """Whether the value of ``name`` may leave its writer opaque as far as
    anything outside the ops is concerned: private to the run, or crossing
    and written once here (``stable``: not fed, captured, stored or pinned)."""
    return usage.stable(name) if name in crossing else usage.private(name)


def _keepable(name, writer, usage, rules, block, crossing=()):
    """Whether the value of ``name`` may stay opaque (see the module doc)."""
    if not _leaves_opaque(name, usage, crossing):
        return False
    readers = usage.readers.get(name, ())
    if not readers:
        return name in crossing       # a saved value read only by the backward plan
    return _taken_by_all(name, readers, usage, rules, block, writer)


def _unread(op, rule, usage):
    """Whether nothing reads the outputs the op's layout kernel drops."""
    for slot in rule.drops:
        for n in op.outputs.get(slot, ()):
            if usage.readers.get(n) or usage.external(n) or n in usage.pinned:
                return False
    return True


def plan_layouts(program, feed_names, fetch_names, backend='numpy', crossing=()):
    """Mark the global block's ops for layout kernels on ``backend`` (see
    the module doc); ``crossing``: the feeds and fetches that may pass
    opaque. Returns whether anything was marked."""
    block = program.global_block()
    usage = Usage(program, feed_names, fetch_names)
    crossing = set(crossing)
    rules = {}
    for op in block.ops:
        rule = _rule(op, block, backend)
        if rule is not None and _unread(op, rule, usage):
            rules[id(op)] = rule
    marks = {}                 # id(op) -> the outputs it leaves opaque
    for op in block.ops:
        rule = rules.get(id(op))
        if rule is None:
            continue
        for slot in rule.gives:
            for n in op.outputs.get(slot, ()):
                if _keepable(n, op, usage, rules, block, crossing):
                    marks.setdefault(id(op), set()).add(slot)
                    for r in usage.readers[n]:
                        marks.setdefault(id(r), set())
    entry = set()              # crossing feeds made plain as they enter
    for n in sorted(crossing & usage.feeds):
        readers = usage.readers.get(n, ())
        if readers and _taken_by_all(n, readers, usage, rules, block):
            for r in readers:
                marks.setdefault(id(r), set())
        elif readers:
            entry.add(n)
    if not marks and not entry:
        return False
    for op in block.ops:
        if id(op) in marks:
            op.attrs['op_layout'] = sorted(marks[id(op)])
    program._plain_on_entry = frozenset(entry)
    program._bump()
    return True
