"""Every docstring example of every module of ``framework`` runs and shows what
it says: ``doctest.DocTestFinder`` collects the ``>>>`` examples of each module
(its own functions, classes and methods, not names it imports), and each runs
on CPU in eager mode with the module's globals, as ``doctest.testmod`` would.
The project writes its examples as ``>>>`` blocks only; a Paddle-style
``.. code-block:: python`` example would escape this collection, so none may
appear."""
import doctest
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import framework


def _module_names():
    names = ['framework']
    for info in pkgutil.walk_packages(framework.__path__, 'framework.'):
        # a package's __main__ is a command (python -m ...): importing it runs it
        if info.name.rsplit('.', 1)[-1] != '__main__':
            names.append(info.name)
    return sorted(names)


def _tests(name):
    mod = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    return [t for t in finder.find(mod, name, module=mod) if t.examples]


MODULES = _module_names()
EXAMPLES = {name: _tests(name) for name in MODULES}


@pytest.mark.parametrize('name', sorted(n for n, tests in EXAMPLES.items() if tests))
def test_docstring_examples_run(name):
    tests = _tests(name)    # fresh globals: a module's examples may rebind names
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report = []
    state = np.random.get_state()
    try:
        for t in tests:
            runner.run(t, out=report.append)
            assert framework.in_dynamic_mode(), "%s left static mode on" % t.name
    finally:
        framework.disable_static()
        np.random.set_state(state)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, ''.join(report)


def test_examples_are_collected():
    """The walk reaches the subpackages (ops, nn, static, ...) and finds their examples."""
    counts = {name: sum(len(t.examples) for t in tests) for name, tests in EXAMPLES.items()}
    assert sum(counts.values()) > 500
    for name in ('framework.ops.conv.conv', 'framework.ops.math', 'framework.ops.control',
                 'framework.nn.layer.layers', 'framework.optimizer.nadam',
                 'framework.vision.models.resnet', 'framework.autograd',
                 'framework.autograd.functional', 'framework.autograd.py_layer',
                 'framework.incubate.autograd.functional', 'framework.hapi.model',
                 'framework.hapi.summary', 'framework.hapi.callbacks',
                 'framework.hapi.progressbar', 'framework.metric.metrics'):
        assert counts.get(name, 0) > 0, name


def test_no_uncollected_code_block_examples():
    found = [name for name in MODULES
             if '.. code-block::' in inspect.getsource(importlib.import_module(name))]
    assert not found, (
        "'.. code-block::' examples, which the doctest collection does not run (write them "
        "as '>>>' examples): %s" % ', '.join(found))
