"""The framework's version (``paddle.__version__``), in a core module so that
``utils.require_version`` and ``inference.get_version`` read it without
importing the root package, which sits above them."""
__version__ = '0.1.0'
