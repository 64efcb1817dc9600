"""(being written) ops: loss."""
__all__ = []
TENSOR_METHODS = {}
