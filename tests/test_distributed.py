"""paddle.distributed: the one-process world here, 2 MPI ranks through mpiexec.

The 2-rank checks live in ``tests/dist_scripts/`` (one launch runs many
checks, each printing ``rank<r> PASS|FAIL <name>``); they need mpi4py and an
``mpiexec`` (the ``distributed`` extra) and are skipped with that reason
without them.
"""
import importlib
import os
import re
import signal
import subprocess
import sys

import numpy as np
import pytest

import framework as paddle
import framework.distributed as dist
from framework.distributed import backend

dist_launch = importlib.import_module('framework.distributed.launch')

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCRIPTS = os.path.join(HERE, 'dist_scripts')


# ---- the one-process world --------------------------------------------------------
def test_import_framework_does_not_import_mpi4py():
    code = "import sys, framework; import framework.distributed; print('mpi4py' in sys.modules)"
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, cwd=ROOT,
                         env=_env(), timeout=300)
    assert out.stdout.strip() == 'False', out.stderr


_HIDE_MPI4PY = "import sys; sys.modules['mpi4py'] = None; "


def test_without_mpi4py_a_script_is_a_world_of_one():
    code = _HIDE_MPI4PY + ("import framework.distributed as d; g = d.init_parallel_env(); "
                           "print(g.nranks, d.get_rank())")
    env = _env()
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         cwd=ROOT, env=env, timeout=300)
    assert out.stdout.split() == ['1', '0'], out.stderr
    env['OMPI_COMM_WORLD_SIZE'], env['OMPI_COMM_WORLD_RANK'] = '2', '1'
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         cwd=ROOT, env=env, timeout=300)
    assert out.returncode != 0 and "pip install 'framework[distributed]'" in out.stderr, out.stderr


def test_world_of_one_process():
    group = dist.init_parallel_env()
    assert dist.is_initialized() and (group.rank, group.nranks, group.id) == (0, 1, 0)
    assert (dist.get_rank(), dist.get_world_size()) == (0, 1)
    env = dist.ParallelEnv()
    assert (env.rank, env.world_size, env.nranks, env.local_rank, env.dev_id) == (0, 1, 1, 0, 0)
    assert dist.fleet.worker_num() == 1 and dist.fleet.worker_index() == 0


def test_collectives_at_world_size_one():
    x = paddle.to_tensor([1.0, -2.0])
    for op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.MIN, dist.ReduceOp.PROD,
               dist.ReduceOp.AVG):
        task = dist.all_reduce(x, op, sync_op=False)
        task.wait()
        assert task.is_completed() and x.numpy().tolist() == [1.0, -2.0]
    out = []
    dist.all_gather(out, x)
    assert [t.numpy().tolist() for t in out] == [[1.0, -2.0]]
    objs = []
    dist.all_gather_object(objs, {'a': 1})
    assert objs == [{'a': 1}]
    dist.broadcast(x, 0)
    y = paddle.zeros([2])
    dist.scatter(y, [x], src=0)
    assert y.numpy().tolist() == [1.0, -2.0]
    dist.barrier()


def test_collective_argument_errors_name_the_api():
    x = paddle.to_tensor([1.0])
    with pytest.raises(ValueError, match='all_reduce.*ReduceOp'):
        dist.all_reduce(x, op=7)
    with pytest.raises(ValueError, match='broadcast.*src rank 3'):
        dist.broadcast(x, 3)
    with pytest.raises(TypeError, match='all_reduce: tensor should be a Tensor'):
        dist.all_reduce(np.ones(2))
    with pytest.raises(ValueError, match='send.*peer rank 0'):
        dist.send(x, 0)


def test_static_program_runs_collective_ops():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data('x', [2, 3], 'float64')
            y = x * 2.0
            dist.all_reduce(y, dist.ReduceOp.MAX)
            parts = []
            dist.all_gather(parts, y)
        types = [op.type for op in main.global_block().ops]
        assert 'c_allreduce_max' in types and 'c_allgather' in types
        exe = paddle.static.Executor()
        value = np.arange(6.0).reshape(2, 3)
        got, part = exe.run(main, feed={'x': value}, fetch_list=[y, parts[0]])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, value * 2)
    np.testing.assert_allclose(part, value * 2)


def test_all_reduce_in_to_static_matches_eager():
    def f(x):
        y = x * 3.0
        dist.all_reduce(y)
        return y + 1.0
    x = paddle.to_tensor([1.0, -4.0])
    np.testing.assert_allclose(paddle.jit.to_static(f)(x).numpy(), f(x).numpy())


def test_backward_hook_fires_as_soon_as_a_leaf_gradient_is_final():
    l1, l2 = paddle.nn.Linear(3, 4), paddle.nn.Linear(4, 2)
    seen = []
    l2.weight._register_backward_hook(lambda: seen.append(
        ('l2', l2.weight.grad is not None, l1.weight.grad is None)))
    l1.weight._register_backward_hook(lambda: seen.append(('l1', l1.weight.grad is not None)))
    loss = l2(paddle.tanh(l1(paddle.randn([5, 3])))).sum()
    loss.backward()
    # l2's fired while l1's gradient was still being computed
    assert seen == [('l2', True, True), ('l1', True)]
    paddle.grad(l2(l1(paddle.randn([2, 3]))).sum(), [l1.weight])
    assert len(seen) == 2          # paddle.grad accumulates nothing: no hook
    handle = l1.bias._register_backward_hook(lambda: seen.append('bias'))
    handle.remove()
    l2(l1(paddle.randn([2, 3]))).sum().backward()
    assert 'bias' not in seen and len(seen) == 4
    with pytest.raises(RuntimeError, match='only leaf tensors'):
        (l1.weight * 2)._register_backward_hook(lambda: None)


def test_data_parallel_in_one_process():
    paddle.seed(3)
    model = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Linear(4, 1))
    dp = paddle.DataParallel(model)
    assert list(dp.state_dict()) == list(model.state_dict()) == \
        ['0.weight', '0.bias', '1.weight', '1.bias']
    x = paddle.randn([6, 3])
    with dp.no_sync():
        dp(x).sum().backward()
    dp(x).sum().backward()
    w = model[0].weight
    assert w.grad is not None and dp(x).shape == [6, 1]
    dp.set_state_dict(model.state_dict())
    with pytest.raises(TypeError, match='DataParallel: layers should be'):
        paddle.DataParallel(np.ones(3))


def test_distributed_batch_sampler_in_one_process():
    sampler = paddle.io.DistributedBatchSampler(list(range(7)), batch_size=2)
    assert (sampler.nranks, sampler.local_rank) == (1, 0)
    assert list(sampler) == [[0, 1], [2, 3], [4, 5], [6]]


def test_launch_builds_the_mpiexec_command():
    cmd = dist_launch.mpiexec_command(['train.py', '--lr', '0.1'], 2, ['10.0.0.1', '10.0.0.2'],
                                      'mpiexec', 'openmpi', env={'PYTHONPATH': '/x', 'HOME': '/r'})
    text = ' '.join(cmd)
    assert cmd[:3] == ['mpiexec', '-n', '4'] and '--host 10.0.0.1:2,10.0.0.2:2' in text
    assert '-x PYTHONPATH' in text and 'HOME' not in text
    assert cmd[-3:] == ['train.py', '--lr', '0.1']
    cmd = dist_launch.mpiexec_command(['t.py'], 3, ['a', 'b'], 'mpiexec', 'mpich', env={})
    assert '-hosts a,b -ppn 3' in ' '.join(cmd) and cmd[2] == '6'
    cmd = dist_launch.mpiexec_command(['t.py'], 2, (), 'mpiexec', 'openmpi', env={},
                                      log_dir='logs')
    assert '--output-filename logs' in ' '.join(cmd)


def test_launch_print_command_passes_hosts_through(capsys, monkeypatch):
    monkeypatch.setattr(dist_launch, 'mpi_available', lambda: True)
    monkeypatch.setattr(dist_launch, 'find_mpiexec', lambda explicit=None: '/opt/mpi/mpiexec')
    monkeypatch.setattr(dist_launch, '_flavour', lambda mpiexec: 'openmpi')
    assert dist_launch.launch(['--nproc_per_node', '2', '--ips', 'h1,h2', '--print_command',
                               'train.py', '--epochs', '3']) == 0
    out = capsys.readouterr().out
    assert out.startswith('/opt/mpi/mpiexec -n 4 ') and '--host h1:2,h2:2' in out
    assert out.rstrip().endswith('train.py --epochs 3')


def test_launch_without_mpi_says_how_to_install(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(dist_launch, 'mpi_available', lambda: False)
    assert dist_launch.launch(['--nproc_per_node', '2', 'train.py']) == 2
    assert "pip install 'framework[distributed]'" in capsys.readouterr().err
    script = tmp_path / 'one.py'
    script.write_text("import framework.distributed as d; d.init_parallel_env(); "
                      "open(%r, 'w').write(str(d.get_world_size()))" % str(tmp_path / 'ws'))
    monkeypatch.setenv('PYTHONPATH', ROOT)
    assert dist_launch.launch([str(script)]) == 0
    assert (tmp_path / 'ws').read_text() == '1'


# ---- 2 ranks through mpiexec --------------------------------------------------------
def _env():
    env = dict(os.environ)
    env['PYTHONPATH'] = ROOT + os.pathsep + env.get('PYTHONPATH', '')
    env.setdefault('OMP_NUM_THREADS', '1')
    for name in [k for k in env if k.startswith(('OMPI_', 'PMIX_', 'PMI_'))]:
        del env[name]           # a test run inside an MPI job still launches its own
    return env


def _needs_mpi():
    if not backend.mpi_available():
        pytest.skip("mpi4py is not installed (" + backend.INSTALL_HINT + ")")
    if dist_launch.find_mpiexec() is None:
        pytest.skip("no mpiexec found (" + backend.INSTALL_HINT + ")")


def _run(cmd, timeout):
    """Run ``cmd`` in its own process group; kill the whole group on timeout."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(), cwd=ROOT, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail("mpiexec job timed out after %d s\nstdout:\n%s\nstderr:\n%s"
                    % (timeout, out, err[-3000:]))
    return proc.returncode, out, err


def _mpiexec(script, *args, timeout=600):
    cmd = dist_launch.mpiexec_command([os.path.join(SCRIPTS, script)] + list(args), 2, (),
                                      dist_launch.find_mpiexec(), env={})
    return _run(cmd, timeout)


def _assert_all_checks_passed(script, out, err):
    names = re.findall(r'^@check\ndef (\w+)', open(os.path.join(SCRIPTS, script)).read(), re.M)
    failures = [line for line in out.splitlines() if ' FAIL ' in line]
    assert not failures, '\n'.join(failures)
    for rank in range(2):
        passed = set(re.findall(r'^rank%d PASS (\w+)' % rank, out, re.M))
        missing = [n for n in names if n not in passed]
        assert not missing, "rank %d did not pass %s\nstdout:\n%s\nstderr:\n%s" % (
            rank, missing, out, err[-3000:])


def test_collectives_on_two_ranks_through_launch():
    _needs_mpi()
    cmd = [sys.executable, '-m', 'framework.distributed.launch', '--nproc_per_node', '2',
           os.path.join(SCRIPTS, 'check_collectives.py')]
    code, out, err = _run(cmd, 600)
    _assert_all_checks_passed('check_collectives.py', out, err)
    assert code == 0, err[-3000:]


def test_data_parallel_training_on_two_ranks(tmp_path):
    _needs_mpi()
    code, out, err = _mpiexec('check_training.py', str(tmp_path))
    _assert_all_checks_passed('check_training.py', out, err)
    assert code == 0, err[-3000:]


def test_a_failing_rank_stops_the_others_naming_it():
    _needs_mpi()
    code, out, err = _mpiexec('check_failure.py', 'raise', timeout=300)
    assert code != 0 and 'UNREACHED' not in out
    assert 'ValueError: rank one broke on purpose' in err
    assert re.search(r'rank 1 failed, so rank 0 stops: ValueError: rank one broke on purpose',
                     err), err[-3000:]


def test_a_rank_that_exits_early_stops_the_others_naming_it():
    _needs_mpi()
    code, out, err = _mpiexec('check_failure.py', 'exit', timeout=300)
    assert code != 0 and 'UNREACHED' not in out
    assert 'rank 1 ended its script (exited) while rank 0 waits for it in all_reduce' in err, \
        err[-3000:]


@pytest.mark.slow      # one more mpiexec launch of what launch's tests cover
def test_spawn_runs_a_function_on_two_ranks(tmp_path):
    _needs_mpi()
    sys.path.insert(0, SCRIPTS)          # spawn's ranks import the function as we do
    try:
        import spawn_target
        dist.spawn(spawn_target.write_all_reduced, (str(tmp_path), 1.5), nprocs=2)
    finally:
        sys.path.remove(SCRIPTS)
    for rank in range(2):
        assert (tmp_path / ('rank%d.txt' % rank)).read_text() == '%d 2 4.5' % rank
