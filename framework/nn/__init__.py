"""``framework.nn``: layers, containers, initializers and functional ops."""
from . import functional  # noqa: F401
