import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pytest


@pytest.fixture(autouse=True, scope='session')
def verify_after_every_pass():
    """The IR verifier checks every program the executor compiles before its
    passes and after each pass that changed it (a broken program names the
    pass); ``FLAGS_verify_passes=0`` in the environment turns it off."""
    import framework
    framework.set_flags({'FLAGS_verify_passes': os.environ.get('FLAGS_verify_passes') != '0'})
    yield


@pytest.fixture
def static_mode():
    """Static mode with a fresh scope for the test, undone afterwards
    (modules whose every test builds programs use it for all of them:
    ``pytestmark = pytest.mark.usefixtures('static_mode')``)."""
    import framework
    framework.enable_static()
    try:
        with framework.static.scope_guard(framework.static.Scope()):
            yield
    finally:
        framework.disable_static()


@pytest.fixture
def nan_check():
    """FLAGS_check_nan_inf on for the test, off afterwards."""
    import framework
    framework.set_flags({'FLAGS_check_nan_inf': True})
    try:
        yield
    finally:
        framework.set_flags({'FLAGS_check_nan_inf': False})


@pytest.fixture
def numpy_backend():
    """The numpy kernels for the test (what it checks is numpy's own: conv
    algorithm search, workspaces), the process's backend afterwards."""
    from framework.ops import backends
    with backends.using('numpy'):
        yield
