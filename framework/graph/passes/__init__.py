"""The executor's pass pipeline over a Program copy, run before codegen.

``PIPELINE`` is the one ordered list of the passes ``compile_program`` runs:
prune always, the others when the ``BuildStrategy`` switch named by each is on
(a plan compiled without a strategy, for ``FLAGS_check_nan_inf``, is only
pruned). A pass is ``fn(program, feed_names, fetch_names) -> bool``: it
mutates the program in place, must keep results identical (tests compare runs
with and without each pass on random programs) and returns whether it changed
anything. ``run_pipeline`` returns what each pass did.

With ``FLAGS_verify_passes`` on (the test suite turns it on, see
``tests/conftest.py``) the IR verifier (``graph/verify.py``) checks the
program before the first pass (all but what only prune makes hold: that
everything read is fed, computed or stored) and again after every pass that
changed it; a program a pass broke raises ``PassVerifyError`` naming that pass.
"""
import collections

from ... import flags
from .. import verify
from . import batch, constant_fold, cse, dce, fuse, hoist, identity, inplace, layout
from .prune import prune

# ``switch``: the BuildStrategy attribute that turns the pass on (None: always)
Pass = collections.namedtuple('Pass', 'name switch fn')


PIPELINE = (
    # first: every later pass (and the verifier) sees only what the run needs
    Pass('prune', None, prune),
    # folding first: its constants let identity removal see x * 1 and x + 0,
    # and make equal constant subtrees equal ops for CSE
    Pass('constant_folding', 'constant_folding', constant_fold.constant_folding),
    # before CSE: an identity's readers read its input, so they look alike
    Pass('remove_identity', 'remove_identity', identity.remove_identity_ops),
    Pass('enable_cse', 'enable_cse', cse.common_subexpression_elimination),
    # after the simplifications: fewer, final ops in loop bodies to move
    Pass('loop_invariant_hoisting', 'loop_invariant_hoisting', hoist.loop_invariant_hoisting),
    # before fusion: a batched op's parts are split views, which elementwise
    # groups then read as inputs (a group absorbing one sibling would block it)
    Pass('batch_split_siblings', 'batch_split_siblings', batch.batch_split_siblings),
    # fusion after motion (hoisted ops join the groups of the block they moved
    # to); matmul + bias + activation before elementwise trees, which would
    # otherwise absorb the bias add and the activation
    Pass('fuse_matmul_add_act', 'fuse_matmul_add_act', fuse.fuse_matmul_add_act),
    # conv chains before elementwise trees too: the residual add and the
    # activation become the convolution's post-ops, not a tree's members
    Pass('fuse_conv_bn_add_act', 'fuse_bn_add_act_ops', fuse.fuse_conv_bn_add_act),
    Pass('fuse_elewise_add_act_ops', 'fuse_elewise_add_act_ops', fuse.fuse_elementwise),
    # after everything that leaves ops nobody reads behind
    Pass('enable_dce', 'enable_dce', dce.dead_code_elimination),
    # layouts on the final ops (the fused ones are the ones to chain) and
    # their final readers; before buffer planning, which leaves the ops that
    # pass opaque values alone (they do not write numpy buffers in place)
    Pass('plan_layouts', 'plan_layouts', layout.plan_layouts),
    # buffer planning last: op_inplace/op_free refer to the final op order and
    # last uses, which any later pass would change; in-place marking first so
    # freeing knows which buffers it reuses
    Pass('enable_inplace', 'enable_inplace', inplace.inplace_buffer_reuse),
    Pass('memory_optimize', 'memory_optimize', inplace.free_after_last_use),
)

# (strategy switch, pass) of the optional passes, in run order
PASSES = [(p.switch, p.fn) for p in PIPELINE if p.switch is not None]


class PassVerifyError(verify.VerifyError):
    """The program a pass returned is not well-formed; ``pass_name`` says
    which (None: the program was malformed before the first pass)."""

    def __init__(self, pass_name, message):
        where = "after pass '%s'" % pass_name if pass_name else 'before the first pass'
        super().__init__('%s: %s' % (where, message))
        self.pass_name = pass_name


def _verifier(program, feed_names, fetch_names):
    """fn(pass name) checking ``program`` (the flag on), else None."""
    if not flags.flag('FLAGS_verify_passes'):
        return None
    defined = set(feed_names) | set(program._captured) | {
        n for b in program.blocks for n, v in b.vars.items() if v.persistable}

    def check(pass_name):
        # before prune, ops the run does not need may read names nothing here
        # gives a value (forward ops in a backward-only plan): check all but that
        names = defined if pass_name else {n for b in program.blocks for n in b.vars}
        try:
            verify.verify_program(program, names, fetch_names=fetch_names,
                                  executor_copy=True)
        except verify.VerifyError as e:
            raise PassVerifyError(pass_name, str(e)) from None
    return check


def run_pipeline(program, feed_names, fetch_names, strategy=None, side_effects=True,
                 pipeline=None, backend='numpy', crossing=()):
    """Run ``pipeline`` (default ``PIPELINE``) on ``program`` (the executor's
    copy) in order: passes without a switch always, the others when
    ``strategy`` turns them on.
    ``side_effects``: which side effects prune keeps (``prune.prune_block``);
    ``backend``: whose kernels the plan will call (the layout pass plans for
    it); ``crossing``: the feeds and fetches that may pass in its layouts
    (``layout.plan_layouts``).
    Returns ``[(pass name, changed), ...]`` for the passes that ran."""
    check = _verifier(program, feed_names, fetch_names)
    if check is not None:
        check(None)
    ran = []
    for p in PIPELINE if pipeline is None else pipeline:
        if p.switch is not None and (strategy is None or not getattr(strategy, p.switch, True)):
            continue
        # prune takes the caller's choice of side effects to keep, the layout
        # pass the backend and the values that may cross the plan's boundary
        extra = {'side_effects': side_effects} if p.fn is prune else \
            {'backend': backend, 'crossing': crossing} if p.fn is layout.plan_layouts else {}
        changed = bool(p.fn(program, feed_names, fetch_names, **extra))
        ran.append((p.name, changed))
        if changed and check is not None:
            check(p.name)
    return ran
