"""A generator of small random Python functions for fuzzing @to_static: nested
if / while / for / break / continue / return over tensor and Python
conditions, with every loop bounded by a counter so each program ends.

``generate(seed)`` returns the source of one function ``f(x, n)``: ``x`` a
float tensor of shape [3], ``n`` a Python int or an int tensor.
"""
import random

_UPDATES = [
    'y = y * 1.1 + x',
    'y = y - 0.3',
    'y = paddle.tanh(y)',
    'z = z + y * 0.5',
    'z = z * 0.9 - x',
    'y = y + z * 0.1',
    'acc = acc + 1',
    'z = paddle.maximum(z, y)',
    'y = paddle.where(y > 0, y, y * 0.2)',
]
_TENSOR_CONDS = ['y.sum() > {c}', 'z.mean() < {c}', '(y * z).sum() > {c}', 'x[0] > {c}',
                 'paddle.max(y) > {c}']
_PYTHON_CONDS = ['acc > {k}', 'n > {k}', 'True', 'acc % 2 == 0']


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.lines = []
        self.counter = 0

    def cond(self, tensor_ok=True):
        if tensor_ok and self.r.random() < 0.6:
            return self.r.choice(_TENSOR_CONDS).format(c=round(self.r.uniform(-2, 2), 2))
        return self.r.choice(_PYTHON_CONDS).format(k=self.r.randint(0, 3))

    def emit(self, depth, line):
        self.lines.append('    ' * depth + line)

    def block(self, depth, in_loop, budget):
        for _ in range(self.r.randint(1, 3)):
            if budget <= 0:
                self.emit(depth, self.r.choice(_UPDATES))
                continue
            kind = self.r.choices(['update', 'if', 'while', 'for', 'jump', 'return'],
                                  [4, 2, 1, 1, 1 if in_loop else 0, 0.5])[0]
            if kind == 'update':
                self.emit(depth, self.r.choice(_UPDATES))
            elif kind == 'if':
                self.emit(depth, 'if %s:' % self.cond())
                self.block(depth + 1, in_loop, budget - 1)
                if self.r.random() < 0.5:
                    self.emit(depth, 'else:')
                    self.block(depth + 1, in_loop, budget - 1)
            elif kind == 'while':
                self.counter += 1
                c = 'i%d' % self.counter
                self.emit(depth, '%s = 0' % c)
                test = '%s < %d' % (c, self.r.randint(1, 3))
                if self.r.random() < 0.5:
                    test = '%s and %s' % (test, self.cond())
                self.emit(depth, 'while %s:' % test)
                self.emit(depth + 1, '%s += 1' % c)
                self.block(depth + 1, True, budget - 1)
            elif kind == 'for':
                self.counter += 1
                bound = self.r.choice(['%d' % self.r.randint(1, 3), 'n', 'paddle.to_tensor(2)'])
                self.emit(depth, 'for j%d in range(%s):' % (self.counter, bound))
                self.block(depth + 1, True, budget - 1)
            elif kind == 'jump':
                self.emit(depth, 'if %s:' % self.cond())
                self.emit(depth + 1, self.r.choice(['break', 'continue']))
            else:
                self.emit(depth, 'if %s:' % self.cond())
                self.emit(depth + 1, 'return y * 2.0 + z')


def generate(seed):
    g = _Gen(seed)
    g.emit(0, 'def f(x, n):')
    g.emit(1, 'y = x * 1.0')
    g.emit(1, 'z = x + 0.5')
    g.emit(1, 'acc = 0')
    g.block(1, False, 3)
    g.emit(1, 'return y + z * acc')
    return '\n'.join(g.lines) + '\n'
