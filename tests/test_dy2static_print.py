"""``print`` and ``assert`` inside ``@to_static``: they happen when the
program runs, every run, and as often as the branch or loop holding them
runs; printed text equals what the eager call prints. Also Paddle's
``static.Print``.

PYTEST_DONT_REWRITE: the functions under test use ``assert``, and their
messages must be Python's own."""
import sys

import numpy as np
import pytest

import framework as paddle
from framework import static
from framework.jit import to_static


def T(v, dtype='float32', grad=False):
    return paddle.to_tensor(np.asarray(v, dtype=dtype), stop_gradient=not grad)


def same_output(capsys, fn, *arg_sets):
    """Each call of the converted function prints what the eager call prints."""
    sf = to_static(fn)
    for args in arg_sets:
        fn(*args)
        eager = capsys.readouterr()
        sf(*args)
        converted = capsys.readouterr()
        assert converted.out == eager.out
        assert converted.err == eager.err
    return sf


def mixed_arguments(x):
    y = x * 2
    print('y is', y, 'and', x.sum(), sep='|', end='!\n')
    print(y.astype('int64'), x > 0)
    print('no tensors', 3, [1, 2], file=sys.stderr)
    print([x, (y,), {'k': x * 0}], (1, 'two'), {'a': [x]})
    return y


def in_branches_and_loops(x):
    if x.sum() > 0:
        print('positive', x)
    else:
        print('not positive')
    i = paddle.zeros([], 'int64')
    while i < x.shape[0]:
        print('item', i, x[i])
        i += 1
    return x + 1


def test_print_matches_eager_text_every_run(capsys):
    sf = same_output(capsys, mixed_arguments, (T([1.0, 2.0]),), (T([-3.5, 0.25]),),
                     (T([1.0, 2.0]),))
    assert len(sf.program_cache) == 1
    sf(T([7.0, 8.0]))
    out = capsys.readouterr().out
    assert out.startswith('y is|Tensor(shape=[2], dtype=float32, place=Place(cpu), '
                          'stop_gradient=True,\n       [14., 16.])|and|')


def test_print_in_branches_and_loops_runs_when_they_run(capsys):
    sf = same_output(capsys, in_branches_and_loops, (T([1.0, 2.0, 3.0]),), (T([-1.0, -2.0]),),
                     (T([5.0]),))
    assert len(sf.program_cache) == 3       # one per input length
    sf(T([-1.0, -2.0]))
    out = capsys.readouterr().out
    assert out.count('not positive') == 1 and out.count('item') == 2 and 'positive T' not in out


_LINEAR = paddle.nn.Linear(2, 2)


def prints_a_parameter(x):
    print('weight', _LINEAR.weight)
    return _LINEAR(x)


def test_print_of_a_parameter_shows_its_current_value(capsys):
    sf = same_output(capsys, prints_a_parameter, (T([[1.0, 2.0]]),))
    with paddle.no_grad():
        _LINEAR.weight[:] = 5.0                 # the program prints the value it reads now
    sf(T([[1.0, 2.0]]))
    out = capsys.readouterr().out
    assert out.startswith('weight Parameter containing:\nTensor(shape=[2, 2]')
    assert '[[5., 5.]' in out


class PrintsWhileTraining(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(2, 2)

    def forward(self, x):
        y = self.lin(x)
        i = paddle.zeros([], 'int64')
        while i < 2:
            print('step', i)
            y = y * 1.5
            i += 1
        if y.sum() > 0:
            print('pos', y.shape)
        return y.sum()


def test_backward_does_not_print_again(capsys):
    paddle.seed(1)
    net = PrintsWhileTraining()
    sf = to_static(net)
    for _ in range(2):
        loss = sf(paddle.ones([1, 2]))
        printed = capsys.readouterr().out
        loss.backward()
        assert capsys.readouterr().out == ''
        assert printed.count('step') == 2
    assert net.lin.weight.grad is not None


def test_print_to_an_unsupported_file_is_refused():
    class Sink:
        def write(self, s):
            pass

    def to_sink(x):
        print(x, file=Sink())
        return x
    with pytest.raises(TypeError, match='file='):
        to_static(to_sink)(T([1.0]))


# ---- assert -----------------------------------------------------------------------------

def asserts(x):
    if x.mean() > 0:
        assert x.min() > 0, 'all positive when the mean is'
    i = paddle.zeros([], 'int64')
    while i < 3:
        assert x[i] < 10, 'items below 10'
        i += 1
    assert x.sum() > -100
    return x + 1


@pytest.mark.parametrize('values', [[1.0, 2.0, 3.0], [-1.0, 5.0, 3.0], [-1.0, -2.0, -3.0],
                                    [1.0, 2.0, 30.0], [-100.0, -2.0, -3.0]])
def test_assert_checks_at_run_time_like_eager(values):
    sf = to_static(asserts)
    sf(T([1.0, 1.0, 1.0]))          # built once with passing values
    outcomes = []
    for fn in (asserts, sf):
        try:
            outcomes.append(('ok', fn(T(values)).numpy().tolist()))
        except AssertionError as e:
            outcomes.append(('AssertionError', str(e)))
    assert outcomes[0] == outcomes[1]
    assert len(sf.program_cache) == 1


# ---- static.Print ----------------------------------------------------------------------

def test_static_print_logs_values_each_run_and_passes_through(capsys):
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data('x', [2, 3], 'int64')
            out = static.Print(x, message='The content of input layer:')
            once = static.Print(x * 2, first_n=1, summarize=2, print_tensor_lod=False)
        exe = static.Executor()
        for _ in range(2):
            res = exe.run(main, feed={'x': np.full((2, 3), 3, 'int64')}, fetch_list=[out, once])
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(res[0], np.full((2, 3), 3))
    text = capsys.readouterr().out
    assert text.count('  - message: The content of input layer:') == 2
    assert text.count('Variable: x\n') == 2
    assert '  - shape: [2, 3]\n  - layout: NCHW\n  - dtype: int64\n' \
           '  - data: [3.000000 3.000000 3.000000 3.000000 3.000000 3.000000]' in text
    assert text.count('  - data: [6.000000 6.000000]') == 1       # first_n=1, summarize=2


def test_static_print_backward_phase_logs_the_gradient(capsys):
    def f(x):
        y = static.Print(x * 3.0, message='grad', print_phase='backward')
        return (y * y).sum()
    x = T([1.0, 2.0], grad=True)
    loss = to_static(f)(x)
    assert capsys.readouterr().out == ''
    loss.backward()
    text = capsys.readouterr().out
    assert 'message: grad' in text and '[6.000000 12.000000]' in text
    np.testing.assert_allclose(x.grad.numpy(), [18.0, 36.0])


def test_static_print_checks_its_arguments():
    with pytest.raises(ValueError, match='print_phase'):
        static.Print(T([1.0]), print_phase='sideways')
    with pytest.raises(TypeError, match='must be a tensor'):
        static.Print([1.0])
