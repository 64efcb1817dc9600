"""``import torch`` giving this framework (Paddle's torch proxy).

While enabled, a meta-path finder answers ``torch`` with the framework package
and ``torch.X.Y`` with ``framework.X.Y`` where that module exists (else the
import fails as usual). A real torch already imported is put aside and comes
back on ``disable``. ``scope`` limits the proxy to imports made by the named
modules (and their submodules); ``blocked_modules`` are never proxied for.
"""
import contextlib
import importlib
import importlib.abc
import importlib.util
import sys

_ROOT = __name__.split('.')[0]          # 'framework'


def _names(scope):
    if scope is None:
        return None
    return {scope} if isinstance(scope, str) else set(scope)


def _importer():
    """The module whose code runs the import being resolved."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get('__name__', '')
        if not (name.startswith('importlib') or name == __name__):
            return name
        frame = frame.f_back
    return ''


def _within(name, modules):
    return any(name == m or name.startswith(m + '.') for m in modules)


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target
        self.own_spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.own_spec = module.__spec__
        return module

    def exec_module(self, module):
        # importlib stamped the alias's spec on the real module: give its own back
        module.__spec__ = self.own_spec


class _TorchProxyFinder(importlib.abc.MetaPathFinder):
    def __init__(self):
        self.scope = None               # None: every importer
        self.blocked = set()

    def find_spec(self, fullname, path=None, target=None):
        if fullname != 'torch' and not fullname.startswith('torch.'):
            return None
        importer = _importer()
        if _within(importer, self.blocked) or (self.scope is not None
                                               and not _within(importer, self.scope)):
            return None
        real = _ROOT + fullname[len('torch'):]
        if importlib.util.find_spec(real) is None:
            return None
        loader = _AliasLoader(real)
        return importlib.util.spec_from_loader(fullname, loader,
                                               is_package=fullname == 'torch')


_FINDER = _TorchProxyFinder()
_put_aside = {}


def _swap_out_real_torch():
    for name in [n for n in sys.modules if n == 'torch' or n.startswith('torch.')]:
        module = sys.modules.pop(name)
        if not getattr(module, '__name__', '').startswith(_ROOT):
            _put_aside[name] = module


def _forget_proxies():
    for name in [n for n in sys.modules if n == 'torch' or n.startswith('torch.')]:
        if getattr(sys.modules[name], '__name__', '').startswith(_ROOT):
            del sys.modules[name]
    sys.modules.update(_put_aside)
    _put_aside.clear()


def extend_torch_proxy_blocked_modules(modules):
    """Modules whose ``import torch`` is never proxied."""
    _FINDER.blocked |= _names(modules)


def enable_torch_proxy(*, scope=None, blocked_modules=None, backend='torch', silent=False):
    """Make ``import torch`` give this framework (see the module docstring)."""
    if backend != 'torch':
        raise ValueError("enable_compat: unsupported backend %r; only 'torch'" % (backend,))
    if blocked_modules is not None:
        extend_torch_proxy_blocked_modules(blocked_modules)
    _FINDER.scope = _names(scope)
    if _FINDER not in sys.meta_path:
        _swap_out_real_torch()
        sys.meta_path.insert(0, _FINDER)


def disable_torch_proxy():
    """``import torch`` is torch again (a real torch put aside comes back)."""
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
        _forget_proxies()
    _FINDER.scope = None


@contextlib.contextmanager
def use_torch_proxy_guard(enable=True, *, scope=None, blocked_modules=None, silent=False):
    """The proxy on (or off) inside a ``with`` block, as it was afterwards."""
    was_on = _FINDER in sys.meta_path
    old_scope = _FINDER.scope
    if enable:
        enable_torch_proxy(scope=scope, blocked_modules=blocked_modules, silent=silent)
    else:
        disable_torch_proxy()
    try:
        yield
    finally:
        if was_on:
            enable_torch_proxy(scope=old_scope)
        else:
            disable_torch_proxy()
