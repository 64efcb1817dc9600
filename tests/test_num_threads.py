"""BLAS thread count: one thread by default, the environment's count when set,
set_num_threads/get_num_threads as torch's."""
import os
import subprocess
import sys

import pytest

import framework as paddle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV_VARS = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')


def _threads_in_fresh_process(**env_vars):
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS}
    env.update(env_vars)
    env['PYTHONPATH'] = ROOT
    code = ("import framework, threadpoolctl;"
            "print(framework.get_num_threads(),"
            " max(i['num_threads'] for i in threadpoolctl.threadpool_info()"
            " if i['user_api'] == 'blas'))")
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    return [int(v) for v in out]


def test_default_is_one_blas_thread():
    assert _threads_in_fresh_process() == [1, 1]


def test_environment_count_is_kept():
    assert _threads_in_fresh_process(OMP_NUM_THREADS='2') == [2, 2]


def test_set_num_threads_changes_the_blas_and_get_reads_it():
    before = paddle.get_num_threads()
    try:
        paddle.set_num_threads(2)
        assert paddle.get_num_threads() == 2
        paddle.set_num_threads(1)
        assert paddle.get_num_threads() == 1
    finally:
        paddle.set_num_threads(before)


@pytest.mark.parametrize('bad', [0, -1, 1.5, '2', True])
def test_set_num_threads_rejects_non_positive_ints(bad):
    with pytest.raises(ValueError, match='set_num_threads'):
        paddle.set_num_threads(bad)
