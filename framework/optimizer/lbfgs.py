"""L-BFGS: a quasi-Newton method driven by a closure that re-evaluates the loss.

The algorithm is Paddle's (and PyTorch's) ``LBFGS``: the two-loop recursion over
the last ``history_size`` curvature pairs gives the direction; the step is
``learning_rate`` (the first one scaled down by the gradient's L1 norm), or the
one a strong-Wolfe line search (Nocedal & Wright, Algorithm 3.5, cubic
interpolation) finds. The vector algebra runs on numpy arrays in the
parameters' dtype; the closure runs the model with the framework's ops.
"""
import numpy as np

from ..dygraph.state import enable_grad, no_grad
from ..ops.modes import in_static_mode, is_eager_tensor
from .optimizer import Optimizer

__all__ = ['LBFGS']


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped
    to ``bounds`` (default: between the points); the midpoint when the cubic
    has no minimum there (Nocedal & Wright, formula 3.59)."""
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(pos, lo), hi)
    return (lo + hi) / 2.0


def _dot(a, b):
    return float((a * b).sum())


def _strong_wolfe(evaluate, alpha, d, loss, grad, gtd, c1=1e-4, c2=0.9,
                  tolerance_change=1e-9, max_ls=25):
    """Step length along ``d`` meeting the strong Wolfe conditions: bracket,
    then zoom. ``evaluate(alpha)`` -> (loss, flat grad) at x + alpha d.
    Returns (loss, grad, alpha, evaluations)."""
    d_norm = float(np.abs(d).max())
    loss_new, grad_new = evaluate(alpha)
    evals = 1
    gtd_new = _dot(grad_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, loss, grad.copy(), gtd
    done = False
    ls_iter = 0
    bracket = bracket_f = bracket_g = bracket_gtd = None
    while ls_iter < max_ls:
        if loss_new > loss + c1 * alpha * gtd or (ls_iter > 1 and loss_new >= f_prev):
            bracket, bracket_f = [t_prev, alpha], [f_prev, loss_new]
            bracket_g, bracket_gtd = [g_prev, grad_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [alpha], [loss_new], [grad_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, alpha], [f_prev, loss_new]
            bracket_g, bracket_gtd = [g_prev, grad_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = alpha + 0.01 * (alpha - t_prev)
        max_step = alpha * 10
        previous = alpha
        alpha = _cubic_interpolate(t_prev, f_prev, gtd_prev, alpha, loss_new, gtd_new,
                                   bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = previous, loss_new, grad_new.copy(), gtd_new
        loss_new, grad_new = evaluate(alpha)
        evals += 1
        gtd_new = _dot(grad_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, alpha], [loss, loss_new], [grad, grad_new]
        bracket_gtd = [gtd, gtd_new]
    insufficient = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        alpha = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                                   bracket[1], bracket_f[1], bracket_gtd[1])
        # too close to an end of the bracket: move 10% of its width inside
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - alpha, alpha - min(bracket)) < eps:
            if insufficient or alpha >= max(bracket) or alpha <= min(bracket):
                alpha = (max(bracket) - eps if abs(alpha - max(bracket)) < abs(alpha - min(bracket))
                         else min(bracket) + eps)
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        loss_new, grad_new = evaluate(alpha)
        evals += 1
        gtd_new = _dot(grad_new, d)
        ls_iter += 1
        if loss_new > loss + c1 * alpha * gtd or loss_new >= bracket_f[low]:
            bracket[high], bracket_f[high] = alpha, loss_new
            bracket_g[high], bracket_gtd[high] = grad_new.copy(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low] = alpha, loss_new
            bracket_g[low], bracket_gtd[low] = grad_new.copy(), gtd_new
    alpha = bracket[low]
    return bracket_f[low], bracket_g[low], alpha, evals


class LBFGS(Optimizer):
    r"""Limited-memory BFGS (Paddle's ``paddle.optimizer.LBFGS``).

    ``step(closure)`` runs up to ``max_iter`` iterations; ``closure`` clears the
    gradients, computes the loss, calls ``backward()`` and returns the loss.
    Stops early when the largest gradient entry is at most ``tolerance_grad``,
    or a step/loss change is below ``tolerance_change``, or after ``max_eval``
    closure calls (default ``max_iter * 5 // 4``). ``line_search_fn`` is None
    (fixed step ``learning_rate``) or ``'strong_wolfe'``.

    >>> import numpy as np
    >>> import framework as paddle
    >>> w = paddle.Parameter(np.array([3.0, -2.0]), name='w')
    >>> opt = paddle.optimizer.LBFGS(parameters=[w], line_search_fn='strong_wolfe')
    >>> def closure():
    ...     opt.clear_grad()
    ...     loss = ((w - 1.0) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> _ = opt.step(closure)
    >>> np.round(w.numpy(), 6).tolist()
    [1.0, 1.0]
    """

    def __init__(self, learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if line_search_fn not in (None, 'strong_wolfe'):
            raise ValueError("LBFGS: line_search_fn must be None or 'strong_wolfe', got %r"
                             % (line_search_fn,))
        if parameters is None or not hasattr(parameters, '__iter__') \
                or is_eager_tensor(parameters):
            raise TypeError("LBFGS: parameters must be a list of Tensors (or parameter-group "
                            "dicts), got %r" % (type(parameters).__name__,))
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_eval = max_iter * 5 // 4 if max_eval is None else max_eval
        self.tolerance_grad = tolerance_grad
        self.tolerance_change = tolerance_change
        self.history_size = history_size
        self.line_search_fn = line_search_fn
        self.state = {}
        super().__init__(1.0, parameters, weight_decay, grad_clip, name)
        self._params = self._all_params()

    # ---- flat views of the parameters --------------------------------------------
    def _flat_grad(self):
        parts = [np.zeros(int(np.prod(p.shape)), p.data.dtype) if p.grad is None
                 else np.asarray(p.grad.data).reshape(-1) for p in self._params]
        return np.concatenate(parts) if parts else np.zeros(0)

    def _add(self, alpha, direction):
        offset = 0
        for p in self._params:
            n = int(np.prod(p.shape))
            step = direction[offset:offset + n].reshape(p.data.shape) * alpha
            p.data = (p.data + step).astype(p.data.dtype, copy=False)
            p._version += 1
            offset += n

    def _values(self):
        return [p.data.copy() for p in self._params]

    def _restore(self, values):
        for p, v in zip(self._params, values):
            p.data = v.copy()
            p._version += 1

    def _loss(self, closure):
        with enable_grad():
            return float(closure())

    # ---- the iteration ---------------------------------------------------------------
    def step(self, closure):
        """Optimise with ``closure`` (see the class docstring); returns the loss
        of its first call."""
        if in_static_mode():
            raise RuntimeError("LBFGS.step(closure) runs in dynamic graph mode only")
        if closure is None or not callable(closure):
            raise TypeError("LBFGS.step needs a closure that clears the gradients, computes "
                            "the loss, calls backward() and returns the loss")
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        state = self.state
        state.setdefault('func_evals', 0)
        state.setdefault('n_iter', 0)
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        evals = 1
        state['func_evals'] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= self.tolerance_grad:
            return orig_loss
        d, alpha = state.get('d'), state.get('alpha')
        old_yk, old_sk, ro = state.get('old_yk'), state.get('old_sk'), state.get('ro')
        h_diag, prev_flat_grad = state.get('H_diag'), state.get('prev_flat_grad')
        prev_loss = state.get('prev_loss')
        lr = float(self.learning_rate)
        n_iter = 0
        while n_iter < self.max_iter:
            n_iter += 1
            state['n_iter'] += 1
            if state['n_iter'] == 1:
                d = -flat_grad
                old_yk, old_sk, ro = [], [], []
                h_diag = 1.0
            else:
                d, h_diag = self._direction(flat_grad, prev_flat_grad, d, alpha, old_yk,
                                            old_sk, ro, h_diag)
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            if state['n_iter'] == 1:
                alpha = min(1.0, 1.0 / float(np.abs(flat_grad).sum())) * lr
            else:
                alpha = lr
            gtd = _dot(flat_grad, d)
            if gtd > -self.tolerance_change:
                break
            ls_evals = 0
            if self.line_search_fn is not None:
                start = self._values()

                def evaluate(a, start=start, d=d):
                    self._add(a, d)
                    value = self._loss(closure)
                    g = self._flat_grad()
                    self._restore(start)
                    return value, g
                loss, flat_grad, alpha, ls_evals = _strong_wolfe(
                    evaluate, alpha, d, loss, flat_grad, gtd,
                    tolerance_change=self.tolerance_change)
                self._add(alpha, d)
                converged = np.abs(flat_grad).max() <= self.tolerance_grad
            else:
                self._add(alpha, d)
                converged = False
                if n_iter != self.max_iter:
                    loss = self._loss(closure)
                    flat_grad = self._flat_grad()
                    converged = np.abs(flat_grad).max() <= self.tolerance_grad
                    ls_evals = 1
            evals += ls_evals
            state['func_evals'] += ls_evals
            if converged or np.abs(d * alpha).max() <= self.tolerance_change \
                    or abs(loss - prev_loss) < self.tolerance_change \
                    or evals >= self.max_eval or n_iter == self.max_iter:
                break
        state.update(d=d, alpha=alpha, old_yk=old_yk, old_sk=old_sk, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    def _direction(self, flat_grad, prev_flat_grad, d, alpha, old_yk, old_sk, ro, h_diag):
        """The L-BFGS direction: update the curvature memory, then the two-loop
        recursion applies the inverse-Hessian estimate to -grad."""
        y = flat_grad - prev_flat_grad
        s = d * alpha
        ys = _dot(y, s)
        if ys > 1e-10:
            if len(old_yk) == self.history_size:
                old_yk.pop(0)
                old_sk.pop(0)
                ro.pop(0)
            old_yk.append(y)
            old_sk.append(s)
            ro.append(1.0 / ys)
            h_diag = ys / _dot(y, y)
        al = [0.0] * len(old_yk)
        q = -flat_grad
        for i in range(len(old_yk) - 1, -1, -1):
            al[i] = _dot(old_sk[i], q) * ro[i]
            q = q - old_yk[i] * al[i]
        r = q * h_diag
        for i in range(len(old_yk)):
            be_i = _dot(old_yk[i], r) * ro[i]
            r = r + old_sk[i] * (al[i] - be_i)
        return r.astype(flat_grad.dtype, copy=False), h_diag

    def state_dict(self):
        """``{'state': ...}``: the iteration state (directions, curvature pairs,
        counters), as Paddle's LBFGS returns it."""
        return {'state': dict(self.state)}

    def set_state_dict(self, state_dict):
        self.state = dict(state_dict.get('state', {}))

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        raise RuntimeError("LBFGS does not minimize a loss directly: it re-evaluates the "
                           "model; call opt.step(closure) with a closure that clears the "
                           "gradients, computes the loss, calls backward() and returns it")
