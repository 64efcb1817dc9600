"""Early returns -> one exit: ``return v`` inside if/loops sets a flag and a
value; later statements are guarded by the flag; loops stop when it is set."""
import gast

from . import utils as U

RET_FLAG = '__jst_ret_flag'
RET_VAL = '__jst_ret_val'
# the value of a function every path of which ends in ``return``: None on one
# side of an if only means that side returns later (no warning for it)
RET_VAL_ALWAYS_SET = '__jst_ret_val_set_later'

_COMPOUND = (gast.If, gast.While, gast.For, gast.With, gast.Try)


def _has_return(stmts):
    return U.contains(stmts, gast.Return)


def needs_transform(fn):
    """True when a return sits inside a compound statement."""
    return any(isinstance(s, _COMPOUND) and _has_return([s]) for s in fn.body)


def _not_flag():
    return gast.UnaryOp(op=gast.Not(), operand=U.load(RET_FLAG))


def _transform(stmts, in_loop, value):
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, gast.Return):
            returned = s.value if s.value is not None else U.const(None)
            out.append(U.located(U.assign(value, returned), s))
            out.append(U.located(U.assign(RET_FLAG, U.const(True)), s))
            if in_loop:
                out.append(U.located(gast.Break(), s))
            return out              # the rest of this list is unreachable
        if not _has_return([s]):
            out.append(s)
            continue
        if isinstance(s, gast.If):
            s.body = _transform(s.body, in_loop, value)
            s.orelse = _transform(s.orelse, in_loop, value)
        elif isinstance(s, (gast.While, gast.For)):
            s.body = _transform(s.body, True, value)
        elif isinstance(s, gast.With):
            s.body = _transform(s.body, in_loop, value)
        elif isinstance(s, gast.Try):
            s.body = _transform(s.body, in_loop, value)
            for h in s.handlers:
                h.body = _transform(h.body, in_loop, value)
            s.orelse = _transform(s.orelse, in_loop, value)
            s.finalbody = _transform(s.finalbody, in_loop, value)
        out.append(s)
        if isinstance(s, (gast.While, gast.For)) and in_loop:
            out.append(U.located(gast.If(test=U.load(RET_FLAG), body=[gast.Break()], orelse=[]), s))
        rest = stmts[i + 1:]
        if rest:
            guarded = gast.If(test=_not_flag(), body=_transform(rest, in_loop, value), orelse=[])
            out.append(U.located(guarded, rest[0]))
        return out
    return out


def _always_returns(stmts):
    """Every path through ``stmts`` ends in a return (or a raise)."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (gast.Return, gast.Raise)):
        return True
    if isinstance(last, gast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    if isinstance(last, gast.With):
        return _always_returns(last.body)
    if isinstance(last, gast.Try):
        return _always_returns(last.finalbody) or (
            _always_returns(last.orelse or last.body)
            and all(_always_returns(h.body) for h in last.handlers))
    return False


def transform_returns(fn):
    if not needs_transform(fn):
        return fn
    value = RET_VAL_ALWAYS_SET if _always_returns(fn.body) else RET_VAL
    first = fn.body[0]
    init = [U.located(U.assign(RET_FLAG, U.const(False)), first),
            U.located(U.assign(value, U.const(None)), first)]
    body = _transform(fn.body, False, value)
    last = fn.body[-1]
    fn.body = init + body + [U.located(gast.Return(value=U.load(value)), last)]
    return fn
