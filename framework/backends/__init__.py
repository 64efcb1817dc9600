"""Kernel backends: bindings of native libraries the ops' second kernels run on.

Each backend is one package that knows its library and nothing of the ops:
``onednn/`` (Intel's oneDNN, the ``[onednn]`` extra). The ops declare their
kernels for a backend beside their numpy kernels
(``OpDef.def_kernel('onednn')``) and call the package's primitives;
``ops/backends.py`` chooses the backend that runs.
"""
