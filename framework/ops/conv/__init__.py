"""(being written) conv and pooling ops."""
__all__ = []
