"""The benchmark harness runs: run_all.py prints its table, and the process
conditions it measures under clean up after themselves."""
import gc
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'benchmarks'))
import conditions  # noqa: E402


def test_run_all_quick_eager_prints_the_table():
    # one round of ~10 ms per contender: seconds, not minutes
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, 'benchmarks', 'run_all.py'), '--quick',
         '--only', 'eager', '--conditions', 'clean', '--rounds', '1', '--round-s', '0.01'],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    header = [l for l in lines if l.startswith('figure')]
    assert header and header[0].split()[:4] == ['figure', 'condition', 'backend', 'ours'], \
        out.stdout
    rows = [l for l in lines if l.startswith('eager fwd+bwd per op')]
    # one row per kernel backend: numpy, and onednn where it loads
    from framework.backends import onednn
    kinds = ['numpy'] + (['onednn'] if onednn.available() else [])
    assert [r.split()[5] for r in rows] == kinds, out.stdout
    assert all(' clean ' in r and ' us ' in r for r in rows), out.stdout
    assert 'ERROR' not in out.stdout, out.stdout
    assert 'load average at start' in out.stdout and 'load average at end' in out.stdout


def test_busy_core_is_killed_on_an_exception():
    with pytest.raises(RuntimeError):
        with conditions.busy_core() as pid:
            os.kill(pid, 0)                      # it runs
            raise RuntimeError('measurement failed')
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)                          # killed and reaped


def test_live_objects_are_gc_tracked_and_released():
    gc.collect()
    before = len(gc.get_objects())
    with conditions.live_objects(70_000) as extra:
        assert 65_000 <= extra <= 75_000
        assert len(gc.get_objects()) - before >= 65_000
    assert len(gc.get_objects()) - before < 5_000


def test_time_rounds_reports_each_contender():
    t = conditions.time_rounds({'a': lambda: None, 'b': lambda: sum(range(100))},
                               conditions.Timing(rounds=2, round_s=0.001, warmup=1))
    assert set(t) == {'a', 'b'} and all(v > 0 for v in t.values())
