"""Saves killed with SIGKILL: afterwards the files load as the old or the new
model, never a mix, and the next save of the same path leaves no temporaries.

Two ways of killing:

* at each I/O step of a save: the save runs in a forked process that sends
  itself SIGKILL at its k-th ``os`` call (open, write, fsync, link, rename,
  unlink, close), for every k (in CI a sample), so the kill lands between
  the two renames of an inference model too;
* at a random moment from outside: a subprocess saves in a loop, the test
  kills it after a random delay.
"""
import os
import random
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

import framework as paddle
from framework import static
from framework.inference import Config, create_predictor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IO_CALLS = ('open', 'write', 'fsync', 'replace', 'link', 'unlink', 'close')
X = np.arange(8, dtype='float32').reshape(2, 4) / 8

pytestmark = pytest.mark.skipif(not hasattr(os, 'fork'), reason='needs os.fork')


def run_killed(save, kill_at):
    """Run ``save()`` in a forked process that SIGKILLs itself at its
    ``kill_at``-th I/O call; (killed, number of I/O calls it made)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                        # the child: never returns into pytest
        try:
            os.close(r)
            real = {name: getattr(os, name) for name in IO_CALLS}
            kill, getpid, calls = os.kill, os.getpid, [0]

            def counting(name):
                def call(*args, **kwargs):
                    if calls[0] == kill_at:
                        kill(getpid(), signal.SIGKILL)
                    calls[0] += 1
                    return real[name](*args, **kwargs)
                return call
            for name in IO_CALLS:
                setattr(os, name, counting(name))
            save()
            for name, fn in real.items():
                setattr(os, name, fn)
            os.write(w, str(calls[0]).encode())
        finally:
            os._exit(0)
    os.close(w)
    out = b''
    while True:
        chunk = os.read(r, 64)
        if not chunk:
            break
        out += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    return killed, int(out) if out else -1


def leftovers(d, keep):
    return sorted(set(os.listdir(d)) - set(keep))


# ---- inference models --------------------------------------------------------------------

def _program(version):
    """Two different models: out = x @ W (W = 1) or out = (x @ W) * 3 + 1 (W = 2),
    each with its own parameter values."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [None, 4], 'float32')
        w = static.create_parameter([4, 3], 'float32', name='w')
        out = paddle.matmul(x, w)
        if version == 'B':
            out = out * 3.0 + 1.0
    return main, x, out


@pytest.fixture
def models():
    """{version: save function(prefix)} and the outputs each model computes."""
    paddle.enable_static()
    saves, expected = {}, {}
    try:
        for version, w in (('A', 1.0), ('B', 2.0)):
            main, x, out = _program(version)
            scope = static.Scope()
            scope.vars['w'] = np.full((4, 3), w, np.float32)
            exe = static.Executor()

            def save(prefix, main=main, x=x, out=out, exe=exe, scope=scope):
                static.save_inference_model(prefix, [x], [out], exe, program=main, scope=scope)
            saves[version] = save
            expected[version] = exe.run(main, feed={'x': X}, fetch_list=[out], scope=scope)[0]
    finally:
        paddle.disable_static()
    return saves, expected


def _predict(prefix):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')       # "loaded the previous model" is expected
        p = create_predictor(Config(prefix + '.pdmodel', prefix + '.pdiparams'))
        return p.run([X])[0]


def _which(prefix, expected):
    out = _predict(prefix)
    matches = [v for v, e in expected.items() if np.array_equal(out, e)]
    assert matches, 'the loaded model computes neither the old nor the new output: %s' % out
    return matches[0]


def _inference_kill_points(models, tmp_path, points):
    saves, expected = models
    d = str(tmp_path)
    prefix = os.path.join(d, 'm')
    files = ['m.pdmodel', 'm.pdiparams']
    saves['A'](prefix)
    killed, n_calls = run_killed(lambda: saves['B'](prefix), -1)
    assert not killed and n_calls > 0
    saves['A'](prefix)
    seen = set()
    for k in points(n_calls):
        killed, _ = run_killed(lambda: saves['B'](prefix), k)
        assert killed
        seen.add(_which(prefix, expected))
        # the next save of the same prefix cleans up what the killed one left
        saves['A'](prefix)
        assert leftovers(d, files) == []
        assert _which(prefix, expected) == 'A'
    return seen


def test_killed_inference_saves_load_old_or_new(models, tmp_path):
    """A sample of kill points, including every one around the two renames."""
    def points(n):
        return sorted(set(range(n - 8, n)) | set(random.Random(0).sample(range(n), 4)))
    seen = _inference_kill_points(models, tmp_path, points)
    assert seen == {'A', 'B'}       # kills before and after the commit both happened


@pytest.mark.slow
def test_killed_inference_saves_at_every_io_call(models, tmp_path):
    assert _inference_kill_points(models, tmp_path, range) == {'A', 'B'}


def test_kill_between_the_two_renames_keeps_the_old_model(models, tmp_path):
    """The parameter file is renamed first: killed right after, the old model
    file and the backup of its parameters load as the old model, with a warning."""
    saves, expected = models
    prefix = str(tmp_path / 'm')
    saves['A'](prefix)
    real_replace, calls = os.replace, []

    def save_and_die_after_first_rename():
        def replace(src, dst):
            real_replace(src, dst)
            calls.append(dst)
            if dst.endswith('.pdiparams'):
                os.kill(os.getpid(), signal.SIGKILL)
        os.replace = replace
        saves['B'](prefix)
    killed, _ = run_killed(save_and_die_after_first_rename, -1)
    assert killed
    with pytest.warns(UserWarning, match='interrupted save.*previous model'):
        p = create_predictor(Config(prefix + '.pdmodel', prefix + '.pdiparams'))
    np.testing.assert_array_equal(p.run([X])[0], expected['A'])
    saves['B'](prefix)
    assert leftovers(str(tmp_path), ['m.pdmodel', 'm.pdiparams']) == []
    np.testing.assert_array_equal(_predict(prefix), expected['B'])


# ---- framework.save checkpoints ----------------------------------------------------------

def _state(version):
    fill = 1.0 if version == 'A' else 2.0
    return {'w': np.full((256, 256), fill, np.float32), 'version': version}


def _checkpoint_kill_points(tmp_path, points):
    path = str(tmp_path / 'ckpt.pdparams')
    paddle.save(_state('A'), path)
    killed, n_calls = run_killed(lambda: paddle.save(_state('B'), path), -1)
    assert not killed
    paddle.save(_state('A'), path)
    seen = set()
    for k in points(n_calls):
        killed, _ = run_killed(lambda: paddle.save(_state('B'), path), k)
        assert killed
        state = paddle.load(path, return_numpy=True)
        v = state['version']
        np.testing.assert_array_equal(state['w'], _state(v)['w'])
        seen.add(v)
        paddle.save(_state('A'), path)
        assert leftovers(str(tmp_path), ['ckpt.pdparams']) == []
    return seen


def test_killed_checkpoint_saves_load_old_or_new(tmp_path):
    def points(n):
        return sorted(set(range(n - 4, n)) | set(random.Random(1).sample(range(n), 3)))
    assert _checkpoint_kill_points(tmp_path, points) == {'A', 'B'}


@pytest.mark.slow
def test_killed_checkpoint_saves_at_every_io_call(tmp_path):
    assert _checkpoint_kill_points(tmp_path, range) == {'A', 'B'}


# ---- killed from outside at a random moment ---------------------------------------------------

SAVE_LOOP = r"""
import sys, numpy as np
import framework as paddle
path = sys.argv[1]
state = {v: {'w': np.full((512, 1024), f, np.float32), 'version': v}
         for v, f in (('A', 1.0), ('B', 2.0))}
print('ready', flush=True)
i = 0
while True:
    paddle.save(state['AB'[i % 2]], path)
    i += 1
"""


def _kill_at_random_moments(tmp_path, runs, seed):
    path = str(tmp_path / 'big.pdparams')
    rng = random.Random(seed)
    env = dict(os.environ, PYTHONPATH=ROOT)
    for _ in range(runs):
        child = subprocess.Popen([sys.executable, '-c', SAVE_LOOP, path], env=env,
                                 stdout=subprocess.PIPE)
        assert child.stdout.readline().strip() == b'ready'
        time.sleep(rng.uniform(0.2, 1.0))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        if os.path.exists(path):
            state = paddle.load(path, return_numpy=True)
            assert state['version'] in 'AB'
            assert np.all(state['w'] == (1.0 if state['version'] == 'A' else 2.0))
    paddle.save({'version': 'C'}, path)
    assert leftovers(str(tmp_path), ['big.pdparams']) == []


def test_checkpoint_save_killed_at_a_random_moment(tmp_path):
    _kill_at_random_moments(tmp_path, 1, seed=5)


@pytest.mark.slow
def test_checkpoint_saves_killed_at_random_moments(tmp_path):
    _kill_at_random_moments(tmp_path, 20, seed=6)
